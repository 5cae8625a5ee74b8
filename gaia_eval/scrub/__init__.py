"""Secret scrubbing for everything gaia_eval writes, and for `gaia-eval scrub`.

`gaia_eval.core.results_io` scrubs every artifact (transcripts, diffs, results,
scorecards, reports) with `scrub_text` before its atomic write, and a write whose text
still holds a secret after redaction is refused with LeakError. (results_io imports this
package on its first write; this package imports nothing of results_io.) The scrub
always includes the environment's secret-looking values, read at
each write (so a key exported mid-run is still caught), plus values registered with
`register_known`. The native core is imported on first use, keeping this import cheap.

The rules (kinds, exact shapes, examples) are in docs/scrubbing.md.
"""

from __future__ import annotations

import html
import json
import threading
import urllib.parse
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from gaia_eval.scrub.env import SECRET_NAME, known_from_env, value_qualifies

if TYPE_CHECKING:
    from gaia_eval._native import Scrubber

__all__ = [
    "SECRET_NAME",
    "escaped_forms",
    "known_from_env",
    "make_scrubber",
    "register_known",
    "registered_known",
    "scrub_bytes",
    "scrub_text",
    "value_qualifies",
]

_lock = threading.Lock()
_registered: set[bytes] = set()


def register_known(*values: bytes | str) -> int:
    """Add values every later scrub redacts (e.g. a gateway key read from a state file).

    Returns how many qualified (see `value_qualifies`); the others are ignored.
    """
    added = 0
    for value in values:
        raw = value.encode("utf-8", "surrogateescape") if isinstance(value, str) else value
        if value_qualifies(raw):
            with _lock:
                _registered.add(raw)
            added += 1
    return added


def registered_known() -> tuple[bytes, ...]:
    """The values added with `register_known`, sorted."""
    with _lock:
        return tuple(sorted(_registered))


def escaped_forms(value: bytes) -> set[bytes]:
    """`value` and the forms an artifact can hold it in: JSON-escaped (once and twice: an
    error body that was JSON already), URL-encoded (`%XX`, and `+` for spaces) and
    HTML-escaped. A value with `"` or `\\` changes its bytes when a transcript is encoded."""
    text = value.decode("utf-8", "surrogateescape")
    forms = {value}
    try:
        once = json.dumps(text, ensure_ascii=False)[1:-1]
        twice = json.dumps(once, ensure_ascii=False)[1:-1]
        ascii_once = json.dumps(text)[1:-1]
        for form in (once, twice, ascii_once, html.escape(text), html.escape(text, quote=False)):
            forms.add(form.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:  # a lone surrogate from the environment: its bytes only
        pass
    forms.add(urllib.parse.quote(value, safe="").encode("ascii"))
    forms.add(urllib.parse.quote_plus(value, safe="").encode("ascii"))
    return forms


@lru_cache(maxsize=16)
def _cached(known: tuple[bytes, ...], skip: tuple[str, ...]) -> Scrubber:
    from gaia_eval._native import Scrubber

    values: set[bytes] = set()
    for value in known:
        values |= escaped_forms(value)
    return Scrubber(sorted(values), skip)


def make_scrubber(
    known: Iterable[bytes | str] = (), *, from_env: bool = True, skip: Iterable[str] = ()
) -> Scrubber:
    """A native scrubber for the given known values, plus (by default) the environment's
    and the registered ones. Scrubbers are cached per configuration."""
    values = {v.encode("utf-8", "surrogateescape") if isinstance(v, str) else v for v in known}
    if from_env:
        values.update(known_from_env())
    values.update(registered_known())
    return _cached(tuple(sorted(values)), tuple(sorted(skip)))


def scrub_bytes(
    data: bytes,
    *,
    known: Iterable[bytes | str] = (),
    from_env: bool = True,
    skip: Iterable[str] = (),
) -> bytes:
    """Scrub bytes (options as `make_scrubber`); LeakError on a survivor."""
    return make_scrubber(known, from_env=from_env, skip=skip).scrub(data)


def scrub_text(text: str, *, known: Iterable[bytes | str] = (), skip: Iterable[str] = ()) -> str:
    """Scrub a str; LeakError when a secret survives redaction."""
    # surrogatepass keeps lone surrogates (they can reach us from JSON) round-tripping;
    # every redacted span is ASCII-delimited, so the output decodes the same way.
    data = text.encode("utf-8", "surrogatepass")
    out = make_scrubber(known, skip=skip).scrub(data)
    if out is data:
        return text
    return out.decode("utf-8", "surrogatepass")
