"""Where a case is replayed: a clone of the session's repository, else an empty folder.

Only a git repository is reproduced, and only as a clone (its tracked history): a
recorded `cwd` that is not a repository (a home folder) would otherwise be copied whole
into the agent's folder, with `.ssh`, `.aws` and every untracked file in it, and a cwd
that holds the run's temporary folder would be copied into itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )


def _fix(case: str, session: str) -> str:
    return (
        f'set "cwd": null for case {case} (session {session}) in dataset.json to replay it in '
        "an empty folder, or record the session inside a git repository"
    )


def repository_root(cwd: str | None, *, case: str, session: str) -> Path | None:
    """The top of the git repository holding `cwd`; None when there is no folder to
    reproduce (no cwd, or it is gone). A folder that is not inside a repository is
    refused (InvalidInputError naming the case, the session and the fix)."""
    source = Path(cwd) if cwd else None
    if source is None or not source.is_dir():
        return None
    top = _git(source, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        msg = (
            f"case {case} (session {session}): its cwd {cwd} is not a git repository; gaia-eval "
            f"replays only repositories (cloned, never copied whole): {_fix(case, session)}"
        )
        raise InvalidInputError(msg)
    return Path(top.stdout.strip())


def prepare(
    cwd: str | None, branch: str | None, dest: Path, *, case: str = "?", session: str = "?"
) -> tuple[Path, str]:
    """(folder to run in, kind): kind is "git" (a clone at the recorded branch when it
    exists there, else HEAD) or "no_repo" (an empty folder: the cwd is gone or unset).

    A cwd that is not a repository, or whose clone fails, is refused (InvalidInputError).
    The clone holds tracked files only, so a `dest` inside the repository never nests."""
    root = repository_root(cwd, case=case, session=session)
    if root is None:
        dest.mkdir(parents=True, exist_ok=True)
        return dest, "no_repo"
    assert cwd is not None
    rel = Path(cwd).resolve().relative_to(root.resolve())
    args = ["clone", "-q", "--no-hardlinks"]
    if branch and _git(root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").returncode == 0:
        args += ["--branch", branch]
    done = _git(root.parent, *args, "--", str(root), str(dest))  # paths, never options
    if done.returncode != 0:
        msg = (
            f"case {case} (session {session}): git could not clone {root} "
            f"({done.stderr.strip()[:300]}); {_fix(case, session)}"
        )
        raise InvalidInputError(msg)
    return dest / rel, "git"
