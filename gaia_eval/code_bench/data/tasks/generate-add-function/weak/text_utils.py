"""Small text helpers."""

import re
import unicodedata


def word_count(text):
    """The number of whitespace-separated words in `text`."""
    return len(text.split())


def title_case(text):
    """Every word capitalised, the rest of each word lower case."""
    return " ".join(w[:1].upper() + w[1:].lower() for w in text.split())


def slugify(text, max_length=None):
    """A URL slug of `text`."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    if max_length is not None:
        slug = slug[:max_length]
        if "-" in slug and len(slug) == max_length:
            slug = slug[: slug.rindex("-")]
    return slug
