"""Where a case is replayed: a copy of the session's repository, else an empty folder."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=600
    )


def prepare(cwd: str | None, branch: str | None, dest: Path) -> tuple[Path, str]:
    """(folder to run in, kind): kind is "git" (a clone at the recorded branch when it
    exists there, else HEAD), "copy" (a folder that is not a repository) or "no_repo"."""
    source = Path(cwd) if cwd else None
    if source is None or not source.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        return dest, "no_repo"
    top = _git(source, "rev-parse", "--show-toplevel")
    if top.returncode == 0:
        root = Path(top.stdout.strip())
        rel = source.resolve().relative_to(root.resolve())
        args = ["clone", "-q", "--no-hardlinks"]
        if (
            branch
            and _git(root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").returncode == 0
        ):
            args += ["--branch", branch]
        done = _git(root.parent, *args, "--", str(root), str(dest))  # paths, never options
        if done.returncode == 0:
            return dest / rel, "git"
    shutil.copytree(source, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    return dest, "copy"
