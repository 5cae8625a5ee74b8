"""Judging finished tasks: the attempts the judge sees (read from each item's folder), one
batched call per group (a repeat of a run), and the verdicts written into the results.

Used by the run itself (the suite's pass after every task has run), by `tasks judge DIR`
and by `tasks controls`. A judge outage stops at the first group it hits: the attempts of
that group are "judge unavailable" (unjudged, never a low score), later groups are left
ungraded, and an InfrastructureError says so, so a resume grades what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.results import Envelope
from gaia_eval.tasks.definitions import TaskDef
from gaia_eval.tasks.judge import Attempt
from gaia_eval.tasks.models import Judgement, TaskResult, Transcript
from gaia_eval.tasks.results import item_dir, split_item_id

UNAVAILABLE = "judge unavailable"


def needs_grade(res: TaskResult) -> bool:
    """No grade yet, or only the placeholder an outage left."""
    return res.judge is None or (res.judge.error or "").startswith(UNAVAILABLE)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def attempt(folder: Path, attempt_id: str, item: str, task: TaskDef) -> Attempt | None:
    """What the judge sees of one item (None when it left no transcript)."""
    from gaia_eval.tasks.checks import checks_that_ran

    tdir = item_dir(folder, item)
    tpath = tdir / "transcript.json"
    if not tpath.exists():
        return None
    tr = Transcript.model_validate_json(_read(tpath))
    return Attempt(
        id=attempt_id,
        task=task,
        prompt=task.prompt,
        answer=tr.outcome.answer,
        workspace_diff=_read(tdir / "workspace.diff"),
        setup_diff=_read(tdir / "setup.diff"),
        tool_calls=tr.outcome.tool_calls,
        checks=checks_that_ran(tr.outcome.tool_calls),
    )


def repeat_groups(items: list[str]) -> list[dict[str, str]]:
    """One judge call per repeat, attempts named by task id (as a one-repeat run's)."""
    groups: dict[int, dict[str, str]] = {}
    for iid in items:
        task, repeat = split_item_id(iid)
        groups.setdefault(repeat, {})[task] = iid
    return [groups[r] for r in sorted(groups)]


def grade(
    results: Mapping[str, TaskResult],
    groups: list[dict[str, str]],
    *,
    folder: Path,
    tasks: Mapping[str, TaskDef],
    judge_model: str,
    attempts_allowed: int = 2,
    price_override: tuple[float, float] | None = None,
) -> None:
    """Grade the items of each group (attempt id -> item id) and apply the verdicts to
    `results` in place; raises InfrastructureError after the first outage."""
    from gaia_eval.llm.complete import complete
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.judge import judge_attempts, verdict

    spec = parse_model_spec(judge_model, "--judge-model")
    for group in groups:
        attempts = []
        for aid, iid in group.items():
            res = results.get(iid)
            task = tasks.get(res.id) if res is not None else None
            if res is None or task is None:
                continue
            a = attempt(folder, aid, iid, task)
            if a is not None:
                attempts.append(a)
        if not attempts:
            continue
        outage: InfrastructureError | None = None
        try:
            grades = judge_attempts(
                attempts,
                lambda system, prompt: complete(
                    spec, system, prompt, price_override=price_override
                ),
                attempts_allowed=attempts_allowed,
            )
        except InfrastructureError as err:
            outage = err
            grades = {a.id: Judgement(error=f"{UNAVAILABLE}: {err}") for a in attempts}
        for a in attempts:
            res = results[group[a.id]]
            res.judge = grades[a.id]
            if res.after_answer:
                continue  # the after-answer rule fails the task whatever the judge says
            passed, why = verdict(a.task, res.judge, res.passed)
            if a.task.check == "stated":
                res.passed, res.why = passed, why
        if outage is not None:
            msg = f"{UNAVAILABLE} ({spec.text}): {outage}"
            raise InfrastructureError(msg) from outage


def judge_run(
    folder: Path,
    judge_model: str,
    tasks: Mapping[str, TaskDef],
    *,
    attempts_allowed: int = 2,
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
    from gaia_eval.tasks.results import load_run

    env, pre_engine = load_run(folder)
    if pre_engine:
        msg = (
            f"{folder}: a run from before the suite engine (scorecard.json); `tasks judge` "
            "grades runs with a results.json: run the tasks again"
        )
        raise InvalidInputError(msg)
    from gaia_eval.tasks.suite import TasksSuite

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
