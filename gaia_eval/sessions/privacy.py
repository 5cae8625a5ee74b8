"""Session data is the user's own prompts and answers: never written where git would pick
it up. A path inside a git work tree is refused unless git ignores it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.rundir import RESULTS_ROOT


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=30
    )


def ignore_line(rel: Path) -> str:
    """The .gitignore line that covers `rel` (run folders under eval/results share one)."""
    parts, root = rel.parts, RESULTS_ROOT.parts
    if (
        parts[: len(root)] == root
        and len(parts) > len(root)
        and parts[len(root)].startswith("sessions")
    ):
        return f"{RESULTS_ROOT.as_posix()}/sessions*/"
    return f"/{rel.as_posix()}/"


def check_private(path: Path, flag: str = "--out") -> None:
    """Refuse (exit 2) a folder inside a git work tree that git does not ignore."""
    target = path.resolve()
    existing = target
    while not existing.exists():
        existing = existing.parent
    if existing.is_file():
        existing = existing.parent
    top = _git(existing, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        return  # not a work tree (or no git): nothing would commit it
    root = Path(top.stdout.strip()).resolve()
    rel = target.relative_to(root)
    if rel == Path():
        line = "(the repository root itself)"
    else:
        ignored = _git(root, "check-ignore", "-q", "--", f"{rel.as_posix()}/")
        if ignored.returncode == 0:
            return
        line = ignore_line(rel)
    msg = (
        f"{flag} {path}: that folder is inside the git work tree {root} and not ignored; "
        f"session data holds your own prompts and answers. Add the line `{line}` to "
        f"{root / '.gitignore'}, or write outside the repository"
    )
    raise InvalidInputError(msg)
