"""textstats: word and sentence statistics for plain text."""
from .report import report
from .stats import average_sentence_length, average_word_length, top_words, unique_words, word_count
from .tokenize import sentences, words

__all__ = ["report", "average_sentence_length", "average_word_length", "top_words",
           "unique_words", "word_count", "sentences", "words"]
