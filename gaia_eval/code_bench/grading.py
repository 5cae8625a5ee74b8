"""Grading a finished attempt: a copy of the agent's project with every way to force a pass
put back, the visible and hidden tests run in it, the invariant snippet, regressions.

What is put back before the tests run (the agent may change anything in its project; the
grader trusts none of these): the visible tests folder exactly as shipped, the hidden tests
(never in the agent's project), and anywhere in the tree every conftest.py, pytest.ini,
tox.ini, setup.cfg, pyproject.toml ([tool.pytest] lives there), sitecustomize.py,
usercustomize.py, .pth file and compiled module (.pyc, .so, .pyd): the shipped version
where there is one, removed where there is none. A model planting a conftest.py that marks
every test passed (aider#5681) gets a grade of its code, not of its conftest.

The copy, the runner-file rules, the tampering scan and the test run are the shared
grader's (agents.grader): the hidden tests are copied in only after the agent's processes
are gone, they run in an interpreter and with a configuration the project cannot shape,
their bytes are checked after the run, and the outcomes come from the grader's own report.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.agents.checks import check_probe
from gaia_eval.agents.grader import (
    copy_tree,
    files,
    put_back_runner_files,
    same_file,
    source_tampering,
)
from gaia_eval.agents.models import CheckRecord
from gaia_eval.agents.node_grader import run_node_tests
from gaia_eval.agents.workspace import touched_files
from gaia_eval.code_bench.definitions import HIDDEN_TESTS, VISIBLE_TESTS, CodeTask
from gaia_eval.code_bench.testrun import PytestRun, run_pytest
from gaia_eval.core.errors import InvalidInputError

INVARIANT_TIMEOUT_S = 120.0


def _put_back_folder(dest: Path, shipped: Path | None, name: str, notes: list[str]) -> None:
    """`dest/name` becomes exactly `shipped` (or absent); every difference is noted."""
    target = dest / name
    have = files(target)
    want = files(shipped) if shipped is not None else {}
    for rel, path in have.items():
        if rel not in want:
            notes.append(f"{name}/{rel} (removed)")
        elif not same_file(path, want[rel]):
            notes.append(f"{name}/{rel} (restored)")
    notes += [f"{name}/{rel} (restored)" for rel in want if rel not in have]
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    if shipped is not None:
        shutil.copytree(shipped, target)


def graded_copy(project: Path, baseline: Path, hidden: Path, dest: Path) -> list[str]:
    """Copy `project` to `dest` with everything that could force a pass put back from
    `baseline` (the untouched project) and the hidden tests added; what was put back."""
    copy_tree(project, dest)
    notes: list[str] = []
    _put_back_folder(dest, baseline / VISIBLE_TESTS, VISIBLE_TESTS, notes)
    if (dest / HIDDEN_TESTS).exists():
        notes.append(f"{HIDDEN_TESTS}/ (removed: the project's own folder of that name)")
    _put_back_folder(dest, hidden, HIDDEN_TESTS, [])
    notes += put_back_runner_files(dest, baseline, skip=(VISIBLE_TESTS, HIDDEN_TESTS))
    return sorted(notes)


def tampering(dest: Path) -> list[str]:
    """Code under test that reaches into the test runner (it can only be there to steer
    the verdict), in any spelling, or stands in for a module the runner uses."""
    return source_tampering(dest, skip=(VISIBLE_TESTS, HIDDEN_TESTS))


@dataclass
class Grade:
    """One attempt's grade."""

    folder: Path
    """The graded copy (the caller removes it)."""
    run: PytestRun
    visible: list[str]
    """The visible tests' ids (as the untouched project collected them)."""
    hidden: list[str]
    """The hidden tests' ids."""
    restored: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    """Tests that passed on the untouched project and do not pass now."""
    invariant: CheckRecord | None = None

    def passed(self, ids: list[str]) -> int:
        return sum(1 for t in ids if self.run.outcomes.get(t) == "passed")

    @property
    def visible_passed(self) -> int:
        return self.passed(self.visible)

    @property
    def hidden_passed(self) -> int:
        return self.passed(self.hidden)

    @property
    def visible_ok(self) -> bool:
        """Every visible test passed (a skip, an xfail, an error or a missing test is not a
        pass), and there is at least one."""
        return bool(self.visible) and self.visible_passed == len(self.visible)

    @property
    def hidden_ok(self) -> bool:
        return self.hidden_passed == len(self.hidden)

    @property
    def invariant_ok(self) -> bool:
        return self.invariant is None or self.invariant.passed


def expected_ids(before: PytestRun) -> tuple[list[str], list[str]]:
    """(visible, hidden) test ids of the untouched project's run."""
    ids = sorted(before.outcomes)
    return (
        [t for t in ids if t.startswith(f"{VISIBLE_TESTS}/")],
        [t for t in ids if t.startswith(f"{HIDDEN_TESTS}/")],
    )


def run_tests(
    dest: Path,
    env: Mapping[str, str],
    timeout_s: float,
    *,
    language: str = "python",
    tb: str = "no",
    hidden: bool = True,
    expected: list[str] | None = None,
) -> PytestRun:
    paths = [VISIBLE_TESTS, HIDDEN_TESTS] if hidden else [VISIBLE_TESTS]
    if language == "javascript":
        return run_node_tests(
            dest,
            paths,
            env=env,
            work=dest.parent / "config",
            timeout_s=timeout_s,
            expected=expected,
        )
    return run_pytest(
        dest,
        paths,
        env=env,
        config_dir=dest.parent / "config",
        timeout_s=timeout_s,
        tb=tb,
        expected=expected,
    )


def _scratch(root: Path, label: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{label}-", dir=root)) / "project"


def run_untouched(
    task: CodeTask, *, env: Mapping[str, str], scratch: Path, timeout_s: float
) -> PytestRun:
    """The tests on the untouched project: which tests exist, which passed before."""
    dest = _scratch(scratch, f"{task.id}-before")
    try:
        graded_copy(task.project_dir, task.project_dir, task.hidden_dir, dest)
        run = run_tests(dest, env, timeout_s, language=task.language)
    finally:
        shutil.rmtree(dest.parent, ignore_errors=True)
    visible, hidden = expected_ids(run)
    if run.collection_errors or run.forgery or run.timed_out or not visible or not hidden:
        why = (
            f"collection errors in {run.collection_errors}"
            if run.collection_errors
            else run.forgery or run.summary or "no visible or no hidden tests ran"
        )
        msg = (
            f"task definition error: {task.folder}: the untouched project's tests do not run "
            f"cleanly ({why}); every test must be collected on the untouched project"
        )
        raise InvalidInputError(msg)
    return run


def grade(
    task: CodeTask,
    project: Path,
    baseline: Path,
    before: PytestRun,
    *,
    env: Mapping[str, str],
    scratch: Path,
    timeout_s: float,
) -> Grade:
    """Grade the agent's `project` against the untouched run `before`."""
    dest = _scratch(scratch, task.id)
    restored = graded_copy(project, baseline, task.hidden_dir, dest)
    # A graded copy that is the untouched project file for file (the agent changed nothing,
    # or only what was put back) is the tree `before` ran on: its outcomes stand.
    changed = [p for p in touched_files(baseline, dest) if not p.startswith(f"{HIDDEN_TESTS}/")]
    # Every test the untouched project collected must be collected again (a project that
    # makes pytest skip collecting a test has steered the run).
    run = (
        before
        if not changed
        else run_tests(dest, env, timeout_s, language=task.language, expected=before.collected)
    )
    visible, hidden = expected_ids(before)
    result = Grade(
        folder=dest,
        run=run,
        visible=visible,
        hidden=hidden,
        restored=restored,
        tampered=tampering(dest),
    )
    result.tampered += [f"test run not trusted: {t}" for t in run.tampered]
    result.regressions = [
        t for t, o in sorted(before.outcomes.items()) if o == "passed" and run.outcomes.get(t) != o
    ]
    if task.invariant is not None:
        result.invariant = check_probe(task.invariant, dest, env, INVARIANT_TIMEOUT_S)
    return result
