"""Keyword side of the agent pipeline: tokens, an incremental BM25 index, search keys.

The dense embedder is weak exactly where document questions are specific: numbers, part
names, identifiers, rare terms. BM25 over the same chunks catches those; the agent
pipeline fuses both (see `system.py`).
"""

from __future__ import annotations

import math
import re
from collections import Counter

_TOKEN = re.compile(r"\w+", re.UNICODE)
_QUOTED = re.compile(r"\"([^\"]{3,})\"|“([^”]{3,})”|'([^']{3,})'")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "being",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "for",
        "from",
        "had",
        "has",
        "have",
        "having",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "may",
        "me",
        "might",
        "must",
        "my",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "shall",
        "should",
        "so",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "any",
        "because",
        "before",
        "below",
        "between",
        "both",
        "during",
        "each",
        "few",
        "further",
        "here",
        "just",
        "more",
        "most",
        "no",
        "nor",
        "not",
        "now",
        "off",
        "once",
        "only",
        "other",
        "out",
        "over",
        "own",
        "same",
        "some",
        "very",
        "please",
        "tell",
        "describe",
        "explain",
        "give",
        "list",
        "according",
        "document",
        "documents",
        "say",
        "says",
        "said",
        "mentioned",
        "stated",
        "state",
        "per",
    ]
)


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords (single letters dropped, digits kept)."""
    return [
        t
        for t in _TOKEN.findall(text.lower())
        if t not in STOPWORDS and (len(t) > 1 or t.isdigit())
    ]


def search_keys(query: str) -> list[str]:
    """Extra dense queries for a question: quoted phrases, the question's content words,
    and its specific terms (numbers, identifiers, capitalised names). The query itself is
    not included; duplicates and keys equal to the query are dropped."""
    keys: list[str] = []
    for groups in _QUOTED.findall(query):
        keys.extend(g for g in groups if g)
    content = " ".join(tokens(query))
    keys.append(content)
    words = re.findall(r"[\w.\-/]+", query)
    specific = [
        w.strip(".-/")
        for i, w in enumerate(words)
        if any(c.isdigit() for c in w)
        or "_" in w
        or (w[:1].isupper() and i > 0)
        or (len(w) > 1 and w.isupper())
    ]
    specific = [w for w in specific if w and w.lower() not in STOPWORDS]
    if specific:
        keys.append(" ".join(specific))
    seen = {" ".join(query.lower().split())}
    out = []
    for key in keys:
        norm = " ".join(key.lower().split())
        if norm and norm not in seen:
            seen.add(norm)
            out.append(key)
    return out


class BM25:
    """Okapi BM25 over chunks added and removed by integer id."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._postings: dict[str, dict[int, int]] = {}
        self._length: dict[int, int] = {}
        self._total = 0

    def __len__(self) -> int:
        return len(self._length)

    def add(self, chunk_id: int, text: str) -> None:
        counts = Counter(tokens(text))
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[chunk_id] = tf
        n = sum(counts.values())
        self._length[chunk_id] = n
        self._total += n

    def remove(self, chunk_id: int, text: str) -> None:
        for term in set(tokens(text)):
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(chunk_id, None)
                if not posting:
                    del self._postings[term]
        self._total -= self._length.pop(chunk_id, 0)

    def scores(self, query: str) -> dict[int, float]:
        """BM25 score of every chunk sharing a term with `query`."""
        n = len(self._length)
        if n == 0:
            return {}
        avg = self._total / n or 1.0
        out: dict[int, float] = {}
        for term in dict.fromkeys(tokens(query)):
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = math.log(1.0 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for cid, tf in posting.items():
                norm = tf + self.k1 * (1.0 - self.b + self.b * self._length[cid] / avg)
                out[cid] = out.get(cid, 0.0) + idf * tf * (self.k1 + 1.0) / norm
        return out
