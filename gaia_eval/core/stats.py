"""Statistics helpers. Both percentile definitions are named, because suites differ:
RAG latency uses linear interpolation, code retrieval uses nearest rank."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction


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
