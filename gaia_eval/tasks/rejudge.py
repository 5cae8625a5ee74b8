"""`tasks judge DIR`: grade a finished run again and rewrite its files in step."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gaia_eval.core.results import Envelope
from gaia_eval.tasks.definitions import TaskDef
from gaia_eval.tasks.grading import grade
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.results import load_run
from gaia_eval.tasks.suite import TasksSuite


def judge_run(
    folder: Path,
    judge_model: str,
    tasks: Mapping[str, TaskDef],
    *,
    attempts_allowed: int = 2,
    work_root: Path | None = None,
) -> Envelope:
    """`tasks judge DIR`: grade every task of a finished run again and rewrite its
    results.json, items.jsonl and reports (under the eval lock)."""
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.core.rewrite import rewriting
    from gaia_eval.core.suite import suite_class

    env, pre_engine = load_run(folder)
    if pre_engine:
        msg = (
            f"{folder}: a run from before the suite engine (scorecard.json); `tasks judge` "
            "grades runs with a results.json: run the tasks again"
        )
        raise InvalidInputError(msg)
    cls = suite_class(env.header.suite)
    if not issubclass(cls, TasksSuite):
        msg = f"{folder}: a {env.header.suite} run, not a tasks run"
        raise InvalidInputError(msg)
    with rewriting(folder, env, cls, f"gaia-eval tasks judge {folder}", TaskResult) as results:
        env.header.judge = judge_model
        env.header.settings["judge_attempts"] = attempts_allowed
        grade(
            results,
            cls.judge_groups(list(results)),
            folder=folder,
            tasks=tasks,
            judge_model=judge_model,
            attempts_allowed=attempts_allowed,
            therock_url=env.header.settings.get("therock_url"),
            work_root=work_root,
        )
    return env
