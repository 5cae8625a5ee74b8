"""Checks for values that reach a git (or other subprocess) argument.

Instance rows come from downloaded datasets and user files, so a `base_commit` of
`--output=FILE` must never reach `git log` as an option. Every such value is checked where
it enters (the loaders), and every git call also puts `--end-of-options` before it, so
either defence alone keeps a value from being read as an option.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from gaia_eval.core.errors import InvalidInputError

_COMMIT = re.compile(r"[0-9a-fA-F]{7,40}")
# GitHub's own alphabet for owners and names; neither part may start with '.' or '-'.
_REPO_PART = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}"
_REPO = re.compile(f"{_REPO_PART}/{_REPO_PART}")


def commit(value: object, where: str) -> str:
    """A commit id of 7 to 40 hex digits, else InvalidInputError naming `where`."""
    if not isinstance(value, str) or not _COMMIT.fullmatch(value):
        msg = f"{where}: {value!r} is not a commit id (7 to 40 hex digits); fix the field"
        raise InvalidInputError(msg)
    return value


def repo(value: object, where: str) -> str:
    """`owner/name` of letters, digits, `_`, `.` and `-` (neither part starting with `.`
    or `-`, no `..`), else InvalidInputError naming `where`."""
    if not isinstance(value, str) or not _REPO.fullmatch(value) or ".." in value:
        msg = (
            f"{where}: {value!r} is not a repository name owner/name (letters, digits, "
            "'_', '.', '-'; neither part may start with '.' or '-'); fix the field"
        )
        raise InvalidInputError(msg)
    return value


def tree_path(value: object, where: str) -> str:
    """A relative POSIX path that stays inside its tree (no `..`, no NUL, not absolute)."""
    ok = isinstance(value, str) and value and "\0" not in value
    if ok:
        assert isinstance(value, str)
        parts = PurePosixPath(value).parts
        ok = not value.startswith("/") and ".." not in parts and bool(parts)
    if not ok:
        msg = f"{where}: path {value!r} must be relative and inside the repository"
        raise InvalidInputError(msg)
    assert isinstance(value, str)
    return value
