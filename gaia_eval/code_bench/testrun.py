"""Running a task's tests the way the grader trusts (agents.grader: the shared grader of the
code benchmark and the flagship tasks).

pytest runs in a fresh `python -I -S` with the grader's own configuration outside the
project (`-c`, `--rootdir`, `--noconftest`, no cache plugin, no plugin autoload); the
outcomes come from the grader's report written outside the project, never from the
output the tests print (docs/code-bench.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from gaia_eval.agents import grader
from gaia_eval.agents.grader import PytestRun

__all__ = ["PytestRun", "grading_env", "run_pytest"]


def grading_env(base: Mapping[str, str], mypy_cache: Path | None) -> dict[str, str]:
    """The environment tests run in when graded."""
    env = {k: v for k, v in base.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["COLUMNS"] = "200"  # fewer cut summary lines
    if mypy_cache is not None:
        # A type-checking task's mypy runs reuse one cache outside the project, which the
        # agent could otherwise have planted (.mypy_cache is never copied into the grade).
        env["MYPY_CACHE_DIR"] = str(mypy_cache)
    return env


def run_pytest(
    project: Path,
    paths: Sequence[str],
    *,
    env: Mapping[str, str],
    config_dir: Path,
    timeout_s: float,
    tb: str = "no",
    expected: Sequence[str] | None = None,
) -> PytestRun:
    """Run pytest on `paths` (relative to `project`) as the grader does; the test files
    under `paths` must keep their bytes through the run."""
    return grader.run_pytest(
        project,
        paths,
        env=env,
        work=config_dir,
        timeout_s=timeout_s,
        tb=tb,
        protect=grader.test_files(project, paths),
        expected=expected,
    )
