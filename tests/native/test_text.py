"""The text kernel against its pure-Python oracle."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaia_eval import _native


def oracle(text: str) -> tuple[str, list[int]]:
    """Slow and obviously right: walk the string, Python's own notion of whitespace."""
    out: list[str] = []
    offsets: list[int] = []
    pending: int | None = None
    for i, ch in enumerate(text):
        if ch.isspace():
            if out and pending is None:
                pending = i
            continue
        if pending is not None:
            out.append(" ")
            offsets.append(pending)
            pending = None
        out.append(ch)
        offsets.append(i)
    return "".join(out), offsets


WHITESPACE = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())


@given(st.text(alphabet=st.sampled_from(list(WHITESPACE) + list("ab\u00e9\u4e2d\U0001f600"))))
def test_matches_oracle_on_whitespace_heavy_text(text: str) -> None:
    norm, offsets = _native.normalize_whitespace(text)
    want, want_offsets = oracle(text)
    assert norm == want == " ".join(text.split())
    assert offsets.tolist() == want_offsets


@given(st.text())
def test_matches_oracle_on_any_text(text: str) -> None:
    norm, offsets = _native.normalize_whitespace(text)
    want, want_offsets = oracle(text)
    assert norm == want
    assert offsets.tolist() == want_offsets
    assert offsets.dtype == np.int64


def test_offsets_map_back_to_original_characters() -> None:
    text = "  héllo\t\n  wörld \U0001f600  end "
    norm, offsets = _native.normalize_whitespace(text)
    assert norm == "héllo wörld \U0001f600 end"
    assert all(text[o] == c for o, c in zip(offsets, norm, strict=True) if c != " ")


def test_lone_surrogates_do_not_crash() -> None:
    text = "a\ud800  b"
    norm, offsets = _native.normalize_whitespace(text)
    assert norm == "a\ud800 b"
    assert offsets.tolist() == [0, 1, 2, 4]


def test_rejects_non_str() -> None:
    with pytest.raises(TypeError, match="text must be str"):
        _native.normalize_whitespace(b"bytes")  # type: ignore[arg-type]
