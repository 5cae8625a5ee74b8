"""The code-retrieval gate as rules on the engine's gate (pure; no I/O).

The engine refuses a different suite, embedder, system, configuration or instance set
(exit 3) and fails a baseline item that this run did not measure -- including a whole part
in the baseline that was not run now. Here: a semantic metric of any summary set may drop
by at most the tolerance (default 0.05); the incremental replay must be correct; a
robustness scenario that loses `passed` or `recovers`, or a hazard that passed and does not
now, fails; a new scenario that fails, fails. A part measured now but absent from the
baseline is reported as not gated. Scale numbers are never gated.
"""

from __future__ import annotations

from gaia_eval.code_retrieval.models import CodeSummary
from gaia_eval.code_retrieval.quality import distinct_sets
from gaia_eval.core.compare.metrics import ItemMetric, collect, from_checks
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule
from gaia_eval.core.results import Envelope

MAX_DROP = 0.05
GATED = (
    "file_recall@1",
    "file_recall@5",
    "file_recall@10",
    "file_mrr",
    "symbol_recall@5",
    "symbol_recall@10",
)


def _summary(env: Envelope) -> CodeSummary:
    return CodeSummary.model_validate(env.summary)


def metrics(env: Envelope) -> dict[str, Metric]:
    q = _summary(env).quality
    if q is None:
        return {}
    return {
        f"{name}/semantic {m}": Metric(s.semantic.get(m), s.queries)
        for name, s in distinct_sets(q.summary).items()
        for m in GATED
    }


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    s = _summary(env)
    out: dict[tuple[str, str], bool | None] = {}
    if s.incremental is not None:
        out["incremental", "correct"] = s.incremental.correct
    if s.robustness is not None:
        for sc in s.robustness.scenarios:
            out["robustness", f"scenario {sc.name} passed"] = sc.passed
            out["robustness", f"scenario {sc.name} recovers"] = sc.recovers
        for h in s.robustness.trees:
            out["robustness", f"hazard {h.name}"] = h.status == "pass"
    return out


def extra(baseline: Envelope, current: Envelope) -> tuple[list[str], list[str]]:
    failures: list[str] = []
    notes: list[str] = []
    b, c = _summary(baseline), _summary(current)
    if c.incremental is not None and not c.incremental.correct:
        failures.append("incremental re-index drifted from a fresh index")
    if b.robustness is not None and c.robustness is not None:
        before = {sc.name for sc in b.robustness.scenarios}
        for sc in c.robustness.scenarios:
            if sc.name not in before and not sc.passed:
                failures.append(f"new robustness scenario {sc.name} fails")
    for part in ("quality", "incremental", "robustness"):
        if getattr(b, part) is None and getattr(c, part) is not None:
            notes.append(f"the {part} part is not in the baseline: reported, not gated")
    if c.scale is not None:
        notes.append("scale figures are reported, never gated")
    return failures, notes


def compare_metrics(env: Envelope) -> list[ItemMetric]:
    """For `gaia-eval compare`, per scored quality query of the semantic retriever: file
    recall@5 and file reciprocal rank (gated, as the gate gates their means), and symbol
    recall@5 where gold symbols exist. The grep baseline does not change between runs."""
    from gaia_eval.code_retrieval.models import QueryRecord

    scored = [
        (rec.id, q.semantic)
        for rec in env.items
        if rec.id.startswith("quality/") and rec.result
        if (q := QueryRecord.model_validate(rec.result)).status == "scored" and q.semantic
    ]
    return [
        collect(
            "semantic file recall@5",
            "continuous",
            ((i, s.files.get("recall@5"), None) for i, s in scored),
            gated=True,
        ),
        collect(
            "semantic file rr",
            "continuous",
            ((i, s.files.get("rr"), None) for i, s in scored),
            gated=True,
        ),
        collect(
            "semantic symbol recall@5",
            "continuous",
            ((i, (s.symbols or {}).get("recall@5"), None) for i, s in scored),
            gated=True,
        ),
    ]


def item_metrics(env: Envelope) -> list[ItemMetric]:
    """compare_metrics, then the gate's item checks (scenarios, hazards) as pass/fail."""
    return compare_metrics(env) + from_checks(GATE, env)


GATE = GateRules(
    metrics=tuple(MetricRule(f"*/semantic {m}") for m in GATED),
    checks=(
        CheckRule("scenario * passed"),
        CheckRule("scenario * recovers"),
        CheckRule("hazard *"),
        CheckRule("correct", must_still_pass=False),  # extra() fails any drift
    ),
    default_tolerance=MAX_DROP,
    unasked_fail=True,
    read_metrics=metrics,
    read_checks=checks,
    extra=extra,
    item_metrics=item_metrics,
)
