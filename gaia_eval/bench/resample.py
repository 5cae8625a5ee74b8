"""Paired resampling: the native bootstrap and sign-flip test against scipy.stats.

The same paired data goes to both: per-item scores of a baseline and a current run with a
small real shift. Before any time is reported the answers are checked to agree within
Monte-Carlo error (the generators differ, so the numbers cannot be identical): the
interval ends within a tenth of the interval's width, the p-values within four standard
errors of a resampled proportion. Both sides use the same resample count and the
percentile interval; scipy runs vectorized (its fastest mode) over the whole batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from gaia_eval import _native
from gaia_eval.bench.common import BenchRow, installed, ratio_rows, time_interleaved

TITLE = "paired resampling (bootstrap interval, sign-flip permutation test)"

F64 = npt.NDArray[np.float64]
OURS = "gaia_eval (native)"


def _mean_diff(x: F64, y: F64, axis: int = -1) -> F64:
    return np.mean(y - x, axis=axis)  # type: ignore[no-any-return]


class Workload:
    def __init__(self, n_items: int, resamples: int, seed: int = 11) -> None:
        rng = np.random.default_rng(seed)
        self.label = f"{n_items} items x {resamples} resamples"
        self.resamples = resamples
        self.baseline: F64 = rng.uniform(0, 1, n_items)
        # A shift of about 1.5 standard errors: p lands between 0.05 and 0.3, where the
        # agreement check has something to compare.
        noise = rng.normal(0, 0.2, n_items)
        self.current: F64 = self.baseline + noise + 1.5 * 0.2 / math.sqrt(n_items)


def native_bootstrap(w: Workload) -> tuple[float, float]:
    ci = _native.paired_bootstrap(w.baseline, w.current, resamples=w.resamples, seed=1)
    return ci.low, ci.high


def native_permutation(w: Workload) -> float:
    return _native.paired_sign_flip(w.baseline, w.current, resamples=w.resamples, seed=1).p_value


def scipy_bootstrap(w: Workload) -> tuple[float, float]:
    from scipy import stats

    res = stats.bootstrap(
        (w.baseline, w.current),
        _mean_diff,
        paired=True,
        vectorized=True,
        n_resamples=w.resamples,
        batch=min(w.resamples, 1000),
        method="percentile",
        confidence_level=0.95,
        rng=np.random.default_rng(1),
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def scipy_permutation(w: Workload) -> float:
    from scipy import stats

    res = stats.permutation_test(
        (w.baseline, w.current),
        _mean_diff,
        permutation_type="samples",  # swaps within pairs: the sign flip
        vectorized=True,
        n_resamples=w.resamples,
        batch=min(w.resamples, 1000),
        alternative="two-sided",
        rng=np.random.default_rng(1),
    )
    return float(res.pvalue)


def _agree(w: Workload) -> str:
    low, high = native_bootstrap(w)
    s_low, s_high = scipy_bootstrap(w)
    width = high - low
    if abs(low - s_low) > 0.1 * width or abs(high - s_high) > 0.1 * width:
        msg = f"bootstrap intervals disagree: native [{low}, {high}], scipy [{s_low}, {s_high}]"
        raise AssertionError(msg)
    p, s_p = native_permutation(w), scipy_permutation(w)
    se = math.sqrt(max(p * (1 - p), 1e-4) / w.resamples)
    if abs(p - s_p) > 4 * se + 2 / w.resamples:
        msg = f"permutation p-values disagree: native {p}, scipy {s_p}"
        raise AssertionError(msg)
    ours = f"interval [{low:.4f}, {high:.4f}], p {p:.4f}"
    return f"{ours}; scipy [{s_low:.4f}, {s_high:.4f}], p {s_p:.4f}"


def _case(w: Workload, repeats: int, warmup: int) -> list[BenchRow]:
    if not installed("scipy.stats"):
        return [
            BenchRow(w.label, "scipy.stats", math.nan, note="skipped: scipy not installed"),
        ]
    agreed = _agree(w)
    rows: list[BenchRow] = []
    cases: tuple[tuple[str, dict[str, Callable[[], object]]], ...] = (
        (
            "bootstrap",
            {
                OURS: lambda: native_bootstrap(w),
                "scipy.stats.bootstrap": lambda: scipy_bootstrap(w),
            },
        ),
        (
            "permutation",
            {
                OURS: lambda: native_permutation(w),
                "scipy.stats.permutation_test": lambda: scipy_permutation(w),
            },
        ),
    )
    for mode, impls in cases:
        medians = time_interleaved(impls, repeats=repeats, warmup=warmup)
        rows += ratio_rows(w.label, medians, mode, agreed)
    return rows


def run(quick: bool) -> list[BenchRow]:
    if quick:
        return _case(Workload(200, 2_000), repeats=3, warmup=1)
    return _case(Workload(200, 10_000), repeats=5, warmup=1) + _case(
        Workload(5_000, 10_000), repeats=3, warmup=1
    )
