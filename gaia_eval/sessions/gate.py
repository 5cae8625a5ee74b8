"""The sessions gate (rules as data): the mean judge score and the pass rate may drop by a
quarter point and ten points, widened to two cases' worth on small sets."""

from __future__ import annotations

from gaia_eval.core.gate import GateRules, Metric, MetricRule
from gaia_eval.core.results import Envelope
from gaia_eval.sessions.results import Scorecard


def metrics(env: Envelope) -> dict[str, Metric]:
    s = Scorecard.model_validate(env.summary)
    return {
        "mean_score": Metric(s.mean_score, s.scored),
        "pass_rate": Metric(None if s.pass_rate is None else float(s.pass_rate), s.scored),
    }


GATE = GateRules(
    metrics=(
        MetricRule("mean_score", absolute=0.25, widen_items=2.0),
        MetricRule("pass_rate", absolute=10.0, widen_items=100.0),
    ),
    read_metrics=metrics,
)
