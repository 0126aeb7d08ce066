import unittest

from textstats.report import report


class TestReport(unittest.TestCase):
    def test_report_lines(self):
        self.assertEqual(report("b a b", 2).splitlines(),
                         ["words: 3", "unique: 2", "average length: 1.00", "b: 2", "a: 1"])

    def test_report_two_decimals(self):
        self.assertIn("average length: 2.33", report("ab abc ab"))

    def test_report_no_words(self):
        self.assertEqual(report("", 3), "words: 0\nunique: 0\naverage length: 0.00")


if __name__ == "__main__":
    unittest.main()
