"""The replay: one scenario, on a simulated clock, through a memory system under test.

Each chat is a fresh agent (a new instance from the factory) on the scenario's one
database: the first message runs upkeep, every turn's explicit calls (remember, update,
forget) run as the agent made them, then the turn goes through `process_turn`. Each probe
is the first message of a new chat at its time: upkeep, then `shown` and `dump`, then (in
`full`) the model's answer. A failure of the system (a locked or corrupted database, an
exception) stops the scenario as an error of the run, naming where it happened; it is
never scored.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError
from gaia_eval.memory.checks import (
    abstains,
    describe_check,
    describe_row,
    found,
    lines_about,
    rank_of,
    relevant_rows,
    row_matches,
    rows_about,
)
from gaia_eval.memory.extractors import candidate_of
from gaia_eval.memory.models import (
    CheckResult,
    DbSize,
    OpTiming,
    ProbeResult,
    ScenarioResult,
    TimelineRow,
)
from gaia_eval.memory.scenario import Chat, Probe, Scenario, label_alternatives
from gaia_eval.systems.memory.protocol import Memory, MemoryTools, Row, Shown, ToolCall
from gaia_eval.systems.memory.text import approx_tokens

Answerer = Callable[[Shown, str], str]
"""`full`: (what was shown, the request) -> the model's answer."""
Judge = Callable[[str, str, list[str]], tuple[bool, str]]
"""`--judge`: (request, answer, facts it must use) -> (passed, reason)."""


class MemorySystemError(GaiaEvalError):
    """The memory system under test failed (database locked or corrupt, an exception).

    An error of the run, recorded as such, never a pass: exit 1 like any failed check."""

    exit_code = 1


class SimClock:
    """The injected clock: the replay moves it; systems read it."""

    def __init__(self, start: datetime) -> None:
        self._now = start

    def now(self) -> datetime:
        return self._now

    def set(self, at: datetime) -> None:
        if at < self._now:
            msg = f"the simulated clock cannot go back ({at} < {self._now})"
            raise ValueError(msg)
        self._now = at


@dataclass
class _Timer:
    samples: dict[str, list[float]] = field(default_factory=dict)

    def call(self, op: str, where: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kw)
        except (InfrastructureError, KeyboardInterrupt):
            raise
        except Exception as err:
            msg = f"{where}: {op} failed: {type(err).__name__}: {err}"
            raise MemorySystemError(msg) from err
        finally:
            self.samples.setdefault(op, []).append((time.perf_counter() - t0) * 1000.0)

    def summary(self) -> list[OpTiming]:
        out = []
        for op, xs in sorted(self.samples.items()):
            ordered = sorted(xs)
            p95 = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
            out.append(
                OpTiming(
                    op=op,
                    count=len(xs),
                    mean_ms=round(sum(xs) / len(xs), 3),
                    p95_ms=round(p95, 3),
                    max_ms=round(ordered[-1], 3),
                )
            )
        return out


def _db_bytes(db: Path) -> int:
    wal = db.with_name(db.name + "-wal")
    return sum(p.stat().st_size for p in (db, wal) if p.exists())


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="minutes")


@dataclass
class Replay:
    """Replays one scenario; `run()` returns its result."""

    scenario: Scenario
    factory: Callable[[], Memory]
    tools: MemoryTools
    db_path: Path
    repeat: int = 1
    answerer: Answerer | None = None
    judge: Judge | None = None
    timer: _Timer = field(default_factory=_Timer)
    labels: dict[str, str] = field(default_factory=dict)

    def _agent(self, clock: SimClock, where: str) -> Memory:
        mem = self.timer.call("open", where, self._open, clock)
        return mem  # type: ignore[no-any-return]

    def _open(self, clock: SimClock) -> Memory:
        mem = self.factory()
        mem.open(self.db_path, clock, self.tools)
        return mem

    def run(self) -> ScenarioResult:
        sc = self.scenario
        clock = SimClock(sc.start)
        events: list[tuple[datetime, int, Chat | Probe]] = [(c.at, 0, c) for c in sc.chats]
        events += [(p.at, 1, p) for p in sc.probes]
        events.sort(key=lambda e: (e[0], e[1]))
        sizes: list[DbSize] = []
        probes: list[ProbeResult] = []
        for _, _, event in events:
            if isinstance(event, Chat):
                self._chat(event, clock)
                sizes.append(DbSize(at=_iso(clock.now()), bytes=_db_bytes(self.db_path)))
            else:
                probes.append(self._probe(event, clock))
        final = self._final_rows(clock)
        extractor = self.tools.extractor
        return ScenarioResult(
            scenario=sc.id,
            repeat=self.repeat,
            persona=sc.persona,
            start=_iso(sc.start),
            end=_iso(sc.end),
            chats=len(sc.chats),
            turns=sum(len(c.turns) for c in sc.chats),
            probes=probes,
            timeline=final,
            db_bytes=sizes,
            timings=self.timer.summary(),
            extract_unmatched=int(getattr(extractor, "unmatched", 0)),
            extract_failures=int(getattr(extractor, "failures", 0)),
            model_tokens=dict(getattr(extractor, "tokens", {})),
        )

    def _chat(self, chat: Chat, clock: SimClock) -> None:
        where = f"{self.scenario.id}: chat {chat.id} at {_iso(chat.at)}"
        clock.set(chat.at)
        mem = self._agent(clock, where)
        try:
            for turn in chat.turns:
                tw = f"{where} turn {turn.index + 1}"
                clock.set(turn.at)
                if turn.index == 0:
                    self.timer.call("upkeep", tw, mem.upkeep, turn.at)
                for call in turn.calls:
                    self._call(mem, chat.id, call, turn.at, tw)
                record = tuple(
                    ToolCall(tool=r.tool, args=r.args, output=r.output, ok=r.ok)
                    for r in turn.tool_record
                )
                self.timer.call(
                    "process_turn", tw, mem.process_turn,
                    chat.id, turn.user, turn.assistant, record, turn.at,
                )  # fmt: skip
        finally:
            self.timer.call("close", where, mem.close)

    def _call(self, mem: Memory, chat_id: str, call: Any, at: datetime, where: str) -> None:
        if call.op == "remember":
            item_id = self.timer.call(
                "remember", where, mem.remember, candidate_of(call.item, at), chat_id, at
            )
            if call.label and item_id:
                self.labels[call.label] = str(item_id)
            return
        item_id = self.labels.get(call.target) if call.target else None
        if call.target and item_id is None:
            return  # the system refused that remember; there is nothing to address
        if call.op == "update":
            self.timer.call(
                "update", where, mem.update, call.value, at, item_id=item_id, query=call.query
            )
        else:
            self.timer.call("forget", where, mem.forget, at, item_id=item_id, query=call.query)

    def _probe(self, probe: Probe, clock: SimClock) -> ProbeResult:
        where = f"{self.scenario.id}: probe {probe.id} at {_iso(probe.at)}"
        clock.set(probe.at)
        mem = self._agent(clock, where)
        try:
            self.timer.call("upkeep", where, mem.upkeep, probe.at)
            shown: Shown = self.timer.call("shown", where, mem.shown, probe.spec.request, probe.at)
            rows: list[Row] = self.timer.call("dump", where, mem.dump)
        finally:
            self.timer.call("close", where, mem.close)
        answer = self.answerer(shown, probe.spec.request) if self.answerer else None
        return ProbeResult(
            id=probe.id,
            kind=probe.spec.kind,
            at=_iso(probe.at),
            request=probe.spec.request,
            shown=shown.text,
            shown_tokens=approx_tokens(shown.text),
            answer=answer,
            checks=self._checks(probe, shown, rows, answer),
        )

    def _checks(
        self, probe: Probe, shown: Shown, rows: list[Row], answer: str | None
    ) -> list[CheckResult]:
        spec, at = probe.spec, probe.at
        base = f"{self.scenario.id}/{probe.id}"
        out: list[CheckResult] = []

        def add(
            check: Any,
            n: int,
            label: str,
            passed: bool,
            *,
            detail: str,
            held: list[str],
            rank: int | None = None,
        ) -> None:
            out.append(
                CheckResult(
                    id=f"{base}/{check}/{n}", probe=probe.id, kind=spec.kind, check=check,
                    label=label, passed=passed, detail="" if passed else detail,
                    held=[] if passed else held, rank=rank,
                )
            )  # fmt: skip

        text = shown.text
        for n, label in enumerate(spec.must_show):
            name = " | ".join(label_alternatives(label))
            add(
                "must_show", n, name, found(label, text),
                detail=f"not shown: {name}", held=[], rank=rank_of(label, text),
            )  # fmt: skip
        for n, label in enumerate(spec.must_not_show):
            name = " | ".join(label_alternatives(label))
            add("must_not_show", n, name, not found(label, text), detail=f"shown: {name}", held=[])
        for n, check in enumerate(spec.store_must):
            hit = any(row_matches(check, r, at) for r in rows)
            held = relevant_rows(check, rows, at)
            add("store_must", n, describe_check(check), hit, detail="no row matches", held=held)
        for n, check in enumerate(spec.store_must_not):
            bad = [r for r in rows if row_matches(check, r, at)]
            held = relevant_rows(check, rows, at)
            detail = f"{len(bad)} row(s) match: {', '.join(r.id for r in bad)}"
            add("store_must_not", n, describe_check(check), not bad, detail=detail, held=held)
        for n, attribute in enumerate(spec.unknown):
            said = lines_about(attribute, text)
            detail = f"shown as if known: {'; '.join(said)[:200]}"
            add("abstain", n, attribute, not said, detail=detail, held=[])
            made = rows_about(attribute, rows, at)
            detail = f"{len(made)} current row(s) about it: {', '.join(r.id for r in made)}"
            held = [describe_row(r, at) for r in made][:12]
            add("abstain_store", n, attribute, not made, detail=detail, held=held)
        if spec.parts:
            names = [" | ".join(label_alternatives(p)) for p in spec.parts]
            lacking = [nm for p, nm in zip(spec.parts, names, strict=True) if not found(p, text)]
            detail = f"not shown together; missing: {', '.join(lacking)}"
            add("aggregate", 0, " + ".join(names), not lacking, detail=detail, held=[])
        if answer is not None:
            for n, attribute in enumerate(spec.unknown):
                ok = abstains(answer)
                detail = f"answer does not say it does not know: {answer[:160]!r}"
                add("abstain_answer", n, attribute, ok, detail=detail, held=[])
            for n, label in enumerate(spec.answer_must):
                name = " | ".join(label_alternatives(label))
                lacks = f"answer lacks: {name}"
                add("answer_must", n, name, found(label, answer), detail=lacks, held=[])
            if self.judge is not None and spec.answer_must:
                facts = [label_alternatives(a)[0] for a in spec.answer_must]
                ok, why = self.judge(spec.request, answer, facts)
                add("judge", 0, "; ".join(facts), ok, detail=why, held=[])
        return out

    def _final_rows(self, clock: SimClock) -> list[TimelineRow]:
        where = f"{self.scenario.id}: final dump"
        mem = self._agent(clock, where)
        try:
            rows: list[Row] = self.timer.call("dump", where, mem.dump)
        finally:
            self.timer.call("close", where, mem.close)
        out = []
        for r in rows:
            if r.state == "tombstone":
                continue
            start = r.valid_from or r.created
            end = r.forgotten_at or r.superseded_at
            out.append(
                TimelineRow(
                    id=r.id,
                    label=f"{r.attribute}: {r.value}" if r.value is not None else "(forgotten)",
                    kind=r.kind,
                    state=r.state,
                    start=_iso(start) if start else _iso(self.scenario.start),
                    end=_iso(end) if end else None,
                )
            )
        return out
