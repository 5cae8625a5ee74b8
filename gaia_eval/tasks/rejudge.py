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
    from gaia_eval.core.lock import eval_lock
    from gaia_eval.core.runloop import (
        ITEM_LOG,
        append_record,
        read_item_log,
        unwind_on_signals,
        write_outputs,
    )
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
    logged = {r.id: r for r in read_item_log(folder / ITEM_LOG)}
    records = {r.id: logged.get(r.id, r) for r in env.items}
    results = {
        i: TaskResult.model_validate(r.result)
        for i, r in records.items()
        if r.status == "ok" and r.result is not None
    }
    before = {i: r.model_dump(mode="json", by_alias=True) for i, r in results.items()}
    groups = cls.judge_groups(list(results))
    with eval_lock(f"gaia-eval tasks judge {folder}"), unwind_on_signals():
        try:
            grade(
                results,
                groups,
                folder=folder,
                tasks=tasks,
                judge_model=judge_model,
                attempts_allowed=attempts_allowed,
                therock_url=env.header.settings.get("therock_url"),
                work_root=work_root,
            )
        finally:
            for i, res in results.items():
                data = res.model_dump(mode="json", by_alias=True)
                if data != before[i]:
                    records[i] = records[i].model_copy(update={"result": data})
                    append_record(folder / ITEM_LOG, records[i])
            env.items = list(records.values())
            env.header.judge = judge_model
            env.header.settings["judge_attempts"] = attempts_allowed
            env.verdict = None  # a verdict of the unjudged run no longer holds
            env.summary = cls.summarise(env).model_dump(mode="json", by_alias=True)
            write_outputs(cls, folder, env)
    return env
