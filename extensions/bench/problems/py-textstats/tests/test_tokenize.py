import unittest

from textstats.tokenize import sentences, words


class TestWords(unittest.TestCase):
    def test_lowercase_words(self):
        self.assertEqual(words("a cat sat"), ["a", "cat", "sat"])

    def test_capitals(self):
        self.assertEqual(words("The Cat"), ["the", "cat"])

    def test_apostrophe(self):
        self.assertEqual(words("don't stop"), ["don't", "stop"])

    def test_punctuation(self):
        self.assertEqual(words("yes, no; maybe."), ["yes", "no", "maybe"])

    def test_empty(self):
        self.assertEqual(words(""), [])


class TestSentences(unittest.TestCase):
    def test_split(self):
        self.assertEqual(sentences("one. two! three?"), ["one", "two", "three"])

    def test_ellipsis(self):
        self.assertEqual(sentences("wait... what"), ["wait", "what"])


if __name__ == "__main__":
    unittest.main()
