"""Running the tasks suite on the engine from a test, and reading its results back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.core import runloop
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.runloop import RunRequest
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.models import Scorecard
from gaia_eval.tasks.results import scorecards
from gaia_eval.tasks.runner import TasksConfig
from gaia_eval.tasks.suite import TasksSuite

TASKS = load_tasks()


def config(tmp_path: Path, harness: Any, tasks: list[str], **kw: Any) -> TasksConfig:
    return TasksConfig(
        suite="core",
        tasks=[TASKS.tasks[t] for t in tasks],
        harness=harness,
        model=kw.pop("model", "replay"),
        work_root=kw.pop("work_root", tmp_path / "work"),
        tests_timeout_s=60,
        **kw,
    )


def run(cfg: TasksConfig, out: Path, **req: Any) -> Envelope:
    """One run of `cfg` into `out` (exceptions propagate, as from the CLI)."""
    request = RunRequest(command="test", argv=["tasks", "run"], out=out, **req)
    return runloop.run(TasksSuite(cfg), request).envelope


def envelope(out: Path) -> Envelope:
    return load_envelope(out / "results.json", suite="tasks")


def card(env: Envelope) -> Scorecard:
    """The one repeat's scorecard view."""
    (only,) = scorecards(env)
    return only


@contextmanager
def private_lock(factory: pytest.TempPathFactory) -> Iterator[None]:
    """A lock folder of its own, for a module-scoped fixture that runs the suite: those set
    up before the per-test lock isolation, and must not meet a real eval's lock."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GAIA_EVAL_LOCK_DIR", str(factory.mktemp("lock")))
        yield
