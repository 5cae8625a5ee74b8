"""The sessions gate (rules as data): the mean judge score and the pass rate may drop by a
quarter point and ten points, widened to two cases' worth on small sets.

Per case (a case's repeats resampled together), `gaia-eval compare` tests the judge score
and the pass (score >= 3.5), both gated as the gate gates their means, and the agent's
seconds and output tokens (lower is better, not gated); the gate rows' intervals and
p-values pair the same per-case scores."""

from __future__ import annotations

from gaia_eval.core.compare.metrics import ItemMetric, collect
from gaia_eval.core.gate import GateRules, Metric, MetricRule
from gaia_eval.core.results import Envelope
from gaia_eval.sessions.results import PASS_SCORE, CaseResult, Scorecard


def metrics(env: Envelope) -> dict[str, Metric]:
    s = Scorecard.model_validate(env.summary)
    return {
        "mean_score": Metric(s.mean_score, s.scored),
        "pass_rate": Metric(None if s.pass_rate is None else float(s.pass_rate), s.scored),
    }


def _results(env: Envelope) -> list[tuple[str, CaseResult]]:
    """(record id, result) of every measured replay."""
    return [(rec.id, CaseResult.model_validate(rec.result)) for rec in env.items if rec.result]


def compare_metrics(env: Envelope) -> list[ItemMetric]:
    """What `gaia-eval compare` tests per case (the unit; repeats are its values)."""
    rows = _results(env)
    scored = [(i, r) for i, r in rows if r.score is not None]
    return [
        collect("judge score", "continuous", ((r.case, r.score, i) for i, r in scored), gated=True),
        collect(
            "passed (score >= 3.5)",
            "binary",
            ((r.case, r.score is not None and r.score >= PASS_SCORE, i) for i, r in scored),
            gated=True,
        ),
        collect(
            "agent seconds",
            "continuous",
            ((r.case, r.agent_seconds, i) for i, r in rows),
            higher_is_better=False,
        ),
        collect(
            "agent output tokens",
            "continuous",
            ((r.case, float(r.agent_output_tokens), i) for i, r in rows),
            higher_is_better=False,
        ),
    ]


def item_values(env: Envelope) -> dict[str, ItemMetric]:
    """The gated metrics per case, keyed as `metrics` names them: the score, and the pass
    as 100 or 0 (pass_rate is an integer percent, so its change reads in points)."""
    scored = [(i, r) for i, r in _results(env) if r.score is not None]
    return {
        "mean_score": collect(
            "mean_score", "continuous", ((r.case, r.score, i) for i, r in scored)
        ),
        "pass_rate": collect(
            "pass_rate",
            "binary",
            ((r.case, 100.0 if (r.score or 0) >= PASS_SCORE else 0.0, i) for i, r in scored),
        ),
    }


GATE = GateRules(
    metrics=(
        MetricRule("mean_score", absolute=0.25, widen_items=2.0),
        MetricRule("pass_rate", absolute=10.0, widen_items=100.0),
    ),
    read_metrics=metrics,
    item_metrics=compare_metrics,
    read_item_values=item_values,
)
