"""The `therock` block of a diff task, {base, merge, reference_files}: parsed when
tasks.json is read (definitions), placeholders refused when the suite is selected."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.core import safe_args
from gaia_eval.core.errors import InvalidInputError

if TYPE_CHECKING:
    from gaia_eval.tasks.definitions import TaskDef

PIN_KEYS = ("base", "merge", "reference_files")
# A pin still to be filled in: refused with a clear message rather than fetched.
_PLACEHOLDER = re.compile(r"^(0{40}|TODO.*|FILL.*|)$", re.IGNORECASE)


def parse_pins(raw: Any, fail: Callable[[str, str], Exception]) -> dict[str, Any]:
    """A task's `therock` block: {base, merge, reference_files}; placeholders are kept
    (and refused when the suite is selected, by check_pins) so one unfilled task does not
    make the whole file unreadable."""
    if not isinstance(raw, dict):
        raise fail("'therock'", "must be an object {base, merge, reference_files}")
    extra = sorted(set(raw) - set(PIN_KEYS))
    if extra:
        raise fail(f"'therock.{extra[0]}'", f"unknown key; allowed: {list(PIN_KEYS)}")
    out: dict[str, Any] = {}
    for key in ("base", "merge"):
        value = raw.get(key)
        if not isinstance(value, str):
            raise fail(f"'therock.{key}'", "required: a 40-hex commit id")
        if not _PLACEHOLDER.match(value):
            try:
                _full(value, f"therock.{key}")
            except InvalidInputError as err:
                raise fail(f"'therock.{key}'", str(err)) from None
        out[key] = value.lower()
    files = raw.get("reference_files")
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        raise fail("'therock.reference_files'", "required: a non-empty list of paths")
    for f in files:
        try:
            safe_args.tree_path(f, "therock.reference_files")
        except InvalidInputError as err:
            raise fail("'therock.reference_files'", str(err)) from None
    out["reference_files"] = list(files)
    return out


def check_pins(tasks: Iterable[TaskDef], path: Path) -> None:
    """Refuse a suite with a placeholder pin, naming the file, task and field."""
    for t in tasks:
        for key in ("base", "merge"):
            if t.therock and _PLACEHOLDER.match(t.therock[key]):
                msg = (
                    f"{path}: task {t.id!r} field 'therock.{key}' is a placeholder "
                    f"({t.therock[key]!r}): fill in the real commit (see the file's _note) "
                    "before running this suite"
                )
                raise InvalidInputError(msg)
        if t.therock and t.therock["base"] == t.therock["merge"]:
            msg = f"{path}: task {t.id!r}: therock.base and therock.merge are the same commit"
            raise InvalidInputError(msg)


def _full(value: str, where: str) -> None:
    from gaia_eval.agents.checkout import full_commit

    full_commit(value, where)
