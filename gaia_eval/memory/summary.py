"""The memory benchmark's summary (pure): metrics overall, per scenario, per probe kind and
per check list; shown-context tokens; latency per operation; database growth; and, over
`--repeats`, each metric's spread."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable

from pydantic import Field

from gaia_eval.core.models import ResultModel
from gaia_eval.core.results import Envelope
from gaia_eval.memory.models import METRIC_OF, METRICS, CheckResult, ScenarioResult


class Rate(ResultModel):
    """Checks passed out of checks run."""

    passed: int
    """Checks that held."""
    total: int
    """Checks run."""
    value: float | None
    """passed / total (None when no check ran)."""


class Metrics(ResultModel):
    """The four metrics of a group of checks."""

    shown_recall: Rate
    """must_show checks: what the agent was shown contains what it should."""
    shown_clean: Rate
    """must_not_show checks: no stale value, forgotten fact or planted text was shown."""
    store_accuracy: Rate
    """store_must and store_must_not checks: the store holds the truth and nothing else."""
    answer_accuracy: Rate
    """answer_must (and judge) checks on the model's answer (`full` only)."""
    checks: Rate
    """All checks of the group."""


RANK_KS = (1, 3, 5, 10)


class Ranks(ResultModel):
    """Recall@k and MRR over must_show labels, by the rank of the first shown memory line
    holding each (the RAG and code-retrieval suites' shape; a label not shown counts 0)."""

    n: int
    """must_show labels scored."""
    recall_at_1: float | None = Field(
        default=None, validation_alias="recall@1", serialization_alias="recall@1"
    )
    """Share of labels in the first shown memory line."""
    recall_at_3: float | None = Field(
        default=None, validation_alias="recall@3", serialization_alias="recall@3"
    )
    """... within the first 3 lines."""
    recall_at_5: float | None = Field(
        default=None, validation_alias="recall@5", serialization_alias="recall@5"
    )
    """... within the first 5 lines."""
    recall_at_10: float | None = Field(
        default=None, validation_alias="recall@10", serialization_alias="recall@10"
    )
    """... within the first 10 lines."""
    mrr: float | None = None
    """Mean of 1/rank, labels not shown as 0 (None when no label was scored)."""


def ranks_of(checks: Iterable[CheckResult]) -> Ranks:
    ranks = [c.rank for c in checks if c.check == "must_show"]
    if not ranks:
        return Ranks(n=0)
    n = len(ranks)
    hits = {k: sum(1 for r in ranks if r is not None and r <= k) / n for k in RANK_KS}
    mrr = sum(1.0 / r for r in ranks if r is not None) / n
    return Ranks(
        n=n,
        recall_at_1=round(hits[1], 4),
        recall_at_3=round(hits[3], 4),
        recall_at_5=round(hits[5], 4),
        recall_at_10=round(hits[10], 4),
        mrr=round(mrr, 4),
    )


class Spread(ResultModel):
    """A metric over repeats."""

    mean: float | None
    """Mean over repeats."""
    stdev: float | None
    """Sample standard deviation (None for fewer than two repeats)."""
    min: float | None
    """Lowest repeat."""
    max: float | None
    """Highest repeat."""
    n: int
    """Repeats with a value."""


class Latency(ResultModel):
    """Latency of one memory operation over every scenario (wall clock; varies run to run)."""

    count: int
    """Calls."""
    mean_ms: float
    """Mean milliseconds per call."""
    max_ms: float
    """Slowest call."""


class Growth(ResultModel):
    """A scenario's database size over its chats."""

    first_bytes: int
    """After the first chat."""
    last_bytes: int
    """After the last chat."""
    chats: int
    """Chats measured."""


class Tokens(ResultModel):
    """Approximate tokens of what probes were shown."""

    mean: float | None
    """Mean per probe."""
    max: int
    """Largest shown context."""
    total: int
    """Sum over probes."""


class MemorySummary(ResultModel):
    """What the report and the terminal read."""

    overall: Metrics
    """Every check of every scenario measured."""
    by_scenario: dict[str, Metrics]
    """Per scenario (over its repeats)."""
    by_kind: dict[str, Metrics]
    """Per probe kind: update, forget, provenance, lesson, reminder, temporal, recall,
    abstention, aggregation."""
    ranks: Ranks = Field(default_factory=lambda: Ranks(n=0))
    """Recall@1/3/5/10 and MRR of the must_show labels in what was shown."""
    shown_tokens: Tokens
    """Size of the shown context."""
    latency: dict[str, Latency]
    """Per memory operation (not deterministic; never gated)."""
    db_growth: dict[str, Growth]
    """Per scenario (first repeat)."""
    repeats: dict[str, Spread] = Field(default_factory=dict)
    """`full --repeats N`: each overall metric's spread over the repeats."""
    extract_unmatched: int = 0
    """Turns the scripted extractor had no answer for (a system that changed the text)."""
    extract_failures: int = 0
    """`full`: model replies that did not parse."""


def _rate(checks: list[CheckResult]) -> Rate:
    passed = sum(c.passed for c in checks)
    return Rate(passed=passed, total=len(checks), value=passed / len(checks) if checks else None)


def metrics_of(checks: Iterable[CheckResult]) -> Metrics:
    by: dict[str, list[CheckResult]] = defaultdict(list)
    every = list(checks)
    for c in every:
        by[METRIC_OF[c.check]].append(c)
    return Metrics(**{m: _rate(by[m]) for m in METRICS}, checks=_rate(every))


def _spread(values: list[float]) -> Spread:
    if not values:
        return Spread(mean=None, stdev=None, min=None, max=None, n=0)
    sd = statistics.stdev(values) if len(values) > 1 else None
    return Spread(
        mean=round(statistics.fmean(values), 6),
        stdev=None if sd is None else round(sd, 6),
        min=min(values),
        max=max(values),
        n=len(values),
    )


def scenario_results(env: Envelope) -> list[ScenarioResult]:
    """The scenario results of an envelope's measured items."""
    return [ScenarioResult.model_validate(r.result) for r in env.items if r.result]


def summarise(env: Envelope) -> MemorySummary:
    results = scenario_results(env)
    every = [c for r in results for p in r.probes for c in p.checks]
    by_scenario: dict[str, list[CheckResult]] = defaultdict(list)
    by_kind: dict[str, list[CheckResult]] = defaultdict(list)
    for r in results:
        for p in r.probes:
            by_scenario[r.scenario] += p.checks
            by_kind[p.kind] += p.checks
    tokens = [p.shown_tokens for r in results for p in r.probes]
    lat: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
    for r in results:
        for t in r.timings:
            lat[t.op].append((t.count, t.mean_ms, t.max_ms))
    latency = {}
    for op, rows in sorted(lat.items()):
        count = sum(n for n, _, _ in rows)
        mean = sum(n * m for n, m, _ in rows) / count if count else 0.0
        latency[op] = Latency(
            count=count, mean_ms=round(mean, 3), max_ms=round(max(x for _, _, x in rows), 3)
        )
    growth = {}
    for r in results:
        if r.repeat == 1 and r.db_bytes:
            growth[r.scenario] = Growth(
                first_bytes=r.db_bytes[0].bytes, last_bytes=r.db_bytes[-1].bytes, chats=r.chats
            )
    repeats: dict[str, Spread] = {}
    if any(r.repeat > 1 for r in results):
        per_repeat: dict[int, list[CheckResult]] = defaultdict(list)
        for r in results:
            per_repeat[r.repeat] += [c for p in r.probes for c in p.checks]
        for name in METRICS:
            values = [
                v
                for checks in per_repeat.values()
                if (v := getattr(metrics_of(checks), name).value) is not None
            ]
            repeats[name] = _spread(values)
    return MemorySummary(
        overall=metrics_of(every),
        by_scenario={k: metrics_of(v) for k, v in sorted(by_scenario.items())},
        by_kind={k: metrics_of(v) for k, v in sorted(by_kind.items())},
        ranks=ranks_of(every),
        shown_tokens=Tokens(
            mean=round(sum(tokens) / len(tokens), 2) if tokens else None,
            max=max(tokens, default=0),
            total=sum(tokens),
        ),
        latency=latency,
        db_growth=growth,
        repeats=repeats,
        extract_unmatched=sum(r.extract_unmatched for r in results),
        extract_failures=sum(r.extract_failures for r in results),
    )


def pct(rate: Rate) -> str:
    if rate.value is None:
        return "–"
    return f"{rate.value * 100:.1f}% ({rate.passed}/{rate.total})"


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)
