"""Report sections of the full suite: the scale tiers (tables and charts) and the
prompt-injection canary checked in every answer of the run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gaia_eval.core import charts
from gaia_eval.core.report import Block, Bullets, Chart, Para, Section, Table, fmt
from gaia_eval.retrieval.models import RagSummary, ScaleTier
from gaia_eval.retrieval.summary import result_of

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope


def tiers(env: Envelope) -> list[ScaleTier]:
    out = [r for rec in env.items if isinstance(r := result_of(rec), ScaleTier)]
    return sorted(out, key=lambda t: t.tier)


def _mb(value: float | None) -> str:
    return fmt(value, 1)


def scale_section(env: Envelope) -> Section | None:
    ts = tiers(env)
    if not ts:
        return None
    first = ts[0]
    blocks: list[Block] = [
        Para(
            f"The {len(first.targets)} most-questioned repo_docs documents plus "
            f"{'Simple English Wikipedia' if first.distractors == 'wikipedia' else 'generated'} "
            f"distractors, embedder `{first.embedder}`, FAISS `{first.faiss_index or '?'}`. "
            "Recall is over the questions whose evidence lies in the targets; latency is per "
            "query, end to end through each pipeline."
        ),
        Table(
            [
                "documents",
                "chunks",
                "index s",
                "chunks/s",
                "peak RSS MB",
                "vectors MB",
                "cache MB",
                "sdk R@5",
                "sdk MRR",
                "agent R@ret",
                "sdk p50/p95 ms",
                "agent p50/p95 ms",
                "ok",
            ],
            [
                [
                    str(t.tier),
                    str(t.index.chunks),
                    fmt(t.index.index_s, 2),
                    fmt(t.index.chunks_per_s, 0),
                    _mb(t.index.rss_peak_mb),
                    fmt(t.index.vectors_mb, 2),
                    fmt(t.index.cache_on_disk_mb, 2),
                    fmt(t.summary.sdk.recall_at_5),
                    fmt(t.summary.sdk.mrr),
                    fmt(t.summary.agent.recall_at_returned),
                    f"{fmt(t.summary.sdk_latency.p50_ms, 1)} / "
                    f"{fmt(t.summary.sdk_latency.p95_ms, 1)}",
                    f"{fmt(t.summary.agent_latency.p50_ms, 1)} / "
                    f"{fmt(t.summary.agent_latency.p95_ms, 1)}",
                    "yes" if t.ok else "**a target failed to index**",
                ]
                for t in ts
            ],
        ),
    ]
    pts = [(float(t.tier), t) for t in ts]
    blocks.append(
        Chart(
            charts.lines(
                {
                    "sdk recall@5": [(x, t.summary.sdk.recall_at_5 or 0.0) for x, t in pts],
                    "agent R@returned": [
                        (x, t.summary.agent.recall_at_returned or 0.0) for x, t in pts
                    ],
                },
                x_label="documents",
                y_label="recall",
                log_x=True,
            ),
            "recall as distractors are added (see the table)",
        )
    )
    blocks.append(
        Chart(
            charts.lines(
                {
                    "sdk p95 ms": [(x, t.summary.sdk_latency.p95_ms or 0.0) for x, t in pts],
                    "agent p95 ms": [(x, t.summary.agent_latency.p95_ms or 0.0) for x, t in pts],
                },
                x_label="documents",
                y_label="ms",
                log_x=True,
            ),
            "query latency p95 by tier (see the table)",
        )
    )
    blocks.append(
        Chart(
            charts.bars([f"{t.tier} docs" for t in ts], [t.index.index_s for t in ts], unit=" s"),
            "indexing time by tier (see the table)",
        )
    )
    ann = [t for t in ts if t.ann]
    if ann:
        rows = []
        for t in ann:
            rows.append(
                [
                    str(t.tier),
                    "flat (exact)",
                    "1.000",
                    "–",
                    f"{fmt(t.flat_p50_ms, 3)} / {fmt(t.flat_p95_ms, 3)}",
                ]
            )
            rows += [
                [
                    str(t.tier),
                    a.index,
                    fmt(a.recall_at_10_vs_flat),
                    fmt(a.build_s, 3),
                    f"{fmt(a.p50_ms, 3)} / {fmt(a.p95_ms, 3)}",
                ]
                for a in t.ann
            ]
        blocks.append(
            Table(
                ["documents", "index", "recall@10 vs flat", "build s", "search p50/p95 ms"],
                rows,
                caption="Approximate indexes against the flat one, over the tier's vectors "
                "(query vector given)",
            )
        )
    return Section("Scale tiers", blocks)


def sources_section(env: Envelope) -> Section | None:
    from gaia_eval.retrieval.models import RagSetup

    notes = RagSetup.model_validate(env.setup).sources
    if not notes:
        return None
    return Section(
        "Corpora",
        [
            Table(
                ["source", "what", "license"],
                [[name, n.get("title", ""), n.get("license", "")] for name, n in notes.items()],
            )
        ],
    )


def canary_section(env: Envelope) -> Section | None:
    s = RagSummary.model_validate(env.summary)
    if s.canary_answers is None:
        return None
    if not s.canary_answers:
        return Section(
            "Prompt-injection canary",
            [Para("No answer of the run carries the canary `CANARY-7Q4`.")],
        )
    return Section(
        "Prompt-injection canary",
        [
            Para(
                f"**{len(s.canary_answers)} answers carry the canary `CANARY-7Q4`**: a planted "
                "instruction took them over."
            ),
            Bullets([f"`{q}`" for q in s.canary_answers]),
        ],
    )
