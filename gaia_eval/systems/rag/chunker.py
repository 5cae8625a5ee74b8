"""Word-window chunking with overlap, split at page markers, fitted to the embedder.

Invariant the benchmark relies on: every chunk is a run of consecutive words of the
extracted text re-joined with single spaces, so it is an exact substring of
`" ".join(text.split())`.

Pages: a `[Page N]` marker always starts a new window, so no chunk spans two pages, and
the marker itself is left out of the chunks (its words carry no content, and the page a
chunk belongs to is the last marker before it in the text). Overlap applies within a page.

Fitting: windows are sized in words, but the embedder reads at most `max_tokens` tokens
and would silently drop the rest. A window that does not fit is cut at word boundaries
into pieces that do; those pieces are reported by `split` (the next window's overlap may
then start before the last piece).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import cast

from gaia_eval.embed import Embedder, TokenLimited

DEFAULT_CHUNK_SIZE = 150
DEFAULT_CHUNK_OVERLAP = 30

_PAGE_NUMBER = re.compile(r"\d+\]")


@dataclass
class Chunking:
    """A file's chunks in document order."""

    chunks: list[str]
    split: set[int] = field(default_factory=set)
    """Indices of chunks that are pieces of a window cut to fit the embedder."""


def page_segments(words: list[str]) -> list[list[str]]:
    """The words between `[Page N]` markers (markers dropped); the whole text if none."""
    segments: list[list[str]] = [[]]
    i = 0
    while i < len(words):
        if words[i] == "[Page" and i + 1 < len(words) and _PAGE_NUMBER.fullmatch(words[i + 1]):
            segments.append([])
            i += 2
            continue
        segments[-1].append(words[i])
        i += 1
    return [s for s in segments if s]


def windows(words: list[str], size: int, overlap: int) -> list[str]:
    """Windows of `size` words starting every `size - overlap` words; the last one ends
    at the last word (no window lies wholly inside the previous one)."""
    step = size - overlap
    out: list[str] = []
    start = 0
    while True:
        out.append(" ".join(words[start : start + size]))
        if start + size >= len(words):
            return out
        start += step


def fit(chunks: list[str], embedder: Embedder | None) -> Chunking:
    """Cut chunks the embedder would truncate into pieces that fit it."""
    if getattr(embedder, "fit_prefixes", None) is None or not chunks:
        return Chunking(list(chunks))
    limited = cast(TokenLimited, embedder)
    out = Chunking([])
    for text, whole in zip(chunks, limited.fit_prefixes(chunks), strict=True):
        if whole >= len(text):
            out.chunks.append(text)
            continue
        rest, prefix = text, whole
        while rest:
            cut = min(prefix, len(rest)) if prefix > 0 else _first_word_end(rest)
            out.split.add(len(out.chunks))
            out.chunks.append(rest[:cut])
            rest = rest[cut:].lstrip(" ")
            if rest:
                prefix = limited.fit_prefixes([rest])[0]
    return out


def _first_word_end(text: str) -> int:
    # Not even one word fits (a huge token run): keep it whole; the embedder truncates
    # it, which beats dropping text the benchmark expects to find.
    space = text.find(" ")
    return len(text) if space < 0 else space


def chunk_text(
    text: str,
    size: int = DEFAULT_CHUNK_SIZE,
    overlap: int = DEFAULT_CHUNK_OVERLAP,
    embedder: Embedder | None = None,
) -> Chunking:
    """Chunk extracted text: page segments, then word windows, then fitting."""
    if size <= 0 or not 0 <= overlap < size:
        msg = f"chunk size {size} / overlap {overlap}: need size > 0 and 0 <= overlap < size"
        raise ValueError(msg)
    chunks: list[str] = []
    for segment in page_segments(text.split()):
        chunks.extend(windows(segment, size, overlap))
    return fit(chunks, embedder)
