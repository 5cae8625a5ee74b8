"""Ranking metrics: the native kernel against vectorized numpy, pytrec_eval and ranx.

Every implementation computes recall@k, P@k and nDCG@k for k in KS plus MRR, and the
means over queries; the results are checked to agree before any time is reported.

Two figures per implementation:
- `compute`: the input already in the implementation's own preferred form (ours and
  numpy: int64 arrays and CSR judgements; pytrec_eval: its dicts of str ids; ranx: its
  numba typed lists, sorted), so only the metric computation is timed.
- `from natural input`: starting from what a retrieval eval holds, the search output as
  an int64 (Q, depth) array (FAISS's shape) and one {doc id: grade} dict per query, so
  the conversion each implementation needs is included.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval import _native
from gaia_eval.bench import trec
from gaia_eval.bench.common import BenchRow, installed, ratio_rows, time_interleaved

TITLE = "ranking metrics (recall@k, P@k, nDCG@k, MRR)"

KS = (1, 3, 5, 10, 20, 100)

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]


class Workload:
    """A seeded synthetic run: distinct ranked ids per query, 1-10 graded judgements of
    which about 60% were retrieved."""

    def __init__(self, n_queries: int, depth: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.label = f"{n_queries} q x {depth} docs"
        q = np.arange(n_queries, dtype=np.int64)[:, None]
        j = np.arange(depth, dtype=np.int64)[None, :]
        # (a*j + b) mod 1000 with a coprime to 1000 never repeats for j < 1000; times a
        # prime coprime to the corpus size keeps the ids distinct within a row.
        units = np.asarray([a for a in range(1, 1000) if math.gcd(a, 1000) == 1])
        a = rng.choice(units, size=(n_queries, 1))
        b = rng.integers(0, 1000, size=(n_queries, 1))
        self.ranked: I64 = ((q * 7919 + ((a * j + b) % 1000) * 1009) % 1_000_000).astype(np.int64)
        n_judged = rng.integers(1, 11, size=n_queries)
        offsets = np.zeros(n_queries + 1, dtype=np.int64)
        offsets[1:] = np.cumsum(n_judged)
        qidx = np.repeat(np.arange(n_queries), n_judged)
        t = np.arange(offsets[-1]) - offsets[qidx]  # index within the query
        inside = rng.random(offsets[-1]) < 0.6
        # Distinct positions in the row: a stride coprime to the depth.
        stride_units = np.asarray([c for c in range(1, depth) if math.gcd(c, depth) == 1] or [1])
        stride = rng.choice(stride_units, size=n_queries)[qidx]
        start = rng.integers(0, depth, size=n_queries)[qidx]
        pos = (start + stride * t) % depth
        outside = 1_000_000 + qidx * 16 + t  # never retrieved
        self.docs: I64 = np.where(inside, self.ranked[qidx, pos], outside).astype(np.int64)
        grades = rng.integers(0, 4, size=offsets[-1])
        grades[offsets[:-1]] = rng.integers(1, 4, size=n_queries)  # one relevant at least
        self.grades: I64 = grades.astype(np.int64)
        self.offsets: I64 = offsets
        self.qrels: list[dict[int, int]] = [
            dict(zip(self.docs[s:e].tolist(), self.grades[s:e].tolist(), strict=True))
            for s, e in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]


# ---- the implementations: each returns {"recall@k", "P@k", "ndcg@k", "mrr"} means ----


def native(ranked: I64, offsets: I64, docs: I64, grades: I64) -> dict[str, float]:
    return _native.ranking_metrics(ranked, offsets, docs, grades, KS).summary()


def numpy_vectorized(ranked: I64, offsets: I64, docs: I64, grades: I64) -> dict[str, float]:
    """The same metrics in whole-array numpy (no duplicate handling; the workload has none)."""
    n_q, depth = ranked.shape
    qidx = np.repeat(np.arange(n_q, dtype=np.int64), np.diff(offsets))
    span = int(max(docs.max(initial=0), ranked.max(initial=0))) + 1
    keys = qidx * span + docs
    order = np.argsort(keys)
    keys, sorted_grades = keys[order], grades[order]
    valid = ranked >= 0
    rkeys = np.arange(n_q, dtype=np.int64)[:, None] * span + np.where(valid, ranked, 0)
    at = np.minimum(np.searchsorted(keys, rkeys), len(keys) - 1)
    gain = np.where(valid & (keys[at] == rkeys), np.maximum(sorted_grades[at], 0), 0)
    rel = gain > 0
    n_rel = np.bincount(qidx, weights=grades > 0, minlength=n_q)
    kmax = max(KS)
    disc = 1.0 / np.log2(np.arange(2, max(depth, kmax) + 2))
    hits = np.cumsum(rel, axis=1)
    dcg = np.cumsum(gain * disc[:depth], axis=1)
    positive = grades > 0
    pq, pg = qidx[positive], grades[positive]
    o = np.lexsort((-pg, pq))
    pq, pg = pq[o], pg[o]
    rank = np.arange(len(pq)) - np.searchsorted(pq, pq)
    keep = rank < kmax
    ideal = np.zeros((n_q, kmax))
    ideal[pq[keep], rank[keep]] = pg[keep] * disc[rank[keep]]
    ideal = np.cumsum(ideal, axis=1)
    out: dict[str, float] = {}
    for k in KS:
        m = min(k, depth)
        out[f"recall@{k}"] = float((hits[:, m - 1] / n_rel).mean())
        out[f"P@{k}"] = float((hits[:, m - 1] / k).mean())
        out[f"ndcg@{k}"] = float((dcg[:, m - 1] / ideal[:, k - 1]).mean())
    first = rel.argmax(axis=1)
    out["mrr"] = float(np.where(rel.any(axis=1), 1.0 / (first + 1), 0.0).mean())
    return out


def trec_dicts(ranked: I64, qrels: list[dict[int, int]]) -> tuple[dict[str, Any], dict[str, Any]]:
    """pytrec_eval's input: {qid: {doc: grade}} and {qid: {doc: score}}, str ids."""
    depth = ranked.shape[1]
    scores = [float(depth - r) for r in range(depth)]
    qd = {str(i): {str(d): g for d, g in judged.items()} for i, judged in enumerate(qrels)}
    rd = {
        str(i): {str(d): s for d, s in zip(row, scores, strict=True) if d >= 0}
        for i, row in enumerate(ranked.tolist())
    }
    return qd, rd


PYTREC_MEASURES = {f"{m}.{','.join(map(str, KS))}" for m in ("recall", "P", "ndcg_cut")} | {
    "recip_rank"
}


def pytrec(qd: dict[str, Any], rd: dict[str, Any]) -> dict[str, float]:
    import pytrec_eval

    per_query = pytrec_eval.RelevanceEvaluator(qd, PYTREC_MEASURES).evaluate(rd)
    n = len(per_query)
    names = {f"recall_{k}": f"recall@{k}" for k in KS}
    names |= {f"P_{k}": f"P@{k}" for k in KS} | {f"ndcg_cut_{k}": f"ndcg@{k}" for k in KS}
    names["recip_rank"] = "mrr"
    sums = dict.fromkeys(names.values(), 0.0)
    for measures in per_query.values():
        for src, dst in names.items():
            sums[dst] += measures[src]
    return {k: v / n for k, v in sums.items()}


RANX_METRICS = [f"{m}@{k}" for m in ("recall", "precision", "ndcg") for k in KS] + ["mrr"]


def ranx_typed(ranked: I64, qrels: list[dict[int, int]]) -> tuple[Any, Any]:
    """ranx's internal input: numba typed lists of (doc, value) arrays, sorted."""
    from numba.core.errors import NumbaTypeSafetyWarning
    from numba.typed import List as TypedList
    from ranx.utils import descending_sort_parallel

    # ranx's own sort casts uint64 indices to int64; harmless, and not ours to fix.
    warnings.filterwarnings("ignore", category=NumbaTypeSafetyWarning)

    depth = ranked.shape[1]
    scores = np.arange(depth, 0, -1, dtype=np.float64)
    q_list = TypedList(
        [
            np.asarray([[d, g] for d, g in judged.items()], dtype=np.float64).reshape(-1, 2)
            for judged in qrels
        ]
    )
    r_list = TypedList(
        [
            np.column_stack((row[row >= 0].astype(np.float64), scores[: int((row >= 0).sum())]))
            for row in ranked
        ]
    )
    return descending_sort_parallel(q_list), descending_sort_parallel(r_list)


def ranx_eval(q_list: Any, r_list: Any) -> dict[str, float]:
    from ranx import evaluate

    got = evaluate(q_list, r_list, RANX_METRICS, threads=1)
    out = {name.replace("precision@", "P@"): float(v) for name, v in got.items()}
    return out


# ---- the run ----------------------------------------------------------------------------


def _agree(ours: dict[str, float], theirs: dict[str, float], who: str, tol: float) -> None:
    for name, value in ours.items():
        if abs(value - theirs[name]) > tol:
            msg = f"{who} disagrees with the native kernel on {name}: {theirs[name]} vs {value}"
            raise RuntimeError(msg)


def _ranx_ready() -> bool:
    # One thread, set before numba is first imported (and again in case it already was).
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    try:
        import numba
        import ranx  # noqa: F401
    except ImportError:
        return False
    numba.set_num_threads(1)
    return True


def _pytrec_ready() -> bool:
    return installed("pytrec_eval")


def _case(w: Workload, repeats: int, warmup: int) -> list[BenchRow]:
    arrays = (w.ranked, w.offsets, w.docs, w.grades)
    reference = native(*arrays)
    _agree(reference, numpy_vectorized(*arrays), "numpy", 1e-9)
    compute: dict[str, Callable[[], object]] = {
        "gaia_eval (native)": lambda: native(*arrays),
        "numpy (vectorized)": lambda: numpy_vectorized(*arrays),
    }

    def native_natural() -> object:
        return native(w.ranked, *trec.qrels_to_csr(w.qrels))

    def numpy_natural() -> object:
        return numpy_vectorized(w.ranked, *trec.qrels_to_csr(w.qrels))

    natural: dict[str, Callable[[], object]] = {
        "gaia_eval (native)": native_natural,
        "numpy (vectorized)": numpy_natural,
    }
    skipped: list[BenchRow] = []
    if _pytrec_ready():
        qd, rd = trec_dicts(w.ranked, w.qrels)
        _agree(reference, pytrec(qd, rd), "pytrec_eval", 1e-9)
        compute["pytrec_eval"] = lambda: pytrec(qd, rd)
        natural["pytrec_eval"] = lambda: pytrec(*trec_dicts(w.ranked, w.qrels))
    else:
        skipped.append(BenchRow(w.label, "pytrec_eval", math.nan, note="skipped: not installed"))
    if _ranx_ready():
        ql, rl = ranx_typed(w.ranked, w.qrels)
        _agree(reference, ranx_eval(ql, rl), "ranx", 1e-6)
        compute["ranx (numba, 1 thread)"] = lambda: ranx_eval(ql, rl)
        natural["ranx (numba, 1 thread)"] = lambda: ranx_eval(*ranx_typed(w.ranked, w.qrels))
    else:
        skipped.append(BenchRow(w.label, "ranx", math.nan, note="skipped: not installed"))

    rows: list[BenchRow] = []
    for mode, impls in (("compute", compute), ("from natural input", natural)):
        medians = time_interleaved(impls, repeats=repeats, warmup=warmup)
        rows += ratio_rows(w.label, medians, mode)
    return rows + skipped


def run(quick: bool) -> list[BenchRow]:
    """Small case first: its warm-up also compiles ranx's numba kernels."""
    if quick:
        return _case(Workload(1_000, 20), repeats=3, warmup=1) + _case(
            Workload(10_000, 100), repeats=3, warmup=1
        )
    return _case(Workload(1_000, 20), repeats=7, warmup=2) + _case(
        Workload(100_000, 100), repeats=5, warmup=1
    )
