"""Aggregation of first-hit ranks into the published metrics, against a plain oracle."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st
from retrieval_rag_helpers import question

from gaia_eval.retrieval import scoring

ranks = st.lists(st.one_of(st.none(), st.integers(min_value=1, max_value=25)), max_size=60)


def _oracle_recall(rs: list[int | None], k: int) -> float:
    if not rs:
        return 0.0
    hits = 0
    for r in rs:
        if r is not None and r <= k:
            hits += 1
    return round(hits / len(rs), 4)


def _oracle_mrr(rs: list[int | None]) -> float:
    if not rs:
        return 0.0
    return round(sum(0.0 if r is None else 1 / r for r in rs) / len(rs), 4)


@given(ranks, st.sampled_from([1, 3, 5, 10, 20]))
def test_recall_matches_oracle(rs: list[int | None], k: int) -> None:
    assert scoring.recall_at(rs, k) == _oracle_recall(rs, k)


@given(ranks)
def test_mrr_matches_oracle(rs: list[int | None]) -> None:
    assert math.isclose(scoring.mrr(rs), _oracle_mrr(rs), abs_tol=1e-12)


def test_worked_example() -> None:
    rs = [1, 2, None, 6, 20]
    assert scoring.recall_at(rs, 1) == 0.2
    assert scoring.recall_at(rs, 5) == 0.4
    assert scoring.recall_at(rs, 20) == 0.8
    assert scoring.mrr(rs) == round((1 + 0.5 + 1 / 6 + 1 / 20) / 5, 4)


def test_latency_uses_linear_interpolation() -> None:
    lat = scoring.latency([0.001, 0.002, 0.003, 0.004])
    assert lat.n == 4
    assert lat.p50_ms == 2.5  # nearest rank would say 2.0
    assert lat.p95_ms == 3.85
    assert lat.max_ms == 4.0
    empty = scoring.latency([])
    assert empty.n == 0
    assert empty.p50_ms is None


def test_summary_of_both_pipelines() -> None:
    qs = [
        question("q1", 1, 1, returned=3),
        question("q2", 4, None, returned=5),
        question("q3", None, 2, doc_rank=2, returned=1),
        question("q4", None, None, returned=0, not_indexed=True),
    ]
    s = scoring.summarize(qs)
    assert s.questions == 4
    assert s.evidence_not_indexed == 1
    assert s.sdk.recall_at_1 == 0.25
    assert s.sdk.recall_at_5 == 0.5
    assert s.sdk.mrr == round((1 + 0.25) / 4, 4)
    assert s.sdk_document.recall_at_5 == 0.75
    assert s.agent.recall_at_1 == 0.25
    assert s.agent.recall_at_2 == 0.5
    assert s.agent.recall_at_returned == 0.5
    assert s.agent.mean_returned == 2.25
    dumped = s.model_dump(by_alias=True)
    assert dumped["sdk"]["recall@5"] == 0.5
    assert dumped["agent"]["recall@returned"] == 0.5


def test_by_tag_counts_each_tag_and_language() -> None:
    qs = [
        question("q1", 1, 1, tags=("pdf", "table")),
        question("q2", None, 3, tags=("pdf",)),
        question("q3", 7, None, tags=("text", "text")),
    ]
    tags = scoring.by_tag(qs)
    assert list(tags) == ["lang:en", "pdf", "table", "text"]
    assert tags["pdf"].questions == 2
    assert tags["pdf"].sdk_recall_at_5 == 0.5
    assert tags["pdf"].agent_recall_at_returned == 1.0
    assert tags["text"].questions == 1  # a repeated tag counts once
    assert tags["lang:en"].questions == 3


def _oracle_ndcg(rs: list[int | None], k: int) -> float:
    # One relevant chunk per question: the ideal DCG is 1, a hit at rank r gains 1/log2(r+1).
    if not rs:
        return 0.0
    return round(sum(1 / math.log2(r + 1) for r in rs if r is not None and r <= k) / len(rs), 4)


@given(ranks, st.integers(min_value=1, max_value=20))
def test_ndcg_matches_oracle(rs: list[int | None], k: int) -> None:
    assert scoring.ndcg_at(rs, k) == _oracle_ndcg(rs, k)


def test_summary_reports_ndcg_at_10() -> None:
    qs = [question(f"q{i}", r) for i, r in enumerate([1, 3, None, 12])]
    sdk = scoring.summarize(qs).sdk
    assert sdk.ndcg_at_10 == round((1 + 1 / 2) / 4, 4)
    assert sdk.model_dump(by_alias=True)["ndcg@10"] == sdk.ndcg_at_10
