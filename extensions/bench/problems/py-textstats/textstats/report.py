"""A plain-text report."""
from .stats import average_word_length, top_words, unique_words, word_count


def report(text, n=3):
    """Lines "words: N", "unique: N", "average length: X.XX" (two decimals), then "word: count" for the top n."""
    lines = [
        f"words: {word_count(text)}",
        f"unique: {unique_words(text)}",
        f"average length: {average_word_length(text):.1f}",
    ]
    for word, count in top_words(text, n):
        lines.append(f"{word}: {count}")
    return "\n".join(lines)
