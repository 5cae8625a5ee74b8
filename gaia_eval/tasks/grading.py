"""Judging finished tasks: the attempts the judge sees (read from each item's folder), one
batched call per group (a repeat of a run), and the verdicts written into the results.

Used by the run itself (the suite's pass after every task has run), by `tasks judge DIR`
(tasks.rejudge) and by `tasks controls`. A judge outage stops at the first group it hits:
the attempts of that group are "judge unavailable" (unjudged, never a low score), later
groups are left ungraded, and an InfrastructureError says so, so a resume grades what is
missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gaia_eval.agents.models import Transcript
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.items import item_dir, split_item_id
from gaia_eval.tasks.definitions import TaskDef
from gaia_eval.tasks.judge import Attempt
from gaia_eval.tasks.models import Judgement, TaskResult

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
    therock_url: str | None = None,
    work_root: Path | None = None,
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
        # Repository tasks (TheRock, SWE-bench) are graded on the upstream rubric, in their
        # own batch per kind; the toybox ones as before.
        upstream = [a for a in attempts if a.task.check in ("diff", "swebench")]
        attempts = [a for a in attempts if a not in upstream]
        if upstream:
            from gaia_eval.tasks.upstream_judge import grade_upstream

            grade_upstream(
                results,
                group,
                upstream,
                folder=folder,
                ask=lambda system, prompt: complete(
                    spec, system, prompt, price_override=price_override
                ),
                attempts_allowed=attempts_allowed,
                therock_url=therock_url,
                work_root=work_root,
                label=spec.text,
            )
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
