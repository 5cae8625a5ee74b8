"""The gate: a run against a committed baseline (pure; no I/O).

Refuses (NotComparableError) a different suite, embedder or query set. Fails on a semantic
metric that drops by more than the tolerance in any summary set, quality present in only one
run, an incremental replay that is not correct, a robustness scenario that loses `passed` or
`recovers` (or a new one that fails), and a hazard that passed before and does not now.
Scale numbers are never gated.
"""

from __future__ import annotations

from gaia_eval.code_retrieval.models import CodeRetrievalResults, GateVerdict
from gaia_eval.core.errors import NotComparableError

MAX_DROP = 0.05
GATED = (
    "file_recall@1",
    "file_recall@5",
    "file_recall@10",
    "file_mrr",
    "symbol_recall@5",
    "symbol_recall@10",
)


def compare(
    baseline: CodeRetrievalResults, current: CodeRetrievalResults, tolerance: float = MAX_DROP
) -> GateVerdict:
    if baseline.suite != current.suite:
        msg = f"baseline is suite {baseline.suite!r}, this run is {current.suite!r}"
        raise NotComparableError(msg)
    b_emb, c_emb = baseline.environment.embedding_model, current.environment.embedding_model
    if b_emb != c_emb:
        msg = f"baseline used embedder {b_emb!r}, this run {c_emb!r}; re-capture the baseline"
        raise NotComparableError(msg)
    if baseline.query_set != current.query_set:
        msg = "the baseline scored a different query set; re-capture the baseline"
        raise NotComparableError(msg)
    failures: list[str] = []
    checked = 0
    bq, cq = baseline.quality, current.quality
    if (bq is None) != (cq is None):
        failures.append("quality ran in only one of the baseline and this run")
    elif bq is not None and cq is not None:
        b_ids = {r.id for r in bq.queries if r.status == "scored"}
        c_ids = {r.id for r in cq.queries if r.status == "scored"}
        if b_ids - c_ids:
            failures.append(f"scored in the baseline but not now: {sorted(b_ids - c_ids)}")
        for name, b_set in bq.summary.items():
            c_set = cq.summary.get(name)
            if c_set is None:
                failures.append(f"summary set {name!r} is missing from this run")
                continue
            for metric in GATED:
                b, c = b_set.semantic.get(metric), c_set.semantic.get(metric)
                if b is None:
                    continue
                checked += 1
                if c is None or c < b - tolerance:
                    failures.append(f"{name} semantic {metric}: {b} -> {c} (max drop {tolerance})")
    if current.incremental is not None:
        checked += 1
        if not current.incremental.correct:
            failures.append("incremental re-index drifted from a fresh index")
    if baseline.robustness is not None and current.robustness is not None:
        before = {s.name: s for s in baseline.robustness.scenarios}
        for sc in current.robustness.scenarios:
            checked += 1
            old = before.get(sc.name)
            if old is None:
                if not sc.passed:
                    failures.append(f"new robustness scenario {sc.name} fails")
                continue
            if old.passed and not sc.passed:
                failures.append(f"robustness {sc.name} no longer passes")
            if old.recovers and not sc.recovers:
                failures.append(f"robustness {sc.name} no longer recovers")
        hz = {h.name: h.status for h in baseline.robustness.trees}
        for h in current.robustness.trees:
            checked += 1
            if hz.get(h.name) == "pass" and h.status != "pass":
                failures.append(f"hazard {h.name} passed in the baseline, now {h.status}")
    elif baseline.robustness is not None:
        failures.append("robustness ran in the baseline but not in this run")
    return GateVerdict(passed=not failures, tolerance=tolerance, failures=failures, checked=checked)
