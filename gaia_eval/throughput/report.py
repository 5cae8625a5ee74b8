"""Report sections of `gaia-eval benchmark` (the engine writes the files). Pure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gaia_eval.core import charts
from gaia_eval.core.report import Block, Bullets, Chart, Para, Report, Section, Table, fmt
from gaia_eval.core.results import Envelope
from gaia_eval.throughput import sweep
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
    """The latency and throughput of each level, at most ten columns (the page is 1,100 px
    wide: fourteen did not fit); the client's side is `client_table`."""
    rows = [
        [
            f"`{s.level}`",
            _load(s),
            str(s.requests),
            f"{s.errors} ({s.error_rate:.0%})",
            f"{fmt(s.ttft_ms.p50, 1)} / {fmt(s.ttft_ms.p99, 1)}",
            fmt(s.tpot_ms.p50, 2),
            f"{fmt(s.itl_ms.p50, 2)} / {fmt(s.itl_ms.p99, 2)}",
            f"{fmt(s.e2e_ms.p50, 1)} / {fmt(s.e2e_ms.p99, 1)}",
            fmt(s.output_tokens_per_s, 1),
            fmt(s.requests_per_s, 2),
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
            "E2E p50 / p99 ms",
            "output tok/s",
            "req/s",
        ],
        rows,
    )


def client_table(levels: list[LevelStats]) -> Table:
    """Per level: inter-chunk latency, the client's lag, where tokens were counted, and
    whether the client may have limited the result."""
    rows = [
        [
            f"`{s.level}`",
            f"{fmt(s.icl_ms.p50, 2)} / {fmt(s.icl_ms.p99, 2)}" if s.icl_ms else "–",
            fmt(s.client_lag_ms.p99, 2),
            _sources(s),
            "**yes**" if s.client_limited else "no",
        ]
        for s in levels
    ]
    return Table(
        ["level", "ICL p50 / p99 ms", "client lag p99 ms", "tokens from", "client-limited"],
        rows,
    )


FORMULA_NOTE = (
    "TTFT and E2E run from the send (closed loop) or the scheduled time (open loop). TPOT = "
    "(E2E − TTFT) / (output tokens − 1) per request, as vLLM's; GuideLLM's time per output "
    "token includes the TTFT (E2E / tokens: the E2E/token row). ITL is each chunk's gap "
    "divided by its tokens, pooled over every token of the level; vLLM's ITL pools the gaps "
    "per chunk (our ICL), and GuideLLM's ITL percentiles are over per-request means, which "
    "is our TPOT."
)


def percentile_table(levels: list[LevelStats]) -> Table:
    """Every latency's p50 / p90 / p95 / p99 / max per level: a tail stall (one 4.76 s
    decode gap) shows in the max even when the p99 hides it."""
    rows = []
    for s in levels:
        reasoning = s.first_answer_ms.p50 != s.ttft_ms.p50
        t = s.server_timing
        for name, d in (
            ("TTFT", s.ttft_ms),
            ("first answer", s.first_answer_ms if reasoning else None),
            ("TPOT", s.tpot_ms),
            ("E2E/token (GuideLLM TPOT)", s.e2e_per_token_ms),
            ("ITL", s.itl_ms),
            ("ICL", s.icl_ms),
            ("E2E", s.e2e_ms),
            ("server prefill", t.prefill_ms if t else None),
            ("TTFT − server prefill", t.ttft_minus_prefill_ms if t else None),
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


def server_timing_table(levels: list[LevelStats]) -> Table | None:
    """The server's own timings beside the client's, per level: TTFT - prefill is time the
    request waited (a slot, the network, the client), TPOT - decode the stream's cost."""
    timed = [(s, s.server_timing) for s in levels if s.server_timing is not None]
    if not timed:
        return None
    rows = [
        [
            f"`{s.level}`",
            f"{t.requests}/{s.completed}",
            f"{fmt(s.ttft_ms.p50, 1)} / {fmt(t.prefill_ms.p50, 1)} / "
            f"{fmt(t.ttft_minus_prefill_ms.p50, 1)}",
            fmt(t.ttft_minus_prefill_ms.p99, 1),
            f"{fmt(s.tpot_ms.p50, 2)} / {fmt(t.decode_ms_per_token.p50, 2)} / "
            f"{fmt(t.tpot_minus_decode_ms.p50, 2)}",
            f"{t.cached_prompt_tokens} of {t.cached_prompt_tokens + t.prompt_tokens}",
        ]
        for s, t in timed
    ]
    return Table(
        [
            "level",
            "timed",
            "TTFT / server prefill / difference p50 ms",
            "difference p99 ms",
            "TPOT / server decode / difference p50 ms",
            "prompt tokens cached",
        ],
        rows,
        caption="The server's own timings (llama.cpp `timings`) beside the client's: TTFT - "
        "prompt_ms is queueing for a slot, transport and client lag; TPOT - "
        "predicted_per_token_ms the stream's own cost",
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


LONG_TAIL = 10.0
"""A distribution whose max is this many times its median gets log-spaced bins."""


def long_tail(values: list[float]) -> bool:
    """True when a linear histogram would squash the bulk into its first bin."""
    pos = sorted(v for v in values if v > 0)
    if len(pos) < 2:
        return False
    return pos[-1] >= LONG_TAIL * pos[len(pos) // 2]


def _histogram(values: list[float], title: str, noun: str) -> Chart:
    if long_tail(values):
        return Chart(
            charts.histogram(values, bins=24, unit=" ms", log_x=True),
            f"{title} ({len(values)} {noun}; log scale: the max is >= {LONG_TAIL:g}x the median)",
        )
    return Chart(charts.histogram(values, unit=" ms"), f"{title} ({len(values)} {noun})")


def _distributions(results: list[LevelResult]) -> list[Block]:
    blocks: list[Block] = []
    for res in results[:_MAX_HISTOGRAMS]:
        ttfts = [r.ttft_ms for r in res.requests if r.ttft_ms is not None]
        if ttfts:
            blocks.append(
                _histogram(ttfts, f"TTFT distribution, level {res.stats.level}", "requests")
            )
        itl = _itl_values(res)
        if itl:
            blocks.append(
                _histogram(itl, f"ITL distribution, level {res.stats.level}", "token gaps")
            )
    return blocks


def _sweep(summary: BenchmarkSummary, levels: list[LevelStats]) -> Section | None:
    found = summary.sweep
    if found is None:
        return None
    steps = [s for s in levels if s.level.startswith(sweep.PREFIX)]
    rows = [
        [
            f"`{s.level}`",
            _load(s),
            fmt(s.offered_rps, 2),
            fmt(s.completion_rps, 2),
            fmt(s.e2e_growth, 2),
            "**yes**" if s.sustained else ("no" if s.sustained is not None else "–"),
            f"{fmt(s.ttft_ms.p50, 1)} / {fmt(s.ttft_ms.p99, 1)}",
            f"{fmt(s.e2e_ms.p50, 1)} / {fmt(s.e2e_ms.p99, 1)}",
            fmt(s.output_tokens_per_s, 1),
        ]
        for s in steps
    ]
    held = found.sustained_rps
    verdict = (
        f"Highest rate sustained: **{held:g} requests/s**"
        if held is not None
        else "No offered rate was sustained"
    )
    if found.unsettled:
        verdict += (
            f" (unsettled: {', '.join(found.unsettled)} sustained a higher rate after a step "
            "that did not; more requests per level would settle it)"
        )
    blocks: list[Block] = [
        Para(
            f"{verdict}. Bounds: {fmt(found.sync_rps, 2)} requests/s one at a time, "
            f"{fmt(found.max_rps, 2)} with {found.max_concurrency or '–'} in flight; rates "
            f"offered: {', '.join(f'{r:g}' for r in found.rates) or '–'}."
        ),
        Table(
            [
                "level",
                "load",
                "arrivals/s",
                "completions/s",
                "E2E growth",
                "sustained",
                "TTFT p50 / p99 ms",
                "E2E p50 / p99 ms",
                "output tok/s",
            ],
            rows,
            caption="A level sustains its rate when completions keep up with arrivals "
            "(>= 90%), E2E does not keep growing (later half's median <= 1.5x the earlier "
            "half's) and <= 5% of its requests fail",
        ),
    ]
    curve: dict[str, list[tuple[float, float]]] = {}
    picks: tuple[tuple[str, Callable[[LevelStats], float | None]], ...] = (
        ("TTFT p50", lambda s: s.ttft_ms.p50),
        ("TTFT p99", lambda s: s.ttft_ms.p99),
        ("E2E p50", lambda s: s.e2e_ms.p50),
    )
    for name, pick in picks:
        pts = [
            (s.requests_per_s, v)
            for s in steps
            if s.requests_per_s is not None and (v := pick(s)) is not None
        ]
        if pts:
            curve[name] = pts
    if curve:
        blocks.append(
            Chart(
                charts.lines(curve, x_label="achieved requests/s", y_label="ms"),
                "Latency against achieved throughput over the sweep (each point one level)",
            )
        )
    return Section("Rate sweep", blocks)


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
    props = server.get("props")
    if isinstance(props, dict) and props:
        lines.append(
            "the server publishes (/props): "
            + ", ".join(f"{k} `{v}`" for k, v in sorted(props.items()))
        )
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
            [f"`{s.level}`"]
            + [f"{s.server_metrics[n]:g}" if n in s.server_metrics else "–" for n in names]
            for s in levels
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
    if not levels:
        out.append(Section("Levels", [Para("Nothing measured: no level finished.")]))
    if levels:
        blocks: list[Block] = [headline_table(levels), client_table(levels), Para(FORMULA_NOTE)]
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
        timed = server_timing_table(levels)
        if timed is not None:
            blocks.append(timed)
        turns = [(s, t) for s in levels for t in s.by_turn]
        if turns:
            blocks.append(
                Table(
                    ["level", "turn", "requests", "TTFT p50 / p99 ms", "prompt tokens", "cached"],
                    [
                        [
                            f"`{s.level}`",
                            str(t.turn),
                            str(t.requests),
                            f"{fmt(t.ttft_ms.p50, 1)} / {fmt(t.ttft_ms.p99, 1)}",
                            fmt(t.input_tokens_mean, 0),
                            fmt(t.cached_tokens_mean, 0),
                        ]
                        for s, t in turns
                    ],
                    caption="Multi-turn: each turn's prompt holds the turns before it; with "
                    "a prefix cache its TTFT stays while the prompt grows (means per turn)",
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
    for sec in (_sweep(summary, levels), _triage(levels), _variance(summary)):
        if sec is not None:
            out.append(sec)
    out.append(_server(env, levels))
    client = [
        f"`{s.level}`: client CPU {s.client_cpu_s:.3f} s ({s.client_cpu_share:.1%} of the wall "
        f"time), lag p50 {fmt(s.client_lag_ms.p50, 3)} ms, p99 {fmt(s.client_lag_ms.p99, 3)} ms, "
        f"in flight mean {fmt(s.in_flight.mean, 2)}, max {s.in_flight.max}"
        if s.requests
        else f"`{s.level}`: nothing measured (no request was sent)"
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
    found = summarise(env).sweep
    if found is not None:
        held = found.sustained_rps
        out.append(
            (
                "sweep",
                f"sustains {held:g} requests/s" if held is not None else "no rate sustained",
            )
        )
    results = level_results(env)
    if not results:
        return [("levels", "nothing measured")]
    for r in results:
        s = r.stats
        if not s.completed:
            out.append((s.level, f"nothing measured ({s.errors}/{s.requests} errors)"))
            continue
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
