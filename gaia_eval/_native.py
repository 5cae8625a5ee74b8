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


# ---- grep ------------------------------------------------------------------------------


# ---- scrub -----------------------------------------------------------------------------
