"""Statistics over the words and sentences of a text."""
from collections import Counter

from .tokenize import sentences, words


def word_count(text):
    return len(words(text))


def unique_words(text):
    return len(set(words(text)))


def average_word_length(text):
    """Mean length of the words, 0.0 for a text without words."""
    w = words(text)
    if not w:
        return 0.0
    return sum(len(x) for x in w) / len(w)


def average_sentence_length(text):
    """Mean number of words per sentence, 0.0 for a text without sentences."""
    s = sentences(text)
    if not s:
        return 0.0
    return word_count(text) / len(s)


def top_words(text, n=3):
    """The n most common (word, count) pairs, most common first; ties in alphabetical order."""
    counts = Counter(words(text))
    return sorted(counts.items(), key=lambda kv: -kv[1])[:n]
