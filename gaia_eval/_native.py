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
# Imported here, not at the top, so each area's section stays self-contained.
from collections.abc import Iterable  # noqa: E402
from typing import NamedTuple  # noqa: E402

from gaia_eval.core.errors import LeakError  # noqa: E402


class ScrubFinding(NamedTuple):
    """One redaction: its kind and where the redacted bytes were in the input (never the
    value itself)."""

    kind: str
    offset: int
    length: int


def _as_bytes(data: object, name: str) -> bytes:
    if isinstance(data, bytes):
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    msg = f"{name} must be bytes, not {type(data).__name__}"
    raise TypeError(msg)


def _known_bytes(value: bytes | str) -> bytes:
    if isinstance(value, str):
        # Environment values carry undecodable bytes as surrogate escapes.
        return value.encode("utf-8", "surrogateescape")
    return _as_bytes(value, "known value")


def _leak(err: Exception) -> LeakError:
    return LeakError(str(err))


def scrub_kinds() -> tuple[str, ...]:
    """Every redaction kind, in rule order ("known-secret", "private-key", "sk", ...)."""
    return tuple(_core.scrub_kinds())


def scrub_known_value_ok(value: bytes | str) -> bool:
    """Whether a value counts as a known secret: 12..16384 bytes, not starting with '/',
    '~' or '.', no ASCII whitespace."""
    return bool(_core.scrub_known_value_ok(_known_bytes(value)))


class ScrubStream:
    """Streaming scrubber: `feed` returns the scrubbed bytes decided so far (always
    re-checked), `finish` the rest. A secret split across feeds is still found; memory
    stays bounded by a carry of about 40 KiB per round."""

    def __init__(self, scrubber: Scrubber) -> None:
        self._stream = _core.ScrubStream(scrubber._core)

    def feed(self, data: bytes | bytearray | memoryview) -> bytes:
        try:
            return self._stream.feed(_as_bytes(data, "data"))
        except _core.ScrubLeakError as err:
            raise _leak(err) from None

    def finish(self) -> bytes:
        try:
            return self._stream.finish()
        except _core.ScrubLeakError as err:
            raise _leak(err) from None

    def take_findings(self) -> list[ScrubFinding]:
        """Findings since the last call, offsets in the whole input stream."""
        return [ScrubFinding(*f) for f in self._stream.take_findings()]


class Scrubber:
    """The native secret scanner with its known values fixed at construction.

    `skip` names kinds to leave unredacted (the re-check still sees them, so a skipped
    kind present in the text raises LeakError: that is how the refusal is tested).
    """

    def __init__(self, known: Iterable[bytes | str] = (), skip: Iterable[str] = ()) -> None:
        kinds = set(scrub_kinds())
        skip_list = list(skip)
        for kind in skip_list:
            if kind not in kinds:
                msg = f"skip: unknown scrub kind {kind!r}; known kinds: {', '.join(sorted(kinds))}"
                raise ValueError(msg)
        self._core = _core.Scrubber([_known_bytes(v) for v in known], skip_list)

    @property
    def known_count(self) -> int:
        """How many distinct known values qualified."""
        return int(self._core.known_count)

    def scrub(self, data: bytes | bytearray | memoryview) -> bytes:
        """Redact every secret; raises LeakError if one survives the re-check."""
        try:
            out, _ = self._core.scrub(_as_bytes(data, "data"), False)
        except _core.ScrubLeakError as err:
            raise _leak(err) from None
        return out

    def scrub_report(
        self, data: bytes | bytearray | memoryview
    ) -> tuple[bytes, list[ScrubFinding]]:
        """The scrubbed bytes and what was redacted (offsets into `data`)."""
        try:
            out, found = self._core.scrub(_as_bytes(data, "data"), True)
        except _core.ScrubLeakError as err:
            raise _leak(err) from None
        return out, [ScrubFinding(*f) for f in found or ()]

    def find(self, data: bytes | bytearray | memoryview) -> list[ScrubFinding]:
        """One pass of every rule without redaction: the re-check on its own."""
        return [ScrubFinding(*f) for f in self._core.find(_as_bytes(data, "data"))]

    def stream(self) -> ScrubStream:
        """A new streaming scrubber with this configuration."""
        return ScrubStream(self)
