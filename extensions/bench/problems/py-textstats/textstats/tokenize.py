"""Splitting text into words and sentences."""
import re

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
SENTENCE_END = re.compile(r"[.!?]+")


def words(text):
    """The words of text, lowercased; an apostrophe inside a word keeps it whole (don't, it's)."""
    return WORD.findall(text)


def sentences(text):
    """The sentences of text: they end at '.', '!' or '?'; empty ones are dropped."""
    parts = SENTENCE_END.split(text)
    return [p.strip() for p in parts if p.strip()]
