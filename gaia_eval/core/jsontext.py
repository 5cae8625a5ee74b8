"""Text that cannot be written: JSON allows a lone surrogate escape ("\\ud800") that no
UTF-8 file, digest or report can hold, so a loader finds them first and names where
(exit 2), instead of a UnicodeEncodeError deep inside a run."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# Only a \uD800-\uDFFF escape can put a surrogate into text decoded from UTF-8.
_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_ID_KEYS = ("id", "instance_id", "_id", "name")

Path_ = tuple[str | int, ...]


def _bad(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogates(value: Any, at: Path_ = ()) -> list[Path_]:
    """Where in parsed JSON `value` a string (or an object key) holds a lone surrogate,
    as paths of keys and list indices."""
    found: list[Path_] = []
    stack: list[tuple[Path_, Any]] = [(at, value)]
    while stack:  # iterative: a deeply nested file must not hit the recursion limit
        where, node = stack.pop()
        if isinstance(node, str):
            if _bad(node):
                found.append(where)
        elif isinstance(node, dict):
            for key, child in node.items():
                if isinstance(key, str) and _bad(key):
                    found.append(where)
                stack.append(((*where, key), child))
        elif isinstance(node, list):
            stack.extend(((*where, i), child) for i, child in enumerate(node))
    return sorted(found, key=lambda p: [(str(type(x)), x) for x in p])


def dotted(where: Path_) -> str:
    """`questions[0].evidence[1].quote` for a path; `(top level)` for the root."""
    out = ""
    for part in where:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "(top level)"


def shown(text: object) -> str:
    """A value for a message, with surrogates escaped so the message itself can print."""
    return ascii(text) if isinstance(text, str) else repr(text)


PROBLEM = (
    "holds a lone surrogate (an unpaired \\ud800-\\udfff escape), which no UTF-8 file can "
    "store; fix the text (escape the character as a valid pair, or write it as UTF-8)"
)


def _owner(value: Any, where: Path_) -> str:
    """` (in question 'q1')` for the innermost object on `where` that has an id, named
    after the list holding it (`questions` -> question; `row` otherwise)."""
    found = ""
    node = value
    noun = "row"
    for part in where:
        if isinstance(node, dict):
            key = next((k for k in _ID_KEYS if isinstance(node.get(k), str | int)), None)
            if key is not None and node is not value:
                found = f" (in {noun} {shown(node[key])})"
            if isinstance(part, str):
                noun = part[:-1] if part.endswith("s") and len(part) > 1 else "row"
            node = node.get(part) if isinstance(part, str) else None
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            break
    return found


def surrogate_problems(
    value: Any, raw: str | None = None, *, allowed: Callable[[Path_], bool] | None = None
) -> list[str]:
    """One line per string of parsed JSON `value` holding a lone surrogate: its path, the
    id of the row it is in, and the fix. `raw` (the JSON text) lets a file without any
    surrogate escape skip the walk; `allowed` exempts paths that may hold one (a file
    name: a non-UTF-8 name travels as surrogate escapes, which JSON writes back)."""
    if raw is not None and _ESCAPE.search(raw) is None and not _bad(raw):
        return []
    return [
        f"{dotted(w)}{_owner(value, w)}: {PROBLEM}"
        for w in lone_surrogates(value)
        if allowed is None or not allowed(w)
    ]


def refuse_surrogates(value: Any, where: object, raw: str | None = None) -> None:
    """InvalidInputError naming `where` (a file, a line) and the first lone surrogate."""
    from gaia_eval.core.errors import InvalidInputError

    problems = surrogate_problems(value, raw)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        msg = f"{where}: {problems[0]}{more}"
        raise InvalidInputError(msg)


def repaired(value: Any) -> Any:
    """`value` with every lone surrogate replaced by U+FFFD (for readers that keep what
    they can of a damaged file, like `errors="replace"` decoding does); valid text is
    returned unchanged."""
    if isinstance(value, str):
        if not _bad(value):
            return value
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, dict):
        return {repaired(k): repaired(v) for k, v in value.items()}
    if isinstance(value, list):
        return [repaired(v) for v in value]
    return value
