"""Real runs for the view's tests: suites run as processes into one results root, and the
toy suite run at successive commits of a scratch git repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent


def _env() -> dict[str, str]:
    return dict(
        os.environ,
        GAIA_EVAL_LOCK_DIR=tempfile.mkdtemp(prefix="view-lock-"),
        PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    )


def gaia(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia_eval", *argv],
        cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip


def toy(cwd: Path, values: dict[str, float], out: Path, *flags: str) -> int:
    """One toy-suite run of items {id: value} (an item passes at value >= 0.5)."""
    items = cwd / "items.json"
    items.write_text(json.dumps({k: {"value": 0.5, "now": v} for k, v in values.items()}))
    proc = subprocess.run(
        [sys.executable, str(HERE / "engine_toy_process.py"), str(items), "--out", str(out),
         *flags],
        cwd=cwd, env=_env(), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode


def git(cwd: Path, *argv: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *argv],
        cwd=cwd, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip


def toy_history(repo: Path, root: Path, rounds: list[dict[str, float]]) -> list[str]:
    """The toy suite once per round, each at a new commit of the git repository `repo`,
    every run after the first gated against the first; the commits.

    The run loop records the commit of the checkout gaia_eval runs from; these runs run in
    this process with that lookup pointed at `repo`, so each records a real commit."""
    import pytest
    from engine_toy import ToySuite

    from gaia_eval.core import runloop, runmeta

    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    commits = []
    for n, values in enumerate(rounds):
        (repo / "code.txt").write_text(f"round {n}\n")
        git(repo, "add", "code.txt")
        git(repo, "commit", "-q", "-m", f"round {n}")
        commits.append(git(repo, "rev-parse", "HEAD"))
        items = repo.parent / "items.json"
        items.write_text(json.dumps({k: {"value": 0.5, "now": v} for k, v in values.items()}))
        req = runloop.RunRequest(
            command="toy", argv=["toy"], out=root / f"toy-{n}",
            baseline=root / "toy-0" / "results.json" if n else None,
        )  # fmt: skip
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("GAIA_EVAL_LOCK_DIR", tempfile.mkdtemp(prefix="view-lock-"))
            mp.setattr(runloop, "git_state", lambda cwd=None: runmeta.git_state(repo))
            runloop.run(ToySuite(items), req)
    return commits
