"""Report sections of `gaia-eval benchmark` (the engine writes the files). Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gaia_eval.core import charts
from gaia_eval.core.report import Block, Bullets, Chart, Para, Report, Section, Table, fmt
from gaia_eval.core.results import Envelope
from gaia_eval.throughput.metrics import MEASURED_CHUNKS
from gaia_eval.throughput.models import BenchmarkSummary, LevelResult, LevelStats
from gaia_eval.throughput.summary import level_results, summarise
from gaia_eval.throughput.triage import STRETCH_TPS, THROUGHPUT_BAR_TPS

_MAX_HISTOGRAMS = 6


def _load(s: LevelStats) -> str:
    if s.concurrency is not None:
        return f"c={s.concurrency}"
    return f"{s.rate:g}/s {s.arrivals}"


def _x(s: LevelStats) -> float:
    return float(s.concurrency if s.concurrency is not None else s.rate or 0.0)


def headline_table(levels: list[LevelStats]) -> Table:
    rows = [
        [
            f"`{s.level}`",
            _load(s),
            str(s.requests),
            f"{s.errors} ({s.error_rate:.0%})",
            f"{fmt(s.ttft_ms.p50, 1)} / {fmt(s.ttft_ms.p99, 1)}",
            fmt(s.tpot_ms.p50, 2),
            f"{fmt(s.itl_ms.p50, 2)} / {fmt(s.itl_ms.p99, 2)}",
            f"{fmt(s.icl_ms.p50, 2)} / {fmt(s.icl_ms.p99, 2)}" if s.icl_ms else "–",
            f"{fmt(s.e2e_ms.p50, 1)} / {fmt(s.e2e_ms.p99, 1)}",
            fmt(s.output_tokens_per_s, 1),
            fmt(s.requests_per_s, 2),
            fmt(s.client_lag_ms.p99, 2),
            _sources(s),
            "**yes**" if s.client_limited else "no",
        ]
        for s in levels
    ]
    return Table(
        [
            "level",
            "load",
            "requests",
            "errors",
            "TTFT p50 / p99 ms",
            "TPOT p50 ms",
            "ITL p50 / p99 ms",
            "ICL p50 / p99 ms",
            "E2E p50 / p99 ms",
            "output tok/s",
            "req/s",
            "client lag p99 ms",
            "tokens from",
            "client-limited",
        ],
        rows,
    )


def percentile_table(levels: list[LevelStats]) -> Table:
    """Every latency's p50 / p90 / p95 / p99 / max per level: a tail stall (one 4.76 s
    decode gap) shows in the max even when the p99 hides it."""
    rows = []
    for s in levels:
        for name, d in (
            ("TTFT", s.ttft_ms),
            ("TPOT", s.tpot_ms),
            ("ITL", s.itl_ms),
            ("ICL", s.icl_ms),
            ("E2E", s.e2e_ms),
        ):
            if d is None or d.p50 is None:
                continue
            cells = [d.p50, d.p90, d.p95, d.p99, d.max]
            rows.append([f"`{s.level}`", name, *(fmt(v, 1) for v in cells)])
    return Table(
        ["level", "latency", "p50 ms", "p90 ms", "p95 ms", "p99 ms", "max ms"],
        rows,
        caption="Latency percentiles (p95 and max are blank in results written before 2026-12)",
    )


def _sources(s: LevelStats) -> str:
    """Where the output tokens came from, and the tokens per chunk when they differ (a
    guessed split has no ITL: ICL stands for it)."""
    per_chunk = s.chunk_token_source
    if per_chunk is None or per_chunk == s.token_source:
        return s.token_source
    return f"{s.token_source}; per chunk: {per_chunk}"


def _itl_values(result: LevelResult) -> list[float]:
    out: list[float] = []
    for row in result.requests:
        if row.error_kind is not None:
            continue
        if row.chunk_token_source is not None and row.chunk_token_source not in MEASURED_CHUNKS:
            continue  # guessed tokens per chunk: no per-token gaps to show
        carry = 0.0
        for i in range(1, len(row.chunk_offsets_ms)):
            carry += row.chunk_offsets_ms[i] - row.chunk_offsets_ms[i - 1]
            k = row.chunk_tokens[i] if i < len(row.chunk_tokens) else 1
            if k > 0:
                out.extend([carry / k] * k)
                carry = 0.0
    return out


def _load_charts(levels: list[LevelStats]) -> list[Block]:
    closed = [s for s in levels if s.concurrency is not None]
    open_ = [s for s in levels if s.rate is not None]
    blocks: list[Block] = []
    for group, xlabel in ((closed, "concurrency"), (open_, "request rate (req/s)")):
        if not group:
            continue
        series: dict[str, list[tuple[float, float]]] = {}
        picks: tuple[tuple[str, Callable[[LevelStats], float | None]], ...] = (
            ("TTFT p50", lambda s: s.ttft_ms.p50),
            ("TTFT p99", lambda s: s.ttft_ms.p99),
            ("ITL p50 x10", lambda s: None if s.itl_ms.p50 is None else 10 * s.itl_ms.p50),
            ("E2E p50", lambda s: s.e2e_ms.p50),
        )
        for name, pick in picks:
            pts = [(_x(s), v) for s in group if (v := pick(s)) is not None]
            if pts:
                series[name] = pts
        if series:
            blocks.append(
                Chart(
                    charts.lines(series, x_label=xlabel, y_label="ms"),
                    f"Latency against load ({xlabel}): TTFT p50/p99, ITL p50 (x10), E2E p50",
                )
            )
        tput = [(_x(s), s.output_tokens_per_s) for s in group if s.output_tokens_per_s is not None]
        if tput:
            blocks.append(
                Chart(
                    charts.lines({"output tok/s": tput}, x_label=xlabel, y_label="tokens/s"),
                    f"Aggregate output tokens/s against load ({xlabel})",
                )
            )
    return blocks


def _distributions(results: list[LevelResult]) -> list[Block]:
    blocks: list[Block] = []
    for res in results[:_MAX_HISTOGRAMS]:
        ttfts = [r.ttft_ms for r in res.requests if r.ttft_ms is not None]
        if ttfts:
            blocks.append(
                Chart(
                    charts.histogram(ttfts, unit=" ms"),
                    f"TTFT distribution, level {res.stats.level} ({len(ttfts)} requests)",
                )
            )
        itl = _itl_values(res)
        if itl:
            blocks.append(
                Chart(
                    charts.histogram(itl, unit=" ms"),
                    f"ITL distribution, level {res.stats.level} ({len(itl)} token gaps)",
                )
            )
    return blocks


def _triage(levels: list[LevelStats]) -> Section | None:
    rows = []
    for s in levels:
        t = s.triage
        if t is None:
            continue
        rows.append(
            [
                f"`{s.level}`",
                t.status,
                f"{t.classified}/{t.emails}",
                f"{t.parse_errors} / {t.skipped} / {t.request_errors}",
                fmt(t.within_one_bucket_accuracy),
                fmt(t.urgent_vs_not_accuracy),
                fmt(t.urgent_recall),
                fmt(t.personal_recall),
                fmt(t.category_accuracy),
                fmt(t.tokens_per_triage, 1),
                fmt(t.avg_ttft_ms, 1),
                fmt(t.avg_tokens_per_second, 1),
                "yes" if t.meets_throughput_bar else "no",
                fmt(t.pipeline_s, 1),
            ]
        )
    if not rows:
        return None
    return Section(
        "Email triage",
        [
            Table(
                [
                    "level",
                    "status",
                    "classified",
                    "parse errors / not JSON / failed",
                    "within one bucket",
                    "urgent vs not",
                    "urgent recall",
                    "personal recall",
                    "category",
                    "tokens/triage",
                    "avg TTFT ms",
                    "avg tok/s",
                    f">= {THROUGHPUT_BAR_TPS:g} tok/s",
                    "pipeline s",
                ],
                rows,
            ),
            Para(
                "Accuracies are over the emails the model classified (an answer that looks like "
                "JSON but does not parse is a parse error; one that is not JSON is skipped). "
                f"The throughput bar is {THROUGHPUT_BAR_TPS:g} tokens/s; the stretch target is "
                f"{STRETCH_TPS:g}. tokens/triage = (prompt + completion tokens) / classified."
            ),
        ],
    )


def _variance(summary: BenchmarkSummary) -> Section | None:
    if not summary.variance:
        return None
    rows = [
        [
            f"`{level}`",
            metric,
            str(v.n),
            f"{v.mean:.4g}",
            f"{v.stdev:.4g}",
            f"{v.min:.4g}",
            f"{v.max:.4g}",
            f"{v.cv_pct:.2f}",
            f"{v.ci95_half_width:.4g}",
        ]
        for level, metrics in summary.variance.items()
        for metric, v in metrics.items()
    ]
    return Section(
        "Variance over repeats",
        [
            Table(
                ["level", "metric", "n", "mean", "stdev", "min", "max", "cv %", "95% CI ±"],
                rows,
            ),
            Para("stdev is the sample stdev; the CI half-width is 1.96 × stdev / √n."),
        ],
    )


def _server(env: Envelope, levels: list[LevelStats]) -> Section:
    server: dict[str, Any] = dict(env.setup.get("server") or {})
    lines = [
        f"endpoint `{server.get('endpoint', '?')}` ({server.get('api', '?')} streaming), "
        f"model `{server.get('model', '?')}`",
        f"context size: {server.get('ctx_size') or 'not reported'}",
        f"warmup: {server.get('warmup', {}).get('requests', 0)} requests (not counted), "
        f"{server.get('warmup', {}).get('errors', 0)} failed",
    ]
    local = server.get("local")
    if isinstance(local, dict) and local:
        lines.append(
            "embedded server: "
            + ", ".join(
                f"{k} {local[k]}"
                for k in ("model", "server_version", "threads", "parallel_slots", "ctx_per_slot")
                if k in local
            )
        )
        # Its plumbing note leads the report (the engine's Model section), not here.
    blocks: list[Block] = [Bullets(lines)]
    names = sorted({k for s in levels for k in s.server_metrics})
    if names:
        rows = [
            [f"`{s.level}`"] + [f"{s.server_metrics.get(n, 0):g}" for n in names] for s in levels
        ]
        blocks.append(
            Table(
                ["level", *names],
                rows,
                caption="/metrics over each level (counters: increase; gauges: value after)",
            )
        )
    else:
        blocks.append(Para("The server has no /metrics endpoint (or it is switched off)."))
    mem = [s for s in levels if s.peak_memory_gb is not None]
    if mem:
        blocks.append(
            Para(
                "server peak memory: "
                + ", ".join(f"{s.level} {s.peak_memory_gb:.3f} GB" for s in mem)
            )
        )
    return Section("Server", blocks)


def sections(env: Envelope, summary: BenchmarkSummary) -> list[Section]:
    results = level_results(env)
    levels = [r.stats for r in results]
    out: list[Section] = []
    if levels:
        blocks: list[Block] = [headline_table(levels)]
        errs = [s for s in levels if s.errors_by_kind]
        if errs:
            blocks.append(
                Table(
                    ["level", "errors by kind"],
                    [
                        [f"`{s.level}`", ", ".join(f"{k} {v}" for k, v in s.errors_by_kind.items())]
                        for s in errs
                    ],
                    caption="Failed requests (never counted as latencies)",
                )
            )
        blocks.append(percentile_table(levels))
        good = [(s, s.goodput) for s in levels if s.goodput is not None]
        if good:
            rows = [
                [
                    f"`{s.level}`",
                    f"{g.met}/{s.requests}",
                    f"{g.share:.0%}",
                    fmt(g.output_tokens_per_s, 1),
                    fmt(s.output_tokens_per_s, 1),
                ]
                for s, g in good
            ]
            slo_text = ", ".join(f"{k} <= {v:g}" for k, v in good[0][1].slo.items())
            blocks.append(
                Table(
                    ["level", "met the SLO", "share", "goodput tok/s", "all tok/s"],
                    rows,
                    caption=f"Goodput: requests that met every objective ({slo_text})",
                )
            )
        cached = [f"`{s.level}`: {n}" for s in levels for n in s.server_notes]
        if cached:
            blocks.append(Bullets(cached))
        limited = [f"`{s.level}`: {n}" for s in levels for n in s.client_notes]
        if limited:
            blocks.append(Bullets(limited))
        stopped = [s.level for s in levels if s.stopped]
        if stopped:
            blocks.append(
                Para(f"Sending stopped early (error rate over the limit) in: {', '.join(stopped)}")
            )
        out.append(Section("Levels", blocks))
        charts_blocks = _load_charts(levels)
        if charts_blocks:
            out.append(Section("Latency against load", charts_blocks))
        dist = _distributions(results)
        if dist:
            out.append(Section("Distributions", dist))
    for sec in (_triage(levels), _variance(summary)):
        if sec is not None:
            out.append(sec)
    out.append(_server(env, levels))
    client = [
        f"`{s.level}`: client CPU {s.client_cpu_s:.3f} s ({s.client_cpu_share:.1%} of the wall "
        f"time), lag p50 {fmt(s.client_lag_ms.p50, 3)} ms, p99 {fmt(s.client_lag_ms.p99, 3)} ms, "
        f"in flight mean {fmt(s.in_flight.mean, 2)}, max {s.in_flight.max}"
        for s in levels
    ]
    if client:
        out.append(Section("Client overhead", [Bullets(client)]))
    out.append(
        Section("Formulas", [Bullets([f"**{k}**: {v}" for k, v in summary.formulas.items()])])
    )
    return out


def headline(env: Envelope) -> list[tuple[str, str]]:
    out = []
    for r in level_results(env):
        s = r.stats
        ttft = "–" if s.ttft_ms.p50 is None else f"{s.ttft_ms.p50:.1f}"
        itl = "–" if s.itl_ms.p50 is None else f"{s.itl_ms.p50:.2f}"
        tps = "–" if s.output_tokens_per_s is None else f"{s.output_tokens_per_s:.1f}"
        text = (
            f"TTFT p50 {ttft} ms, ITL p50 {itl} ms, {tps} output tok/s, "
            f"{s.errors}/{s.requests} errors"
        )
        if s.triage is not None:
            acc = s.triage.within_one_bucket_accuracy
            text += f", triage within-one {'–' if acc is None else f'{acc:.2f}'}"
        out.append((s.level, text))
    return out


REPORT = Report(headline=headline, sections=lambda env: sections(env, summarise(env)))
