"""Which environment values count as known secrets."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

# A variable whose name contains one of these words (any case) holds a secret.
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH", re.IGNORECASE)

# The same length and shape test the native core applies to every known value; repeated
# here so that reading the environment needs no native import.
_MIN_LEN = 12
_MAX_LEN = 16384
_WHITESPACE = frozenset(b" \t\n\r\v\f")


def value_qualifies(value: bytes) -> bool:
    """12..16384 bytes, not starting with '/', '~' or '.', no ASCII whitespace."""
    if not _MIN_LEN <= len(value) <= _MAX_LEN or value[:1] in (b"/", b"~", b"."):
        return False
    return not any(b in _WHITESPACE for b in value)


def known_from_env(environ: Mapping[str, str] | None = None) -> tuple[bytes, ...]:
    """The secret-looking values of the environment (default: os.environ), as bytes.

    Values are encoded as the OS gave them (undecodable bytes survive as surrogate
    escapes), sorted and de-duplicated so the tuple works as a cache key.
    """
    env = os.environ if environ is None else environ
    found = set()
    for name, value in env.items():
        if not SECRET_NAME.search(name):
            continue
        raw = value.encode("utf-8", "surrogateescape")
        if value_qualifies(raw):
            found.add(raw)
    return tuple(sorted(found))
