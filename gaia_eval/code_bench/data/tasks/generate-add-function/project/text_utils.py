"""Small text helpers."""


def word_count(text):
    """The number of whitespace-separated words in `text`."""
    return len(text.split())


def title_case(text):
    """Every word capitalised, the rest of each word lower case."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in text.split())
