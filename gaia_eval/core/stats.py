"""Statistics helpers. Both percentile definitions are named, because suites differ:
RAG latency uses linear interpolation, code retrieval uses nearest rank.

The paired tests of `gaia-eval compare` live here too: Wilson intervals for proportions,
the exact McNemar (sign) test for paired pass/fail, the native paired bootstrap and
sign-flip permutation for continuous per-item values, Holm's correction, the minimum
detectable effect, and the call that turns them into one word (`call`)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Literal

from gaia_eval import _native


def _checked(values: Sequence[float], p: float) -> list[float]:
    if not 0 <= p <= 100:
        msg = f"p must be within [0, 100], got {p}"
        raise ValueError(msg)
    if not values:
        msg = "values must not be empty"
        raise ValueError(msg)
    return sorted(float(v) for v in values)


def percentile_nearest_rank(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile: the smallest value with at least p% of values <= it.

    The rank is computed exactly from p as written in decimal: in floats 28 / 100 * 25 is
    7.000000000000001, whose ceiling would pick the 8th value instead of the 7th (numpy's
    'inverted_cdf' method makes that error).
    """
    data = _checked(values, p)
    rank = max(1, math.ceil(Fraction(repr(float(p))) * len(data) / 100))
    return data[rank - 1]


def percentile_linear(values: Sequence[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default 'linear' method)."""
    data = _checked(values, p)
    pos = (len(data) - 1) * p / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def mean(values: Sequence[float]) -> float:
    if not values:
        msg = "values must not be empty"
        raise ValueError(msg)
    return math.fsum(values) / len(values)


def median(values: Sequence[float]) -> float:
    return percentile_linear(values, 50)


def bootstrap_ci(
    values: Sequence[float],
    statistic: Callable[[Sequence[float]], float] = mean,
    *,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int = 20260930,
) -> tuple[float, float]:
    """Percentile bootstrap confidence interval of `statistic`, seeded for repeatability."""
    if not 0 < confidence < 1:
        msg = f"confidence must be within (0, 1), got {confidence}"
        raise ValueError(msg)
    if not values:
        msg = "values must not be empty"
        raise ValueError(msg)
    rng = random.Random(seed)
    n = len(values)
    stats = [statistic([values[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples)]
    alpha = (1 - confidence) / 2 * 100
    return percentile_linear(stats, alpha), percentile_linear(stats, 100 - alpha)


def mean_interval(
    values: Sequence[float],
    kind: Literal["binary", "continuous"],
    alpha: float = 0.05,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float]:
    """Interval of one run's mean over units: Wilson for one 0/1 value per unit, else the
    (native) bootstrap of the mean."""
    if kind == "binary" and all(v in (0.0, 1.0) for v in values):
        return wilson(int(sum(values)), len(values), 1 - alpha)
    ci = _native.paired_bootstrap(
        [0.0] * len(values), list(values), resamples=resamples, seed=seed, confidence=1 - alpha
    )
    return ci.low, ci.high


# ---- paired comparison ------------------------------------------------------------------

MIN_PAIRED = 10
"""Fewer paired items than this: the tests cannot detect anything a person would care
about, so the comparison says so instead of printing a p-value as if it meant something."""

POWER = 0.8

Call = Literal["better", "worse", "no detectable change", "inconclusive"]
Kind = Literal["binary", "continuous"]


def _z(q: float) -> float:
    return NormalDist().inv_cdf(q)


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion successes / n (well-behaved at 0 and 1)."""
    if n < 1 or not 0 <= successes <= n:
        msg = f"need 0 <= successes <= n and n >= 1, got {successes} of {n}"
        raise ValueError(msg)
    if not 0 < confidence < 1:
        msg = f"confidence must be within (0, 1), got {confidence}"
        raise ValueError(msg)
    z = _z(1 - (1 - confidence) / 2)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The ends are exact at 0 and n (the formula leaves float dust there).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def mcnemar_exact(gained: int, lost: int) -> float:
    """Two-sided exact McNemar p-value: the sign test of the discordant pairs.

    `gained` items went fail -> pass, `lost` pass -> fail; under no change each discordant
    item is a fair coin, so p = min(1, 2 * P[Binomial(gained + lost, 1/2) <= min]).
    Computed in integers, exact for any count."""
    if gained < 0 or lost < 0:
        msg = f"counts must be >= 0, got {gained} and {lost}"
        raise ValueError(msg)
    n = gained + lost
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(gained, lost) + 1))
    return min(1.0, float(Fraction(2 * tail, 2**n)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given): controls the chance of any
    false "worse" among the metrics one verdict gates, without assuming independence."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    out = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        out[i] = running
    return out


def mde_binary(n: int, discordant: int, alpha: float = 0.05, power: float = POWER) -> float:
    """Smallest change of a pass rate (as a share of items) that `n` paired items detect
    with `power`, at two-sided `alpha`, by McNemar's normal approximation:

        MDE = max(z * sqrt(psi / n), z^2 / n),  z = z[1 - alpha/2] + z[power]

    where psi is the discordance rate (the share of items whose outcome differs between
    the runs). The second term is the case psi = MDE: a change of d needs at least a
    share d of items to flip, so even runs where nothing flipped (psi = 0) state what they
    could have seen. The -delta^2 term under the power root is dropped, so it errs large."""
    z = _z(1 - alpha / 2) + _z(power)
    return max(z * math.sqrt(discordant / n / n), z * z / n)


def mde_continuous(n: int, sd_diff: float, alpha: float = 0.05, power: float = POWER) -> float:
    """Smallest mean change that `n` paired items detect with `power` at two-sided `alpha`,
    normal approximation on the paired differences: (z[1 - alpha/2] + z[power]) * sd / sqrt(n),
    sd the standard deviation of the per-item differences (`paired` substitutes the unpaired
    sqrt(2) x SD of the baseline items when no item moved)."""
    return (_z(1 - alpha / 2) + _z(power)) * sd_diff / math.sqrt(n)


@dataclass(frozen=True)
class PairedResult:
    """One metric compared over paired items."""

    n: int
    baseline: float
    current: float
    delta: float
    low: float
    high: float
    """95% (confidence) interval of delta, paired bootstrap over items."""
    p_value: float | None
    """None when fewer than MIN_PAIRED items: no power, no p-value."""
    test: str
    mde: float


def paired(
    baseline: Sequence[float],
    current: Sequence[float],
    kind: Kind,
    *,
    clusters: Sequence[int] | None = None,
    alpha: float = 0.05,
    resamples: int = 10_000,
    seed: int = 0,
) -> PairedResult:
    """Compare per-item values (rows paired by position; `clusters` groups an item's
    repeats). Binary values are 0/1: the exact McNemar test on items; continuous ones: the
    sign-flip permutation test. Either way the interval is the paired bootstrap."""
    ci = _native.paired_bootstrap(
        baseline, current, clusters=clusters, resamples=resamples, seed=seed, confidence=1 - alpha
    )
    diffs = _item_diffs(baseline, current, clusters)
    n = len(diffs)
    if kind == "binary":
        gained = sum(1 for d in diffs if d > 0)
        lost = sum(1 for d in diffs if d < 0)
        test = "exact McNemar (sign test)"
        p: float | None = mcnemar_exact(gained, lost)
        mde = mde_binary(n, gained + lost, alpha)
    else:
        test = "sign-flip permutation"
        p = _native.paired_sign_flip(
            baseline, current, clusters=clusters, resamples=resamples, seed=seed
        ).p_value
        # When no item moved, the paired SD is 0 and says nothing about what could have
        # been seen: the unpaired SD (sqrt 2 x the baseline items' SD) stands in, the
        # change an unpaired comparison would detect (larger, so it errs conservative).
        sd = _sd(diffs) or math.sqrt(2) * _sd(
            _item_diffs([0.0] * len(baseline), baseline, clusters)
        )
        mde = mde_continuous(n, sd, alpha)
    if n < MIN_PAIRED:
        p = None
        test = f"none: fewer than {MIN_PAIRED} paired items, the test has no power"
    return PairedResult(
        n=n,
        baseline=_cluster_mean(baseline, clusters),
        current=_cluster_mean(current, clusters),
        delta=ci.estimate,
        low=ci.low,
        high=ci.high,
        p_value=p,
        test=test,
        mde=mde,
    )


def _groups(n_rows: int, clusters: Sequence[int] | None) -> list[list[int]]:
    if clusters is None:
        return [[i] for i in range(n_rows)]
    out: dict[int, list[int]] = {}
    for i, c in enumerate(clusters):
        out.setdefault(int(c), []).append(i)
    return [out[c] for c in sorted(out)]


def _item_diffs(
    baseline: Sequence[float], current: Sequence[float], clusters: Sequence[int] | None
) -> list[float]:
    return [
        math.fsum(current[i] - baseline[i] for i in rows) / len(rows)
        for rows in _groups(len(baseline), clusters)
    ]


def _cluster_mean(values: Sequence[float], clusters: Sequence[int] | None) -> float:
    groups = _groups(len(values), clusters)
    return math.fsum(math.fsum(values[i] for i in rows) / len(rows) for rows in groups) / len(
        groups
    )


def _sd(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    m = math.fsum(values) / len(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (len(values) - 1))


def call(
    result: PairedResult,
    *,
    higher_is_better: bool,
    alpha: float = 0.05,
    p_value: float | None = None,
    tolerance: float = 0.0,
) -> Call:
    """One word for a compared metric.

    - better / worse: the (Holm-adjusted, when given as `p_value`) p-value is below alpha;
      the sign of delta against the metric's good direction says which.
    - no detectable change: not significant, and the whole interval lies within
      +-max(MDE, tolerance): any change larger than what this many items could detect
      (or than the gate tolerates) is ruled out.
    - inconclusive: anything else, including fewer than MIN_PAIRED items (no p-value).
    """
    p = result.p_value if p_value is None else p_value
    if result.p_value is None or p is None:
        return "inconclusive"
    if p < alpha and result.delta != 0:
        good = (result.delta > 0) == higher_is_better
        return "better" if good else "worse"
    bound = max(result.mde, tolerance)
    if -bound <= result.low and result.high <= bound:
        return "no detectable change"
    return "inconclusive"
