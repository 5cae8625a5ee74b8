"""The only importer of the private extension `gaia_eval._core`.

Every other module calls the typed wrappers here. Wrappers validate arguments at the
boundary (the binding validates again, so a direct caller cannot crash the interpreter)
and convert to the plain Python / NumPy types the rest of the package uses.
Each area keeps to its own section below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

try:
    from gaia_eval import _core
except ImportError as err:  # pragma: no cover - only without a built extension
    err.add_note(
        "gaia_eval's native core is not built. From a checkout run `nox -s native` "
        "(or `pip install -e .`); installed wheels ship it."
    )
    raise

# ---- text ------------------------------------------------------------------------------


def normalize_whitespace(text: str) -> tuple[str, npt.NDArray[np.int64]]:
    """Collapse every whitespace run (as `str.isspace`) to one space and trim.

    Returns the normalized text and, for each of its characters, the index of the
    character in `text` it came from (code points, as Python indexes a str).
    """
    if not isinstance(text, str):
        msg = f"text must be str, not {type(text).__name__}"
        raise TypeError(msg)
    try:
        norm, offsets = _core.normalize_whitespace(text)
    except TypeError:
        # Lone surrogates cannot cross into UTF-32. They are not whitespace, so a
        # placeholder keeps the collapse and the offsets identical; the characters
        # themselves are then taken back from the input.
        safe = text.encode("utf-32-le", "surrogatepass").decode("utf-32-le", "replace")
        _, offsets = _core.normalize_whitespace(safe)
        norm = "".join(text[i] for i in offsets.tolist())
    return norm, offsets


# ---- metrics ---------------------------------------------------------------------------


# ---- evidence --------------------------------------------------------------------------


# ---- grep ------------------------------------------------------------------------------


class GrepHits(NamedTuple):
    """Whole-word hits of several words, one row per (word, file, line)."""

    word: npt.NDArray[np.int32]
    """Index of the word in the query list."""
    file: npt.NDArray[np.int32]
    """Index of the file in the list the index was built from."""
    line: npt.NDArray[np.int32]
    """1-based line number."""
    hits: npt.NDArray[np.int32]
    """Occurrences of the word on that line."""


class GrepIndex:
    """Whole-word inverted index over a tree's files, built once (git grep -w -F words).

    A word is a maximal run of ASCII letters, digits and '_' (git's definition); matching is
    case-sensitive. Files with a NUL byte in their first 8000 bytes are skipped as binary,
    as `git grep -I` does.
    """

    def __init__(self, contents: list[bytes]) -> None:
        given: object = contents  # callers outside mypy's reach pass anything
        if not isinstance(given, list):
            msg = f"contents must be a list of bytes, not {type(given).__name__}"
            raise TypeError(msg)
        self._index = _core.GrepIndex(contents)

    @property
    def num_files(self) -> int:
        return int(self._index.num_files)

    @property
    def num_occurrences(self) -> int:
        """Word occurrences indexed (binary files excluded)."""
        return int(self._index.num_occurrences)

    def binary_mask(self) -> npt.NDArray[np.bool_]:
        """True for each file that was skipped as binary."""
        return self._index.binary_mask()

    def query(self, words: list[str]) -> GrepHits:
        """Hits of every word, ordered by word, file, line; ValueError for a non-word."""
        given: object = words
        if not isinstance(given, list) or not all(isinstance(w, str) for w in given):
            msg = "words must be a list of str"
            raise TypeError(msg)
        return GrepHits(*self._index.query(list(words)))


# ---- scrub -----------------------------------------------------------------------------
