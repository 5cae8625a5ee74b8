"""A tasks run's results on the engine's envelope: item ids and folders, the per-repeat
scorecard views the gate, propose and the harness x model table read, the summary, and
the loading of run folders -- pre-engine ones (scorecard.json, r1/, r2/...) included.

Items are tasks x repeats: repeat 1 of a task is the task id itself (`02-bugfix`), later
repeats add a suffix (`02-bugfix#r2`). A single run's ids, folders and expectation rows
are the task names; every (task, repeat) is still its own item, resumed and sharded alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.items import item_id, split_item_id
from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo, load_envelope
from gaia_eval.core.results_io import read_json
from gaia_eval.core.runmeta import Machine
from gaia_eval.tasks.models import (
    SCORECARD_SCHEMA,
    Counts,
    Judgement,
    RunCost,
    Scorecard,
    TaskResult,
    TasksSummary,
)

SUITE = "tasks"
LEGACY_DIGEST = "pre-engine scorecard"


def counts(ts: list[TaskResult]) -> Counts:
    """The scorecard counts (docs/tasks.md) over a list of task results."""
    judged = [t for t in ts if t.judge is not None and t.judge.judged()]
    qualities = [q for t in judged if t.judge and (q := t.judge.quality()) is not None]
    return Counts(
        tasks=len(ts),
        passed=sum(t.passed is True for t in ts),
        failed=sum(t.passed is False for t in ts),
        not_judged=sum(_awaits_judge(t) for t in ts),
        coding=sum(t.check == "mechanical" for t in ts),
        verified=sum(t.verified for t in ts if t.check == "mechanical"),
        errors=sum(t.error is not None for t in ts),
        unmeasured=sum(t.error_kind == "unavailable" for t in ts),
        judged=len(judged),
        quality=round(sum(qualities) / len(qualities), 2) if qualities else None,
        misreported=sum(1 for t in judged if t.judge and (t.judge.fabrication_free or 5) < 5),
        steps=sum(t.steps for t in ts),
        tool_calls=sum(t.tool_calls for t in ts),
        input_tokens=sum(t.input_tokens for t in ts),
        output_tokens=sum(t.output_tokens for t in ts),
        total_tokens=sum(t.input_tokens + t.output_tokens for t in ts),
        wall_seconds=round(sum(t.wall_seconds for t in ts), 1),
    )


def _awaits_judge(t: TaskResult) -> bool:
    """Ran, undecided and the judge's to decide (not the SWE-bench harness's, not broken)."""
    return t.passed is None and t.error is None and t.check != "swebench"


def summary(card: Scorecard) -> Counts:
    """The counts of one scorecard (one repeat)."""
    return counts(card.tasks)


# ---- results of records -----------------------------------------------------------------


def task_result(rec: ItemRecord, checks: dict[str, str]) -> TaskResult:
    """A record as a TaskResult; unmeasured and crashed items become results that say so."""
    task, _ = split_item_id(rec.id)
    if rec.status == "ok" and rec.result is not None:
        return TaskResult.model_validate(rec.result)
    if rec.status == "infra_error":
        return TaskResult(
            id=task,
            check=checks.get(task, ""),
            error=rec.error,
            error_kind="unavailable",
            why=f"not measured: {rec.error}",
        )
    return TaskResult(
        id=task,
        check=checks.get(task, ""),
        error=rec.error or "crashed",
        error_kind="failed",
        why=f"crashed: {rec.error}",
    )


def results_by_repeat(env: Envelope) -> dict[int, list[tuple[str, TaskResult]]]:
    """repeat -> [(item id, result)] in run order, for every item that has a record."""
    checks = dict(env.setup.get("checks") or {})
    records = env.records()
    out: dict[int, list[tuple[str, TaskResult]]] = {
        r: [] for r in range(1, int(env.header.settings.get("repeats", 1)) + 1)
    }
    order = env.header.item_ids or [r.id for r in env.items]
    for iid in order:
        rec = records.get(iid)
        if rec is not None:
            out.setdefault(split_item_id(iid)[1], []).append((iid, task_result(rec, checks)))
    return out


def run_cost(tasks: list[TaskResult]) -> RunCost:
    """Total agent cost; unknown if any task's is, an error-free single source otherwise."""
    sources = {t.cost_source for t in tasks if t.cost_source}
    if len(sources) > 1:
        # Mixed sources are different kinds of dollar; adding them would be meaningless.
        return RunCost(note=f"mixed cost sources {sorted(sources)}; no total")
    unknown = [t.id for t in tasks if t.cost_usd is None]
    if unknown or not tasks:
        return RunCost(
            source=next(iter(sources), None), note=f"unknown cost for {unknown}" if unknown else ""
        )
    return RunCost(
        total_usd=round(sum(t.cost_usd or 0.0 for t in tasks), 6), source=next(iter(sources), None)
    )


def judge_cost(tasks: list[TaskResult]) -> RunCost | None:
    """What judging these tasks cost (None: none was judged); unknown if any share is."""
    grades: list[Judgement] = [t.judge for t in tasks if t.judge is not None]
    if not grades:
        return None
    costs = [g.cost_usd for g in grades]
    sources = {g.cost_source for g in grades if g.cost_source}
    return RunCost(
        total_usd=round(sum(c or 0.0 for c in costs), 6) if None not in costs else None,
        source=next(iter(sources), None),
    )


def scorecards(env: Envelope) -> list[Scorecard]:
    """One scorecard per repeat, as the gate, propose and the comparison table read them."""
    head, settings = env.header, env.header.settings
    asked: dict[int, list[str]] = {}
    for iid in head.item_ids:
        task, repeat = split_item_id(iid)
        asked.setdefault(repeat, []).append(task)
    cards = []
    for repeat, pairs in sorted(results_by_repeat(env).items()):
        tasks = [t for _, t in pairs]
        cards.append(
            Scorecard(
                suite=head.tier,
                model=head.model or "",
                harness=str(settings.get("harness") or head.system or ""),
                repeat=repeat,
                revision=head.run.commit,
                run_timeout_s=float(settings.get("run_timeout_s", 0.0)),
                full_access=bool(settings.get("full_access", False)),
                fenced=bool(settings.get("fenced", False)),
                therock_url=settings.get("therock_url"),
                tasks=tasks,
                cost=run_cost(tasks),
                judge_model=head.judge,
                judge_cost=judge_cost(tasks),
                task_ids=asked.get(repeat, []),
                meter=_meter_data(env),
            )
        )
    return cards


def _meter_data(env: Envelope) -> dict[str, Any] | None:
    data = env.setup.get("meter")
    return data if isinstance(data, dict) else None


def metered_cost(env: Envelope) -> RunCost | None:
    """The run's cost from the billing meter (`--meter`), once its closing snapshot is in."""
    from gaia_eval.agents.meter import MeterRecord

    data = _meter_data(env)
    if data is None or not data.get("after"):
        return None
    rec = MeterRecord.model_validate(data)
    note = (
        f"{rec.meter} billing meter, account {rec.account}, window from {rec.window_start}; "
        "the per-task costs are harness counts"
    )
    return RunCost(total_usd=rec.usd(), source="metered", note=note)


def summarise(env: Envelope) -> TasksSummary:
    head, settings = env.header, env.header.settings
    by_repeat = results_by_repeat(env)
    every = [t for pairs in by_repeat.values() for _, t in pairs]
    return TasksSummary(
        suite=head.tier,
        model=head.model or "",
        harness=str(settings.get("harness") or head.system or ""),
        judge_model=head.judge,
        run_timeout_s=float(settings.get("run_timeout_s", 0.0)),
        full_access=bool(settings.get("full_access", False)),
        fenced=bool(settings.get("fenced", False)),
        repeats=int(settings.get("repeats", 1)),
        task_ids=list(head.item_ids),
        counts=counts(every),
        by_repeat=[counts([t for _, t in p]) for _, p in sorted(by_repeat.items())]
        if len(by_repeat) > 1
        else [],
        cost=metered_cost(env) or run_cost(every),
        judge_cost=judge_cost(every),
        unmeasured={r.id: r.error or "" for r in env.items if r.status == "infra_error"},
    )


# ---- pre-engine files --------------------------------------------------------------------


def _machine(meta: dict[str, Any]) -> Machine:
    raw = meta.get("machine")
    if isinstance(raw, dict):
        try:
            return Machine.model_validate(raw)
        except ValidationError:
            pass
    return Machine(cpu="unknown", logical_cpus=0, ram_gb=0.0, os="unknown", python="unknown")


def cards_envelope(cards: list[Scorecard]) -> Envelope:
    """The envelope of pre-engine scorecards (one per repeat, in repeat order)."""
    first = cards[0]
    meta = first.meta or {}
    items: list[ItemRecord] = []
    asked: list[str] = []
    for r, card in enumerate(cards, start=1):
        asked += [item_id(t, r) for t in (card.task_ids or [t.id for t in card.tasks])]
        for t in card.tasks:
            down = t.error_kind == "unavailable"
            items.append(
                ItemRecord(
                    id=item_id(t.id, r),
                    status="infra_error" if down else "ok",
                    result=None if down else t.model_dump(mode="json", by_alias=True),
                    error=t.error if down else None,
                    commit=card.revision,
                    ran_at=str(meta.get("started") or ""),
                    seconds=t.wall_seconds,
                )
            )
    measured = {r.id for r in items if r.status == "ok"}
    header = Header(
        suite=SUITE,
        tier=first.suite,
        system=first.harness,
        model=first.model,
        judge=first.judge_model,
        settings={
            "harness": first.harness,
            "run_timeout_s": first.run_timeout_s,
            "full_access": first.full_access,
            "fenced": first.fenced,
            "repeats": len(cards),
        },
        definition_digest=LEGACY_DIGEST,
        items_total=len(asked),
        item_ids=asked,
        complete=all(i in measured for i in asked),
        infra_errors=sum(1 for r in items if r.status == "infra_error"),
        commits=[first.revision] if first.revision else [],
        run=RunInfo(
            package_version=str(meta.get("package_version") or "unknown"),
            commit=first.revision or meta.get("git_sha"),
            dirty=meta.get("git_dirty"),
            started=str(meta.get("started") or ""),
            duration_s=meta.get("duration_s"),
            machine=_machine(meta),
        ),
    )
    setup = {"checks": {t.id: t.check for c in cards for t in c.tasks}, "legacy": "scorecard.json"}
    env = Envelope(header=header, items=items, setup=setup)
    env.summary = summarise(env).model_dump(mode="json", by_alias=True)
    return env


def _card(data: Any, source: Path | str) -> Scorecard:
    if not isinstance(data, dict) or data.get("schema") != SCORECARD_SCHEMA:
        msg = f"{source}: not a tasks scorecard (field 'schema' must be {SCORECARD_SCHEMA})"
        raise InvalidInputError(msg)
    try:
        return Scorecard.model_validate(data)
    except ValidationError as err:
        msg = f"{source}: invalid scorecard: {err}"
        raise InvalidInputError(msg) from err


def describe(data: dict[str, Any]) -> str | None:
    """A pre-engine scorecard, named in an error when it is not the file asked for."""
    return "a tasks scorecard" if "tasks" in data and "harness" in data else None


def legacy_envelope(data: dict[str, Any]) -> dict[str, Any] | None:
    """suites.toml's converter: a pre-engine scorecard.json document as an envelope."""
    if "tasks" not in data or "harness" not in data or data.get("schema") != SCORECARD_SCHEMA:
        return None
    card = _card(data, "scorecard.json")
    return cards_envelope([card]).model_dump(mode="json", by_alias=True)


def load_run(path: Path) -> tuple[Envelope, bool]:
    """(envelope, is_pre_engine) of a run folder or its results.json: an engine run, a
    pre-engine scorecard.json, or a pre-engine `--repeats` folder of r1, r2, ..."""
    from gaia_eval.core.suite import legacy_converters

    path = Path(path)
    folder = path if path.is_dir() else path.parent
    if path.is_file() and path.name != "scorecard.json":
        return load_envelope(path, suite=SUITE, legacy=legacy_converters()), False
    if (folder / "results.json").is_file():
        return load_envelope(
            folder / "results.json", suite=SUITE, legacy=legacy_converters()
        ), False
    if (folder / "scorecard.json").is_file():
        card = _card(read_json(folder / "scorecard.json"), folder / "scorecard.json")
        return cards_envelope([card]), True
    reps = sorted(
        (d for d in folder.glob("r*") if (d / "scorecard.json").is_file() and d.name[1:].isdigit()),
        key=lambda d: int(d.name[1:]),
    )
    if not reps:
        msg = (
            f"{path}: no results.json here (nor a pre-engine scorecard.json, or r1, r2, ...); "
            "pass the folder of a `gaia-eval tasks run`"
        )
        raise InvalidInputError(msg)
    cards = [_card(read_json(d / "scorecard.json"), d / "scorecard.json") for d in reps]
    return cards_envelope(cards), True
