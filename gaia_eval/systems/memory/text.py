"""Word-level text helpers shared by provenance, retrieval and forgetting.

A light stemmer (suffix stripping) is enough here: it only has to make "rainy" meet "rain"
and "allergies" meet "allergy", deterministically; it is not a linguistic claim.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+(?:[.:/'-][a-z0-9]+)*")

STOPWORDS = frozenset(
    [
        "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "from", "by",
        "with", "about", "as", "is", "are", "was", "were", "be", "been", "being", "am", "do",
        "does", "did", "have", "has", "had", "i", "me", "my", "mine", "you", "your", "we", "our",
        "us", "it", "its", "this", "that", "these", "those", "what", "which", "who", "whom",
        "whose", "when", "where", "why", "how", "can", "could", "would", "should", "will", "shall",
        "may", "might", "must", "not", "no", "yes", "so", "if", "then", "than", "there", "here",
        "just", "also", "very", "really", "please", "tell", "know", "remind", "any", "some", "all",
        "much", "many", "more", "most", "up", "down", "out", "over", "again", "still", "now",
        "today", "tomorrow", "yesterday", "get", "got", "going", "go", "let", "lets", "i'm", "im",
        "i've", "ive", "i'd", "id", "i'll", "ill", "it's", "thats", "that's", "what's", "whats",
    ]
)  # fmt: skip


def words(text: str) -> list[str]:
    """Lower-cased words (numbers and dotted/hyphenated forms kept whole)."""
    return _WORD.findall(text.lower().replace("’", "'"))


def stem(word: str) -> str:
    """Strip common English suffixes so inflected forms meet ("allergies" meets "allergy")."""
    w = word[:-2] if word.endswith("'s") else word
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2]
    for suffix in ("ing", "ed", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith(("ss", "us", "is")):
            w = w[: -len(suffix)]
            break
    # A final silent e goes too, so "lives", "living" and "live" meet.
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def content_terms(text: str) -> list[str]:
    """Stemmed words without stopwords, in order (duplicates kept)."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


def term_set(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


def overlap(needle: str, haystack: str) -> float:
    """The share of `needle`'s content terms found in `haystack` (0 when it has none)."""
    need = term_set(needle)
    if not need:
        return 0.0
    return len(need & term_set(haystack)) / len(need)


def norm_key(text: str) -> str:
    """A key for exact comparison: lower case, words joined by single spaces."""
    return " ".join(words(text))


def approx_tokens(text: str) -> int:
    """A model-independent token count: words and punctuation marks (~1.3 per word)."""
    return len(re.findall(r"\w+|[^\w\s]", text))


# Query expansion: the words people ask with, mapped to the attribute words extractors file
# under ("where do I work" finds "employer"). Stems on both sides.
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "work": ("employer", "job", "company", "title"),
    "job": ("employer", "title", "work"),
    "live": ("lives", "city", "address", "home", "neighbourhood"),
    "home": ("address", "lives", "city"),
    "eat": ("diet", "food", "allergy", "restaurant"),
    "dinner": ("restaurant", "diet", "food"),
    "lunch": ("restaurant", "diet", "food"),
    "food": ("diet", "allergy", "eat"),
    "cook": ("diet", "allergy", "food"),
    "train": ("race", "running", "run"),
    "run": ("race", "running"),
    "test": ("test command", "tests"),
    "appointment": ("reminder", "appointment"),
    "boss": ("manager",),
    "old": ("age",),
    "age": ("age", "old"),
}


def expanded_terms(text: str) -> frozenset[str]:
    """The text's terms plus the attribute words they usually stand for."""
    terms = set(term_set(text))
    expand = {stem(k): v for k, v in EXPANSIONS.items()}
    for t in list(terms):
        for extra in expand.get(t, ()):
            terms |= term_set(extra)
    return frozenset(terms)
