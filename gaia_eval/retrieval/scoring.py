"""Aggregate per-question first-hit ranks into the published metrics (pure).

Every metric here is a function of first-hit ranks only (1-based, None = miss), so the
aggregation is a few sums; values are rounded to 4 decimals as reference-behaviour §2.4
says, latencies to 0.01 ms.
"""

from __future__ import annotations

from collections.abc import Sequence

from gaia_eval.core.stats import percentile_linear
from gaia_eval.retrieval.models import (
    AgentSummary,
    DocumentSummary,
    LatencySummary,
    QuestionResult,
    SdkSummary,
    Summary,
    TagSummary,
)

Rank = int | None


def recall_at(ranks: Sequence[Rank], k: int) -> float:
    """Share of questions whose first hit is within the top k (0.0 for no questions)."""
    if not ranks:
        return 0.0
    return round(sum(1 for r in ranks if r is not None and r <= k) / len(ranks), 4)


def mrr(ranks: Sequence[Rank]) -> float:
    """Mean reciprocal rank of the first hit, misses counted as 0."""
    if not ranks:
        return 0.0
    return round(sum(1.0 / r for r in ranks if r is not None) / len(ranks), 4)


def latency(seconds: Sequence[float]) -> LatencySummary:
    """p50 / p95 / max in milliseconds, linear interpolation between closest ranks."""
    if not seconds:
        return LatencySummary(n=0, p50_ms=None, p95_ms=None, max_ms=None)
    ms = [s * 1000 for s in seconds]
    return LatencySummary(
        n=len(ms),
        p50_ms=round(percentile_linear(ms, 50), 2),
        p95_ms=round(percentile_linear(ms, 95), 2),
        max_ms=round(max(ms), 2),
    )


def summarize(questions: Sequence[QuestionResult]) -> Summary:
    """The dataset summary of both pipelines over `questions`."""
    sdk = [q.sdk_rank for q in questions]
    doc = [q.sdk_doc_rank for q in questions]
    agent = [q.agent_rank for q in questions]
    n = len(questions)
    returned = [q.agent_returned for q in questions]
    return Summary(
        questions=n,
        evidence_not_indexed=sum(1 for q in questions if q.evidence_not_indexed),
        sdk=SdkSummary(
            n=n,
            recall_at_1=recall_at(sdk, 1),
            recall_at_3=recall_at(sdk, 3),
            recall_at_5=recall_at(sdk, 5),
            recall_at_10=recall_at(sdk, 10),
            recall_at_20=recall_at(sdk, 20),
            mrr=mrr(sdk),
        ),
        sdk_document=DocumentSummary(
            n=n, recall_at_1=recall_at(doc, 1), recall_at_5=recall_at(doc, 5)
        ),
        sdk_latency=latency([q.sdk_latency_s for q in questions]),
        agent=AgentSummary(
            n=n,
            recall_at_1=recall_at(agent, 1),
            recall_at_2=recall_at(agent, 2),
            recall_at_3=recall_at(agent, 3),
            recall_at_4=recall_at(agent, 4),
            recall_at_5=recall_at(agent, 5),
            mrr=mrr(agent),
            recall_at_returned=round(sum(1 for r in agent if r is not None) / n, 4) if n else 0.0,
            mean_returned=round(sum(returned) / n, 4) if n else 0.0,
        ),
        agent_latency=latency([q.agent_latency_s for q in questions]),
    )


def by_tag(questions: Sequence[QuestionResult]) -> dict[str, TagSummary]:
    """Per tag (plus `lang:<code>`), sorted by tag: counts, sdk recall@5, agent recall@returned."""
    groups: dict[str, list[QuestionResult]] = {}
    for q in questions:
        for tag in [*dict.fromkeys(q.tags), f"lang:{q.language}"]:
            groups.setdefault(tag, []).append(q)
    out: dict[str, TagSummary] = {}
    for tag in sorted(groups):
        qs = groups[tag]
        out[tag] = TagSummary(
            questions=len(qs),
            sdk_recall_at_5=recall_at([q.sdk_rank for q in qs], 5),
            agent_recall_at_returned=recall_at([q.agent_rank for q in qs], 10**9),
        )
    return out
