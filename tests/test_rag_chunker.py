"""Chunker invariants: chunks are substrings of the normalised text, pages respected,
windows cover every word, and chunks too long for the embedder are cut and reported."""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaia_eval.systems.rag.chunker import chunk_text, page_segments, windows


class WordLimited:
    """A token-limited embedder where a token is a word and `[CLS]`/`[SEP]` cost two."""

    def __init__(self, max_tokens: int) -> None:
        self._max = max_tokens

    @property
    def spec(self) -> str:
        return "test:words"

    @property
    def dim(self) -> int:
        return 4

    @property
    def max_tokens(self) -> int:
        return self._max

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        return np.zeros((len(texts), 4), dtype=np.float32)

    def fit_prefixes(self, texts: list[str]) -> list[int]:
        out = []
        for text in texts:
            words = text.split(" ")
            room = self._max - 2
            out.append(len(text) if len(words) <= room else len(" ".join(words[:room])))
        return out


word = st.text(alphabet="abcxyz019.,-é", min_size=1, max_size=6)
spaces = st.sampled_from([" ", "  ", "\n", "\t", " \n\n "])


@st.composite
def documents(draw: st.DrawFn) -> str:
    parts: list[str] = []
    page = 0
    for _ in range(draw(st.integers(0, 120))):
        if draw(st.integers(0, 25)) == 0:
            page += 1
            parts.append(f"[Page {page}]")
        else:
            parts.append(draw(word))
        parts.append(draw(spaces))
    return draw(spaces) + "".join(parts)


@settings(max_examples=80, deadline=None)
@given(documents(), st.integers(1, 30), st.data())
def test_chunks_are_substrings_of_normalised_text(
    text: str, size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    norm = " ".join(text.split())
    result = chunk_text(text, size, overlap)
    for chunk in result.chunks:
        assert chunk
        assert chunk in norm
        assert chunk == " ".join(chunk.split())
        assert "[Page" not in chunk.split()
    # Chunks are the page segments' windows, in document order.
    expected = [c for seg in page_segments(text.split()) for c in windows(seg, size, overlap)]
    assert result.chunks == expected
    assert result.split == set()


@settings(max_examples=60, deadline=None)
@given(documents(), st.integers(3, 40), st.integers(3, 12))
def test_fitted_chunks_fit_and_stay_substrings(text: str, size: int, max_tokens: int) -> None:
    norm = " ".join(text.split())
    emb = WordLimited(max_tokens)
    plain = chunk_text(text, size, size // 3)
    fitted = chunk_text(text, size, size // 3, embedder=emb)
    for chunk in fitted.chunks:
        assert chunk in norm
        assert len(chunk.split(" ")) <= max_tokens - 2
    # Pieces of a cut window re-join to the window.
    assert " ".join(fitted.chunks).split() == " ".join(plain.chunks).split()
    too_long = sum(1 for c in plain.chunks if len(c.split(" ")) > max_tokens - 2)
    assert (too_long == 0) == (not fitted.split)
    assert all(0 <= i < len(fitted.chunks) for i in fitted.split)


@settings(max_examples=100, deadline=None)
@given(st.lists(word, min_size=1, max_size=80), st.integers(1, 20), st.data())
def test_windows_cover_every_word_once_modulo_overlap(
    words: list[str], size: int, data: st.DataObject
) -> None:
    overlap = data.draw(st.integers(0, size - 1))
    parts = [w.split(" ") for w in windows(words, size, overlap)]
    rebuilt = list(parts[0])
    for prev, part in itertools.pairwise(parts):
        assert len(prev) == size  # only the last window may be short
        assert part[:overlap] == prev[len(prev) - overlap :]
        rebuilt.extend(part[overlap:])
    assert rebuilt == words


def test_windows_overlap_and_end_at_the_last_word() -> None:
    words = [f"w{i}" for i in range(10)]
    assert windows(words, 4, 1) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert windows(words, 4, 0) == ["w0 w1 w2 w3", "w4 w5 w6 w7", "w8 w9"]
    assert windows(words[:3], 4, 1) == ["w0 w1 w2"]


def test_page_markers_start_new_chunks() -> None:
    text = "[Page 1]\nalpha beta gamma\n\n[Page 2]\ndelta epsilon\n[Page 3]\n"
    assert chunk_text(text, 10, 2).chunks == ["alpha beta gamma", "delta epsilon"]


def test_split_records_every_piece() -> None:
    text = " ".join(f"w{i}" for i in range(12))
    result = chunk_text(text, 12, 0, embedder=WordLimited(7))
    assert result.chunks == ["w0 w1 w2 w3 w4", "w5 w6 w7 w8 w9", "w10 w11"]
    assert result.split == {0, 1, 2}


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (5, 5), (5, -1)])
def test_bad_settings_are_refused(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="overlap"):
        chunk_text("a b c", size, overlap)
