"""pytrec_eval-shaped adapters over the native ranking metrics: {qid: {doc: grade}} qrels
and runs in, `RankingScores` out. Used by the metrics benchmark and the comparisons with
pytrec_eval; the suites call `_native.ranking_metrics` / `first_hit_metrics` directly."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from gaia_eval._native import Int64Array, RankingScores, ranking_metrics


def qrels_to_csr(
    qrels: Sequence[Mapping[int, int]],
) -> tuple[Int64Array, Int64Array, Int64Array]:
    """(qrel_offsets, qrel_docs, qrel_grades) from one {doc id: grade} mapping per query.

    Ids and grades must be ints: a float or str is refused rather than truncated.
    """
    lengths = [len(judged) for judged in qrels]
    offsets = np.zeros(len(qrels) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    docs = np.asarray(list(itertools.chain.from_iterable(j.keys() for j in qrels)))
    grades = np.asarray(list(itertools.chain.from_iterable(j.values() for j in qrels)))
    for name, arr, part in (("doc id", docs, "keys"), ("grade", grades, "values")):
        if arr.size and arr.dtype.kind != "i":
            for q, judged in enumerate(qrels):
                for item in getattr(judged, part)():
                    if isinstance(item, bool) or not isinstance(item, int | np.integer):
                        msg = f"qrels[{q}]: {name} {item!r} must be an int"
                        raise TypeError(msg)
            msg = f"qrels: every {name} must fit in int64"
            raise ValueError(msg)
    return offsets, docs.astype(np.int64).reshape(-1), grades.astype(np.int64).reshape(-1)


def evaluate_run(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float] | Sequence[str]],
    ks: Sequence[int],
) -> RankingScores:
    """The metrics from pytrec_eval-shaped dicts: {qid: {doc: grade}} and a run.

    A run entry is either a ranked list of doc ids (best first) or {doc: score}, ranked
    by score descending with ties broken by doc id descending, as trec_eval does. The
    queries are those of `qrels`, in its order: a query absent from `run` ranked nothing
    and scores 0 (it is not skipped). A run query absent from `qrels` has no relevance
    set, which is an error.
    """
    extra = [qid for qid in run if qid not in qrels]
    if extra:
        msg = f"run: query {extra[0]!r} has no judgements in qrels (no relevance set)"
        raise ValueError(msg)
    qids = tuple(qrels)
    rows: list[list[int]] = []
    csr: list[dict[int, int]] = []
    for qid in qids:
        judged = qrels[qid]
        # Ids local to the query: judged docs 0..n-1, every unjudged doc n (it can never
        # count, so telling unjudged docs apart is not needed).
        local = {doc: i for i, doc in enumerate(judged)}
        csr.append(dict(enumerate(judged.values())))
        entry = run.get(qid, ())
        if isinstance(entry, Mapping):
            ranking: Sequence[str] = [
                doc for doc, _ in sorted(entry.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
            ]
        elif isinstance(entry, str):
            msg = f"run[{qid!r}] must be a list of doc ids or {{doc: score}}, not str"
            raise TypeError(msg)
        else:
            ranking = entry
        unjudged = len(local)
        rows.append([local.get(doc, unjudged) for doc in ranking])
    depth = max((len(r) for r in rows), default=0)
    ranked = np.full((len(rows), depth), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        ranked[i, : len(r)] = r
    offsets, docs, grades = qrels_to_csr(csr)
    try:
        scores = ranking_metrics(ranked, offsets, docs, grades, ks)
    except ValueError as err:
        # Name the query by its id rather than its row.
        text = str(err)
        for i, qid in enumerate(qids):
            if text.startswith(f"query {i} "):
                text = f"query {qid!r} " + text[len(f"query {i} ") :]
                break
        raise ValueError(text) from err
    return RankingScores(
        scores.ks, scores.recall, scores.precision, scores.ndcg, scores.rr, qids=qids
    )
