import unittest

from textstats.stats import average_sentence_length, average_word_length, top_words, unique_words, word_count


class TestStats(unittest.TestCase):
    def test_word_count(self):
        self.assertEqual(word_count("The cat and the hat."), 5)

    def test_unique_ignores_case(self):
        self.assertEqual(unique_words("The cat and the hat."), 4)

    def test_average_word_length(self):
        self.assertAlmostEqual(average_word_length("ab abcd"), 3.0)

    def test_average_word_length_empty(self):
        self.assertEqual(average_word_length("..."), 0.0)

    def test_average_sentence_length(self):
        self.assertAlmostEqual(average_sentence_length("A b c. D e."), 2.5)

    def test_top_words_ties_alphabetical(self):
        self.assertEqual(top_words("pear apple pear fig apple kiwi", 3),
                         [("apple", 2), ("pear", 2), ("fig", 1)])

    def test_top_words_case(self):
        self.assertEqual(top_words("Dog dog cat", 1), [("dog", 2)])


if __name__ == "__main__":
    unittest.main()
