"""Aggregate per-question first-hit ranks into the published metrics (pure).

Every metric here is a function of first-hit ranks only (1-based, None = miss), computed
by the native metrics kernel's first-hit path; values are rounded to 4 decimals
(docs/retrieval-rag.md), latencies to 0.01 ms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gaia_eval import _native
from gaia_eval.core.stats import percentile_linear
from gaia_eval.retrieval.models import (
    AGENT_KS,
    DOCUMENT_KS,
    SDK_KS,
    AgentSummary,
    AnswerSummary,
    DocumentSummary,
    LatencySummary,
    QuestionResult,
    SdkSummary,
    Summary,
    TagSummary,
)

Rank = int | None


def first_hit(ranks: Sequence[Rank], ks: Sequence[int]) -> dict[str, float]:
    """`recall@k` for each k and `mrr` over first-hit ranks, by the native metrics kernel
    (0.0 everywhere for no questions), rounded to 4 decimals."""
    if not ranks:
        return {**{f"recall@{k}": 0.0 for k in ks}, "mrr": 0.0}
    summary = _native.first_hit_metrics(list(ranks), ks).summary()
    return {name: round(value, 4) for name, value in summary.items()}


def ndcg_at(ranks: Sequence[Rank], k: int) -> float:
    """nDCG@k over first-hit ranks by the native ranking kernel (a question has one relevant
    chunk, so a hit at rank r scores 1 / log2(r + 1)), rounded to 4 decimals; 0.0 for none."""
    if not ranks:
        return 0.0
    q = len(ranks)
    # Ranks 1..k hold non-relevant docs 1..k (no -1 padding: it may only end a ranking).
    ranked = np.tile(np.arange(1, k + 1, dtype=np.int64), (q, 1))
    for i, r in enumerate(ranks):
        if r is not None and 1 <= r <= k:
            ranked[i, r - 1] = 0  # doc 0, each question's one relevant document
    offsets = np.arange(q + 1, dtype=np.int64)
    docs, grades = np.zeros(q, dtype=np.int64), np.ones(q, dtype=np.int64)
    scores = _native.ranking_metrics(ranked, offsets, docs, grades, [k])
    return round(float(scores.ndcg[:, 0].mean()), 4)


def recall_at(ranks: Sequence[Rank], k: int) -> float:
    """Share of questions whose first hit is within the top k (0.0 for no questions)."""
    return first_hit(ranks, [k])[f"recall@{k}"]


def mrr(ranks: Sequence[Rank]) -> float:
    """Mean reciprocal rank of the first hit, misses counted as 0."""
    return first_hit(ranks, [1])["mrr"]


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
    n = len(questions)
    sdk = first_hit([q.sdk_rank for q in questions], SDK_KS)
    doc = first_hit([q.sdk_doc_rank for q in questions], DOCUMENT_KS)
    agent_ranks = [q.agent_rank for q in questions]
    agent = first_hit(agent_ranks, AGENT_KS)
    returned = [q.agent_returned for q in questions]
    return Summary(
        questions=n,
        evidence_not_indexed=sum(1 for q in questions if q.evidence_not_indexed),
        sdk=SdkSummary.model_validate(
            {"n": n, **sdk, "ndcg@10": ndcg_at([q.sdk_rank for q in questions], 10)}
        ),
        sdk_document=DocumentSummary.model_validate(
            {"n": n, "recall@1": doc["recall@1"], "recall@5": doc["recall@5"]}
        ),
        sdk_latency=latency([q.sdk_latency_s for q in questions]),
        agent=AgentSummary.model_validate(
            {
                "n": n,
                **agent,
                # Any returned chunk hits: the agent list is all the model ever sees.
                "recall@returned": round(sum(1 for r in agent_ranks if r is not None) / n, 4)
                if n
                else 0.0,
                "mean_returned": round(sum(returned) / n, 4) if n else 0.0,
            }
        ),
        agent_latency=latency([q.agent_latency_s for q in questions]),
        answers=answer_summary(questions),
    )


def answer_accuracy(questions: Sequence[QuestionResult]) -> float | None:
    """Correct / scored over the questions' answers (None when none was scored)."""
    scored = [q.answer.correct for q in questions if q.answer and q.answer.correct is not None]
    return round(sum(scored) / len(scored), 4) if scored else None


def answer_summary(questions: Sequence[QuestionResult]) -> AnswerSummary | None:
    """Accuracy and the outcome split over the answered questions (None: none answered,
    i.e. a retrieval-only run)."""
    from gaia_eval.retrieval.answers import OUTCOMES

    answered = [q.answer for q in questions if q.answer is not None]
    if not answered:
        return None
    outcomes: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for a in answered:
        outcomes[a.outcome] += 1
    scored = [a for a in answered if a.correct is not None]
    correct = sum(1 for a in scored if a.correct)
    return AnswerSummary(
        answered=len(answered),
        scored=len(scored),
        correct=correct,
        accuracy=round(correct / len(scored), 4) if scored else None,
        outcomes=outcomes,
        latency=latency([a.latency_s for a in answered]),
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
            answer_accuracy=answer_accuracy(qs),
        )
    return out
