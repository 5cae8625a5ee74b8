"""Turn one level's raw records into its result (headline numbers + raw rows). Pure."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gaia_eval.core.stats import percentile_linear
from gaia_eval.throughput.load import LevelPlan, LevelRun
from gaia_eval.throughput.metrics import Derived, Tokenizer, derive, distribution
from gaia_eval.throughput.models import (
    Dist,
    Goodput,
    InFlight,
    Lag,
    LevelResult,
    LevelStats,
    RequestRow,
)
from gaia_eval.throughput.record import StreamRecord
from gaia_eval.throughput.triage import Step, score
from gaia_eval.throughput.workloads import Workload

CPU_SHARE_LIMIT = 0.8
LAG_P99_LIMIT_MS = 10.0
_KIND_LETTER = {"text": "t", "reasoning": "r", "tool": "c"}


def level_id(plan: LevelPlan, repeat: int, repeats: int) -> str:
    base = f"c{plan.concurrency}" if plan.concurrency is not None else f"r{plan.rate:g}"
    return f"{base}#{repeat}" if repeats > 1 else base


def _ms(ns: int) -> float:
    return round(ns / 1e6, 4)


def _row(
    level: str, item: str, rec: StreamRecord, d: Derived | None, *, t0: int, answer: bool
) -> RequestRow:
    sent = rec.t_sent_ns or rec.t_start_ns
    return RequestRow(
        level=level,
        item=item,
        scheduled_ms=_ms(rec.t_scheduled_ns - t0),
        start_ms=_ms(rec.t_start_ns - t0),
        sent_ms=_ms(sent - t0),
        ttft_ms=round(d.ttft_ms, 4) if d and d.ttft_ms is not None else None,
        first_answer_ms=(
            round(d.first_answer_ms, 4) if d and d.first_answer_ms is not None else None
        ),
        e2e_ms=round(d.e2e_ms, 4) if d else None,
        tpot_ms=round(d.tpot_ms, 4) if d and d.tpot_ms is not None else None,
        output_tokens=d.output_tokens if d else None,
        input_tokens=rec.usage_input_tokens,
        token_source=d.token_source if d else None,
        chunk_offsets_ms=[_ms(t - sent) for t in rec.chunk_t_ns],
        chunk_tokens=d.chunk_tokens if d else [],
        chunk_token_source=d.chunk_token_source if d else None,
        chunk_kinds="".join(_KIND_LETTER[k] for k in rec.chunk_kind),
        end_ms=_ms(rec.t_end_ns - sent) if rec.t_end_ns else None,
        in_flight=rec.in_flight,
        connection_reused=rec.connection_reused,
        status=rec.status,
        server_request_id=rec.server_request_id,
        finish_reason=rec.finish_reason,
        error_kind=rec.error_kind,
        error=rec.error,
        answer=rec.answer_text() if answer and rec.error_kind is None else None,
    )


def build_level(
    *,
    level: str,
    repeat: int,
    plan: LevelPlan,
    run: LevelRun,
    workload: Workload,
    tokenizer: Tokenizer | None = None,
    slo: dict[str, float] | None = None,
) -> LevelResult:
    """The level's result from its raw records."""
    open_loop = plan.rate is not None
    t0 = run.t_begin_ns
    rows: list[RequestRow] = []
    ok: list[Derived] = []
    steps: list[Step] = []
    kinds: Counter[str] = Counter()
    lags = [(r.t_start_ns - r.t_scheduled_ns) / 1e6 for r in run.records]
    for rec, idx in zip(run.records, run.item_index, strict=True):
        item = workload.items[idx]
        d = None
        if rec.error_kind is None:
            d = derive(rec, open_loop=open_loop, tokenizer=tokenizer)
            ok.append(d)
        else:
            kinds[rec.error_kind] += 1
        rows.append(_row(level, item.id, rec, d, t0=t0, answer=workload.triage))
        if workload.triage and item.labels is not None:
            steps.append(
                Step(
                    labels=item.labels,
                    answer=rec.answer_text() if d is not None else None,
                    ttft_ms=d.ttft_ms if d else None,
                    tpot_ms=d.tpot_ms if d else None,
                    input_tokens=rec.usage_input_tokens,
                    output_tokens=d.output_tokens if d else None,
                )
            )
    wall_s = max(0.0, (run.t_finish_ns - t0) / 1e9)
    out_tokens = sum(d.output_tokens for d in ok)
    inputs = [r.usage_input_tokens for r in run.records if r.error_kind is None]
    sources = {d.token_source for d in ok}
    chunk_sources = {d.chunk_token_source for d in ok}
    tpots = [d.tpot_ms for d in ok if d.tpot_ms is not None and d.tpot_ms > 0]
    cpu_share = run.client_cpu_s / wall_s if wall_s else 0.0
    lag = Lag(
        p50=round(percentile_linear(lags, 50), 4) if lags else None,
        p99=round(percentile_linear(lags, 99), 4) if lags else None,
    )
    notes = []
    if cpu_share >= CPU_SHARE_LIMIT:
        notes.append(
            f"the client's event loop used {cpu_share:.0%} of a core: it may have limited "
            "the result"
        )
    if lag.p99 is not None and lag.p99 >= LAG_P99_LIMIT_MS:
        notes.append(
            f"client scheduling lag p99 {lag.p99:.1f} ms >= {LAG_P99_LIMIT_MS:g} ms: sends "
            "left late"
        )
    n = len(run.records)
    stats = LevelStats(
        level=level,
        repeat=repeat,
        concurrency=plan.concurrency,
        rate=plan.rate,
        arrivals=plan.arrivals if open_loop else None,
        requests=n,
        completed=len(ok),
        errors=n - len(ok),
        error_rate=round((n - len(ok)) / n, 4) if n else 0.0,
        errors_by_kind=dict(sorted(kinds.items())),
        stopped=run.stopped,
        ttft_ms=_dist([d.ttft_ms for d in ok if d.ttft_ms is not None]),
        first_answer_ms=_dist([d.first_answer_ms for d in ok if d.first_answer_ms is not None]),
        tpot_ms=_dist([d.tpot_ms for d in ok if d.tpot_ms is not None]),
        itl_ms=_dist([v for d in ok for v in d.itl_ms]),
        icl_ms=_dist([v for d in ok for v in d.icl_ms]),
        chunk_token_source=(
            chunk_sources.pop() if len(chunk_sources) == 1 else ("mixed" if chunk_sources else None)
        ),
        e2e_ms=_dist([d.e2e_ms for d in ok]),
        output_tokens=out_tokens,
        input_tokens=sum(i for i in inputs if i is not None) if any(inputs) else None,
        output_tokens_per_s=round(out_tokens / wall_s, 3) if wall_s and ok else None,
        requests_per_s=round(len(ok) / wall_s, 4) if wall_s and ok else None,
        decode_tps_mean=round(sum(1000 / t for t in tpots) / len(tpots), 3) if tpots else None,
        token_source=sources.pop() if len(sources) == 1 else ("mixed" if sources else "none"),
        client_lag_ms=lag,
        in_flight=InFlight(
            mean=round(sum(r.in_flight for r in run.records) / n, 3) if n else None,
            max=max((r.in_flight for r in run.records), default=None),
        ),
        duration_s=round(wall_s, 4),
        client_cpu_s=round(run.client_cpu_s, 4),
        client_cpu_share=round(cpu_share, 4),
        client_limited=bool(notes),
        client_notes=notes,
        triage=score(steps, wall_s) if workload.triage else None,
        goodput=goodput(slo, ok, n, wall_s) if slo else None,
    )
    return LevelResult(stats=stats, requests=rows)


def meets(d: Derived, slo: dict[str, float]) -> bool:
    """A request meets every objective it can be measured on (a one-token answer has no
    TPOT and so meets a TPOT objective; no first token misses a TTFT one)."""
    values = {"ttft_ms": d.ttft_ms, "tpot_ms": d.tpot_ms, "e2e_ms": d.e2e_ms}
    for key, bound in slo.items():
        value = values[key]
        if value is None and key == "tpot_ms":
            continue
        if value is None or value > bound:
            return False
    return True


def goodput(slo: dict[str, float], ok: list[Derived], sent: int, wall_s: float) -> Goodput:
    """Of `sent` requests, those among the completed `ok` that met `slo` (vLLM's goodput)."""
    good = [d for d in ok if meets(d, slo)]
    tokens = sum(d.output_tokens for d in good)
    return Goodput(
        slo=dict(slo),
        met=len(good),
        share=round(len(good) / sent, 4) if sent else 0.0,
        output_tokens_per_s=round(tokens / wall_s, 3) if wall_s and good else None,
    )


def _dist(values: Sequence[float]) -> Dist:
    return Dist(**distribution(values))
