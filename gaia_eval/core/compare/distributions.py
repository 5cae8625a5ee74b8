"""Percentiles of unpaired readings (latencies per load level) compared with bootstrap
intervals: each run's readings are resampled independently (requests are not paired), the
percentile is taken of every resample, and the interval of the difference is the
2.5th .. 97.5th percentile of the resampled differences. The p-value is the bootstrap's
two-sided one: twice the smaller share of resampled differences on either side of 0.

The call: the interval of the difference excludes 0 -> worse / better by the quantity's
direction; else no detectable change when it lies within +-10% of the baseline value,
inconclusive otherwise. Percentiles are numpy's linear ones (core.stats.percentile_linear).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from gaia_eval.core.compare.metrics import Distribution
from gaia_eval.core.compare.models import CallWord, LatencyComparison
from gaia_eval.core.stats import MIN_PAIRED

STATISTICS = (("p50", 50.0), ("p95", 95.0))
NEGLIGIBLE = 0.10
"""A change within 10% of the baseline value is too small to act on for a latency."""
_BATCH = 256


def _resampled(
    values: npt.NDArray[np.float64], q: float, resamples: int, rng: np.random.Generator
) -> npt.NDArray[np.float64]:
    out = np.empty(resamples)
    n = values.size
    for start in range(0, resamples, _BATCH):
        stop = min(start + _BATCH, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = np.percentile(values[idx], q, axis=1)
    return out


def compare_distributions(
    before: Sequence[Distribution],
    after: Sequence[Distribution],
    *,
    alpha: float,
    resamples: int,
    seed: int,
) -> list[LatencyComparison]:
    now = {(d.group, d.name): d for d in after}
    out: list[LatencyComparison] = []
    for b in before:
        a = now.get((b.group, b.name))
        if a is None or len(b.values) < MIN_PAIRED or len(a.values) < MIN_PAIRED:
            continue
        bv, av = np.asarray(b.values, dtype=np.float64), np.asarray(a.values, dtype=np.float64)
        for label, q in STATISTICS:
            rng = np.random.default_rng(seed)
            rb = _resampled(bv, q, resamples, rng)
            ra = _resampled(av, q, resamples, rng)
            diff = ra - rb
            lo_q, hi_q = 100 * alpha / 2, 100 * (1 - alpha / 2)
            low, high = (float(x) for x in np.percentile(diff, [lo_q, hi_q]))
            p = min(1.0, 2 * min(float(np.mean(diff <= 0)), float(np.mean(diff >= 0))))
            base, cur = float(np.percentile(bv, q)), float(np.percentile(av, q))
            call: CallWord
            if low > 0 or high < 0:
                up = low > 0
                call = "better" if up == b.higher_is_better else "worse"
            elif abs(low) <= NEGLIGIBLE * abs(base) and abs(high) <= NEGLIGIBLE * abs(base):
                call = "no detectable change"
            else:
                call = "inconclusive"
            out.append(
                LatencyComparison(
                    level=b.group,
                    statistic=f"{b.name} {label}",
                    baseline=base,
                    baseline_ci=tuple(float(x) for x in np.percentile(rb, [lo_q, hi_q])),  # type: ignore[arg-type]
                    current=cur,
                    current_ci=tuple(float(x) for x in np.percentile(ra, [lo_q, hi_q])),  # type: ignore[arg-type]
                    delta=cur - base,
                    low=low,
                    high=high,
                    p_value=p,
                    n_baseline=int(bv.size),
                    n_current=int(av.size),
                    call=call,
                )
            )
    return out
