"""The metrics kernel against a slow pure-Python oracle and against pytrec_eval."""

from __future__ import annotations

import contextlib
import math
import random
from typing import Any

import numpy as np
import pytest
import pytrec_eval  # the `test` dependency group has it: a missing one must fail, not skip
from hypothesis import given, settings
from hypothesis import strategies as st

from gaia_eval import _core, _native
from gaia_eval.bench import trec

# ---- the oracle: slow and obviously right ------------------------------------------------


def oracle_query(ranking: list[int], judged: dict[int, int], ks: list[int]) -> dict[str, Any]:
    """One query's metrics straight from the definitions (trec_eval's, plus our duplicates rule)."""
    relevant = {d for d, g in judged.items() if g > 0}
    if not relevant:
        raise ValueError("no relevant judgement")
    cut = []
    for doc in ranking:
        if doc < 0:
            break
        cut.append(doc)
    # The gain each rank slot earns: only the first occurrence of a doc id can count.
    seen: set[int] = set()
    gains: list[int] = []
    for doc in cut:
        g = judged.get(doc, 0) if doc not in seen else 0
        seen.add(doc)
        gains.append(max(g, 0))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)
    out: dict[str, Any] = {"recall": [], "precision": [], "ndcg": []}
    for k in ks:
        found = {d for d in cut[:k] if d in relevant}
        out["recall"].append(len(found) / len(relevant))
        out["precision"].append(len(found) / k)
        dcg = sum(g / math.log2(r + 2) for r, g in enumerate(gains[:k]))
        idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal[:k]))
        out["ndcg"].append(dcg / idcg)
    out["rr"] = next((1 / (r + 1) for r, d in enumerate(cut) if d in relevant), 0.0)
    return out


def to_arrays(
    rankings: list[list[int]], qrels: list[dict[int, int]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    depth = max((len(r) for r in rankings), default=0)
    ranked = np.full((len(rankings), depth), -1, dtype=np.int64)
    for i, r in enumerate(rankings):
        ranked[i, : len(r)] = r
    return (ranked, *trec.qrels_to_csr(qrels))


# ---- property tests against the oracle ---------------------------------------------------

doc_ids = st.integers(min_value=0, max_value=25)


@st.composite
def query(draw: st.DrawFn) -> tuple[list[int], dict[int, int]]:
    judged = draw(st.dictionaries(doc_ids, st.integers(min_value=-1, max_value=4), max_size=20))
    relevant_doc = draw(doc_ids)
    judged[relevant_doc] = draw(st.integers(min_value=1, max_value=4))
    # Rankings mix judged, unjudged and repeated ids.
    ranking = draw(st.lists(st.one_of(doc_ids, st.sampled_from(sorted(judged))), max_size=30))
    return ranking, judged


cutoffs = st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(query(), max_size=8), cutoffs)
def test_ranking_metrics_match_oracle(queries: list[Any], ks: list[int]) -> None:
    rankings = [r for r, _ in queries]
    qrels = [j for _, j in queries]
    scores = _native.ranking_metrics(*to_arrays(rankings, qrels), ks)
    assert scores.ks == tuple(ks)
    assert (
        scores.recall.shape
        == scores.precision.shape
        == scores.ndcg.shape
        == (len(queries), len(ks))
    )
    for i, (ranking, judged) in enumerate(queries):
        want = oracle_query(ranking, judged, ks)
        np.testing.assert_allclose(scores.recall[i], want["recall"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(scores.precision[i], want["precision"], rtol=0, atol=1e-12)
        np.testing.assert_allclose(scores.ndcg[i], want["ndcg"], rtol=0, atol=1e-12)
        assert scores.rr[i] == pytest.approx(want["rr"], abs=1e-15)


def oracle_first_hit(
    ranks: list[int | None], ks: list[int]
) -> tuple[list[list[float]], list[float]]:
    recall = [[1.0 if r and r <= k else 0.0 for k in ks] for r in ranks]
    rr = [1 / r if r else 0.0 for r in ranks]
    return recall, rr


@given(st.lists(st.one_of(st.none(), st.integers(min_value=0, max_value=50))), cutoffs)
def test_first_hit_metrics_match_oracle(ranks: list[int | None], ks: list[int]) -> None:
    scores = _native.first_hit_metrics(ranks, ks)
    recall, rr = oracle_first_hit(ranks, ks)
    assert scores.recall.reshape(-1).tolist() == [x for row in recall for x in row]
    assert scores.rr.tolist() == pytest.approx(rr, abs=0)
    if ranks:
        summary = scores.summary()
        assert summary["mrr"] == pytest.approx(sum(rr) / len(rr))
        for j, k in enumerate(ks):
            assert summary[f"recall@{k}"] == pytest.approx(
                sum(row[j] for row in recall) / len(ranks)
            )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(min_value=-3, max_value=9), max_size=12),
    st.lists(st.integers(min_value=-3, max_value=12), max_size=6),
    st.lists(st.integers(min_value=-3, max_value=9), max_size=12),
    st.integers(min_value=0, max_value=4),
    st.lists(st.integers(min_value=-2, max_value=12), max_size=3),
)
def test_hostile_arrays_never_crash(
    flat: list[int], offsets: list[int], docs: list[int], depth: int, ks: list[int]
) -> None:
    """Whatever the binding gets, it returns or raises ValueError; the interpreter lives."""
    rows = len(flat) // depth if depth else max(len(offsets) - 1, 0)
    ranked = np.asarray(flat[: rows * depth], dtype=np.int64).reshape(rows, depth)
    arrays = [np.asarray(a, dtype=np.int64) for a in (offsets, docs, docs[::-1], ks)]
    with contextlib.suppress(ValueError):
        _core.ranking_metrics(ranked, *arrays)


# ---- declared behaviour ------------------------------------------------------------------


def test_repeated_relevant_doc_counts_once_but_keeps_its_slot() -> None:
    # Relevant: 7 (grade 2) and 9 (grade 1). The run repeats 7 before finding 9.
    scores = _native.ranking_metrics(*to_arrays([[7, 7, 9]], [{7: 2, 9: 1}]), [2, 3])
    assert scores.recall[0].tolist() == [0.5, 1.0]
    assert scores.precision[0].tolist() == [0.5, pytest.approx(2 / 3)]
    ideal2 = 2 + 1 / math.log2(3)
    assert scores.ndcg[0, 0] == pytest.approx(2 / ideal2)
    assert scores.ndcg[0, 1] == pytest.approx((2 + 1 / math.log2(4)) / ideal2)
    assert scores.rr[0] == 1.0


def test_precision_divides_by_k_even_for_short_rankings() -> None:
    scores = _native.ranking_metrics(*to_arrays([[1]], [{1: 1}]), [1, 10])
    assert scores.precision[0].tolist() == [1.0, 0.1]
    assert scores.recall[0].tolist() == [1.0, 1.0]


def test_empty_ranking_scores_zero() -> None:
    ranked = np.full((1, 3), -1, dtype=np.int64)
    scores = _native.ranking_metrics(ranked, *trec.qrels_to_csr([{1: 1}]), [1, 5])
    assert (
        scores.recall.tolist() == scores.precision.tolist() == scores.ndcg.tolist() == [[0.0, 0.0]]
    )
    assert scores.rr.tolist() == [0.0]


def test_rr_looks_past_the_deepest_cutoff() -> None:
    scores = _native.ranking_metrics(*to_arrays([[5, 6, 7, 8]], [{8: 1}]), [2])
    assert scores.recall[0].tolist() == [0.0]
    assert scores.rr[0] == 0.25


def test_empty_relevance_set_is_an_error_naming_the_query() -> None:
    arrays = to_arrays([[1], [2]], [{1: 1}, {2: 0, 3: -1}])
    with pytest.raises(ValueError, match=r"query 1 has no relevant judgement"):
        _native.ranking_metrics(*arrays, [1])
    with pytest.raises(ValueError, match=r"query 'b' has no relevant judgement"):
        trec.evaluate_run({"a": {"x": 1}, "b": {"y": 0}}, {"a": ["x"], "b": ["y"]}, [1])
    with pytest.raises(ValueError, match=r"query 'zzz' has no judgements"):
        trec.evaluate_run({"a": {"x": 1}}, {"a": ["x"], "zzz": ["y"]}, [1])


def test_noncontiguous_input_is_read_correctly() -> None:
    wide = np.asarray([[3, 99, 4, 99], [5, 99, -1, 99]], dtype=np.int64)
    offsets, docs, grades = trec.qrels_to_csr([{4: 1}, {5: 2}])
    scores = _native.ranking_metrics(wide[:, ::2], offsets, docs, grades, [1, 2])
    assert scores.recall.tolist() == [[0.0, 1.0], [1.0, 1.0]]


def test_summary_and_per_query() -> None:
    scores = trec.evaluate_run(
        {"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": ["a"], "q2": ["x", "b"]}, [1]
    )
    assert scores.summary() == {"recall@1": 0.5, "P@1": 0.5, "ndcg@1": 0.5, "mrr": 0.75}
    assert scores.per_query()["q2"] == {"recall@1": 0.0, "P@1": 0.0, "ndcg@1": 0.0, "rr": 0.5}
    with pytest.raises(ValueError, match="no queries"):
        _native.ranking_metrics(*to_arrays([], []), [1]).summary()


def test_query_missing_from_run_scores_zero_not_skipped() -> None:
    scores = trec.evaluate_run({"q1": {"a": 1}, "q2": {"b": 1}}, {"q1": ["a"]}, [1])
    assert scores.qids == ("q1", "q2")
    assert scores.summary()["recall@1"] == 0.5


# ---- bad input: named, never a crash -----------------------------------------------------

GOOD = to_arrays([[1, 2]], [{1: 1}])


@pytest.mark.parametrize(
    ("index", "value", "exc", "pattern"),
    [
        (0, np.zeros((1, 2)), TypeError, "ranked must have dtype int64"),
        (0, [[1, 2]], TypeError, r"ranked must be a numpy\.ndarray"),
        (0, np.asarray([1, 2], dtype=np.int64), ValueError, "ranked must be 2-dimensional"),
        (0, np.asarray([[1, 2], [3]], dtype=object), TypeError, "ranked must have dtype int64"),
        (0, np.asarray([[1, 2]], dtype=np.int32), TypeError, "ranked must have dtype int64"),
        (0, np.asarray([[1, 2]], dtype=">i8"), TypeError, "ranked must have dtype int64"),
        (0, np.asarray([[1, 2], [3, 4]], dtype=np.int64), ValueError, "ranked has 2 rows"),
        (
            0,
            np.asarray([[-1, 2]], dtype=np.int64),
            ValueError,
            r"ranked\[0, 1\] = 2 follows padding",
        ),
        (1, np.asarray([], dtype=np.int64), ValueError, "qrel_offsets must have"),
        (1, np.asarray([1, 1], dtype=np.int64), ValueError, r"qrel_offsets\[0\] must be 0"),
        (1, np.asarray([0, 2], dtype=np.int64), ValueError, r"qrel_offsets\[-1\] = 2"),
        (1, np.asarray([0.0, 1.0]), TypeError, "qrel_offsets must have dtype int64"),
        (2, np.asarray([-4], dtype=np.int64), ValueError, r"qrel_docs\[0\] = -4"),
        (
            2,
            np.asarray([1, 2], dtype=np.int64),
            ValueError,
            "qrel_docs has 2 entries but qrel_grades has 1",
        ),
        (3, np.asarray([1.5]), TypeError, "qrel_grades must have dtype int64"),
    ],
)
def test_bad_arrays_raise_naming_the_argument(
    index: int, value: Any, exc: type[Exception], pattern: str
) -> None:
    args: list[Any] = list(GOOD)
    args[index] = value
    with pytest.raises(exc, match=pattern):
        _native.ranking_metrics(*args, [1])


def test_decreasing_offsets_and_duplicate_judgements_are_refused() -> None:
    ranked = np.asarray([[1], [1]], dtype=np.int64)
    one = np.asarray([1, 1], dtype=np.int64)
    with pytest.raises(ValueError, match="qrel_offsets must be non-decreasing"):
        _native.ranking_metrics(ranked, np.asarray([0, 2, 1], dtype=np.int64), one, one, [1])
    with pytest.raises(ValueError, match="document 1 is judged twice for query 0"):
        _native.ranking_metrics(ranked[:1], np.asarray([0, 2], dtype=np.int64), one, one, [1])


@pytest.mark.parametrize(
    ("ks", "exc", "pattern"),
    [
        ([0], ValueError, r"ks\[0\] = 0"),
        ([5, -1], ValueError, r"ks\[1\] = -1"),
        ([2.5], TypeError, r"ks\[0\] must be an int"),
        ([True], TypeError, r"ks\[0\]"),
    ],
)
def test_bad_cutoffs_raise_in_wrapper(ks: list[Any], exc: type[Exception], pattern: str) -> None:
    with pytest.raises(exc, match=pattern):
        _native.ranking_metrics(*GOOD, ks)
    with pytest.raises(exc, match=pattern):
        _native.first_hit_metrics([1], ks)


def test_binding_validates_on_its_own() -> None:
    """A direct caller of the private extension gets the same named errors."""
    with pytest.raises(ValueError, match=r"ks\[0\] = -3"):
        _core.ranking_metrics(*GOOD, np.asarray([-3], dtype=np.int64))
    with pytest.raises(TypeError, match="ks must have dtype int64"):
        _core.ranking_metrics(*GOOD, np.asarray([1.0]))
    with pytest.raises(ValueError, match=r"ranks\[1\] = -2"):
        _core.first_hit_metrics(
            np.asarray([1, -2], dtype=np.int64), np.asarray([1], dtype=np.int64)
        )
    with pytest.raises(TypeError, match=r"ranks must be a numpy\.ndarray"):
        _core.first_hit_metrics([1, 2], np.asarray([1], dtype=np.int64))
    with pytest.raises(ValueError, match="ranks must be 1-dimensional"):
        _core.first_hit_metrics(np.zeros((1, 1), dtype=np.int64), np.asarray([1], dtype=np.int64))


@pytest.mark.parametrize(
    ("qrels", "pattern"),
    [
        ([{1.5: 1}], r"qrels\[0\]: doc id 1\.5 must be an int"),
        ([{1: 1}, {"d": 1}], r"qrels\[1\]: doc id 'd' must be an int"),
        ([{1: 2.0}], r"qrels\[0\]: grade 2\.0 must be an int"),
    ],
)
def test_qrels_to_csr_refuses_non_ints(qrels: list[dict[Any, Any]], pattern: str) -> None:
    with pytest.raises(TypeError, match=pattern):
        trec.qrels_to_csr(qrels)


def test_evaluate_run_refuses_float_grades_rather_than_truncating() -> None:
    with pytest.raises(TypeError, match=r"grade 0\.5 must be an int"):
        trec.evaluate_run({"q": {"a": 0.5, "b": 1}}, {"q": ["a"]}, [1])  # type: ignore[dict-item]


def test_first_hit_bad_ranks() -> None:
    with pytest.raises(TypeError, match=r"ranks\[1\] must be an int or None"):
        _native.first_hit_metrics([1, 2.0], [1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match=r"ranks\[0\] = -1"):
        _native.first_hit_metrics([-1], [1])


# ---- equality with trec_eval (pytrec_eval) -----------------------------------------------


def random_run(
    rng: random.Random, n_queries: int
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        pool = [f"d{i}" for i in range(rng.randint(5, 60))]
        judged = rng.sample(pool, rng.randint(1, min(25, len(pool))))
        grades = {d: rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged}
        grades[judged[0]] = rng.randint(1, 3)
        qrels[f"q{q}"] = grades
        ranked = rng.sample(pool, rng.randint(1, len(pool)))
        # Few distinct scores, so ties (broken by doc id, descending) are common.
        run[f"q{q}"] = {d: float(rng.randint(0, 8)) for d in ranked}
    return qrels, run


@pytest.mark.parametrize("seed", range(5))
def test_equals_pytrec_eval_on_random_runs(seed: int) -> None:
    ks = [1, 3, 5, 10, 20, 100]
    qrels, run = random_run(random.Random(seed), 200)
    spec = {f"{m}.{','.join(map(str, ks))}" for m in ("recall", "P", "ndcg_cut")} | {"recip_rank"}
    want = pytrec_eval.RelevanceEvaluator(qrels, spec).evaluate(run)
    got = trec.evaluate_run(qrels, run, ks).per_query()
    assert set(got) == set(want)
    for qid, measures in want.items():
        for k in ks:
            assert got[qid][f"recall@{k}"] == pytest.approx(measures[f"recall_{k}"], abs=1e-9)
            assert got[qid][f"P@{k}"] == pytest.approx(measures[f"P_{k}"], abs=1e-9)
            assert got[qid][f"ndcg@{k}"] == pytest.approx(measures[f"ndcg_cut_{k}"], abs=1e-9)
        assert got[qid]["rr"] == pytest.approx(measures["recip_rank"], abs=1e-9)


def test_concurrent_calls_agree() -> None:
    """The kernel runs without the GIL: calls from many threads must not share state."""
    from concurrent.futures import ThreadPoolExecutor

    rng = random.Random(11)
    cases = []
    for _ in range(8):
        qrels = [{rng.randrange(50): rng.randint(1, 3) for _ in range(5)} for _ in range(300)]
        rankings = [[rng.randrange(60) for _ in range(rng.randint(0, 40))] for _ in range(300)]
        cases.append(to_arrays(rankings, qrels))
    want = [_native.ranking_metrics(*c, [1, 10, 50]) for c in cases]
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda c: _native.ranking_metrics(*c, [1, 10, 50]), cases * 4))
    for i, scores in enumerate(got):
        ref = want[i % len(cases)]
        for field in ("recall", "precision", "ndcg", "rr"):
            assert np.array_equal(getattr(scores, field), getattr(ref, field))
