"""The benchmark's summary of a results.json (pure): every level's stats, and the spread
of the key numbers over repeats."""

from __future__ import annotations

from typing import Any

from gaia_eval.core.models import Variance
from gaia_eval.core.results import Envelope
from gaia_eval.core.stats import variance_stats
from gaia_eval.throughput.metrics import FORMULAS
from gaia_eval.throughput.models import BenchmarkSummary, LevelResult, LevelStats

# Metrics whose spread over repeats the summary reports.
_VARIANCE_METRICS = (
    "ttft_ms.p50",
    "ttft_ms.p99",
    "tpot_ms.p50",
    "itl_ms.p50",
    "e2e_ms.p50",
    "output_tokens_per_s",
    "requests_per_s",
    "triage.within_one_bucket_accuracy",
    "triage.urgent_vs_not_accuracy",
    "triage.urgent_recall",
    "triage.personal_recall",
    "triage.category_accuracy",
)


def level_results(env: Envelope) -> list[LevelResult]:
    return [LevelResult.model_validate(r.result) for r in env.items if r.result is not None]


def _pick(stats: LevelStats, path: str) -> float | None:
    obj: Any = stats
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return float(obj)


def summarise(env: Envelope) -> BenchmarkSummary:
    results = level_results(env)
    levels = [r.stats for r in results]
    server = env.setup.get("server") or {}
    groups: dict[str, list[LevelStats]] = {}
    for s in levels:
        groups.setdefault(s.level.split("#", 1)[0], []).append(s)
    variance: dict[str, dict[str, Variance]] = {}
    repeats = int(env.header.settings.get("repeats", 1) or 1)
    if repeats > 1:
        for base, group in groups.items():
            per: dict[str, Variance] = {}
            for metric in _VARIANCE_METRICS:
                values = [v for s in group if (v := _pick(s, metric)) is not None]
                if values:
                    per[metric] = Variance.model_validate(variance_stats(values))
            variance[base] = per
    return BenchmarkSummary(
        workload=env.header.tier,
        api=str(server.get("api", "openai")),
        levels=levels,
        variance=variance,
        all_failed=bool(env.items) and not any(s.completed for s in levels),
        client_limited=any(s.client_limited for s in levels),
        formulas=FORMULAS,
    )
