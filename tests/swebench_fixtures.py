"""Real git repositories made in tmp_path for the SWE-bench and TheRock tests: a base
commit, a fix on top, and the row a SWE-bench instance would have for them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout


def commit_all(repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def make_repo(root: Path, name: str = "acme+widget") -> dict[str, Any]:
    """A repository `root/name` with three commits: c1, base, fix (fix on main)."""
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "widget").mkdir()
    (repo / "widget" / "__init__.py").write_text("")
    (repo / "widget" / "core.py").write_text("def add(a, b):\n    return a - b\n")
    c1 = commit_all(repo, "start")
    (repo / "README.md").write_text("widget\n")
    base = commit_all(repo, "docs")
    (repo / "widget" / "core.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_core.py").write_text(
        "from widget.core import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    )
    fix = commit_all(repo, "fix add (SECRET-FIX-MARKER)")
    patch = git(repo, "diff", base, fix)
    return {"repo": repo, "c1": c1, "base": base, "fix": fix, "patch": patch}


def row(info: dict[str, Any], instance: str = "acme__widget-1") -> dict[str, Any]:
    return {
        "instance_id": instance,
        "repo": "acme/widget",
        "base_commit": info["base"],
        "problem_statement": "add(2, 2) returns 0 instead of 4.",
        "patch": info["patch"],
        "test_patch": "",
        "FAIL_TO_PASS": json.dumps(["tests/test_core.py::test_add"]),
        "PASS_TO_PASS": "[]",
        "version": "1.0",
    }


def cache_row(work: Path, data: dict[str, Any]) -> None:
    folder = work / "swebench"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{data['instance_id']}.json").write_text(json.dumps(data))
