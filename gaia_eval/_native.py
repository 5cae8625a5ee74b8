"""The only importer of the private extension `gaia_eval._core`.

Every other module calls the typed wrappers here. Wrappers validate arguments at the
boundary (the binding validates again, so a direct caller cannot crash the interpreter)
and convert to the plain Python / NumPy types the rest of the package uses.
Each area keeps to its own section below.
"""

from __future__ import annotations

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

EvidenceDocument = _core.EvidenceDocument
"""A document's normalized text and "[Page N]" markers, held natively (see evidence.hpp)."""

ChunkSpan = tuple[int, int, tuple[int, ...]]


def evidence_document(extracted: str) -> _core.EvidenceDocument:
    """Normalize `extracted` once and find its page markers; later calls reuse the result."""
    return _core.EvidenceDocument(extracted)  # the binding rejects a non-str


def evidence_locate(
    doc: _core.EvidenceDocument, chunks: list[str], pieces: list[bool]
) -> list[ChunkSpan | None]:
    """Locate chunks (document order) by the cursor walk; (start, end, pages) or None each.

    `pieces[i]` marks chunk i as a piece of a window split to fit the embedder; empty: none.
    """
    if not isinstance(chunks, list) or not all(isinstance(c, str) for c in chunks):
        msg = "chunks must be a list of str"
        raise TypeError(msg)
    if pieces and len(pieces) != len(chunks):
        msg = f"pieces has {len(pieces)} entries for {len(chunks)} chunks"
        raise ValueError(msg)
    return doc.locate(chunks, [bool(s) for s in pieces])


def evidence_resolve(
    doc: _core.EvidenceDocument, quote: str, page: int | None, near: str | None
) -> tuple[int, int, int]:
    """Resolve a quote: (status, start, end); status 0 ok, 1 empty quote, 2 unknown page,
    3 near hint not in the document, 4 quote not found (start = end = -1 unless ok)."""
    if page is not None and (isinstance(page, bool) or not isinstance(page, int) or page < 1):
        msg = f"page must be an int >= 1, not {page!r}"
        raise ValueError(msg)
    return doc.resolve(quote, page or 0, near or "")


def evidence_find(hay: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """First index of `needle` wholly inside hay[start:end] (no negative indexing), or -1.

    Unlike str.find, an empty needle is never found: an empty label matches nothing.
    """
    return _core.evidence_find(hay, needle, start, len(hay) if end is None else end)


# ---- grep ------------------------------------------------------------------------------


# ---- scrub -----------------------------------------------------------------------------
