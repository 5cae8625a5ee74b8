"""The paired resampling kernel against a pure-Python oracle of the same definition.

csrc/core/resample.hpp defines every step (splitmix64, multiply-shift indices, top-bit
signs, summation order, linear percentiles), so the oracle here must give the same floats
exactly, not merely close ones.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gaia_eval import _core, _native

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed: int) -> None:
        self.state = seed

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return (self.next() * n) >> 64


def oracle_values(
    baseline: list[float], current: list[float], clusters: list[int] | None
) -> list[float]:
    if clusters is None:
        return [c - b for b, c in zip(baseline, current, strict=True)]
    k = max(clusters) + 1
    sums = [0.0] * k
    counts = [0] * k
    for b, c, g in zip(baseline, current, clusters, strict=True):
        sums[g] += c - b
        counts[g] += 1
    return [s / n for s, n in zip(sums, counts, strict=True)]


def oracle_mean(values: list[float]) -> float:
    s = 0.0
    for v in values:
        s += v
    return s / len(values)


def oracle_percentile(data: list[float], p: float) -> float:
    pos = (len(data) - 1) * p / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def oracle_normal_cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def oracle_normal_quantile(p: float) -> float:
    """Acklam's approximation and one Halley step, as resample.cpp computes it."""
    a = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02,
         1.383577518672690e02, -3.066479806614716e01, 2.506628277459239e00)  # fmt: skip
    b = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02,
         6.680131188771972e01, -1.328068155288572e01)  # fmt: skip
    c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00,
         -2.549732539343734e00, 4.374664141464968e00, 2.938163982698783e00)  # fmt: skip
    d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00,
         3.754408661907416e00)  # fmt: skip
    if p < 0.02425:
        q = math.sqrt(-2.0 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0
        )
    elif p <= 1.0 - 0.02425:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0)
        )
    else:
        q = math.sqrt(-2.0 * math.log(1.0 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0
        )
    e = oracle_normal_cdf(x) - p
    u = e * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - u / (1.0 + x * u / 2.0)


def oracle_bootstrap(
    values: list[float], resamples: int, seed: int, confidence: float, bca: bool = False
) -> tuple[float, float, float]:
    rng = SplitMix64(seed)
    k = len(values)
    stats = []
    for _ in range(resamples):
        s = 0.0
        for _ in range(k):
            s += values[rng.below(k)]
        stats.append(s / k)
    stats.sort()
    estimate = oracle_mean(values)
    tail = (1.0 - confidence) / 2.0
    lo, hi = tail, 1.0 - tail
    if bca:
        share = sum(1 for v in stats if v < estimate) / resamples
        s2 = s3 = 0.0
        for v in values:
            dev = v - estimate
            s2 += dev * dev
            s3 += dev * dev * dev
        if s2 > 0.0 and 0.0 < share < 1.0:
            accel = s3 / (6.0 * s2**1.5)
            z0 = oracle_normal_quantile(share)

            z_lo = z0 + oracle_normal_quantile(tail)
            z_hi = z0 + oracle_normal_quantile(1.0 - tail)
            den_lo, den_hi = 1.0 - accel * z_lo, 1.0 - accel * z_hi
            if den_lo > 0.0 and den_hi > 0.0:
                lo = oracle_normal_cdf(z0 + z_lo / den_lo)
                hi = oracle_normal_cdf(z0 + z_hi / den_hi)
    return estimate, oracle_percentile(stats, lo * 100.0), oracle_percentile(stats, hi * 100.0)


def oracle_sign_flip(values: list[float], resamples: int, seed: int) -> float:
    observed = abs(oracle_mean(values))
    bar = observed - 1e-9 * max(1.0, observed)
    rng = SplitMix64(seed)
    extreme = 0
    for _ in range(resamples):
        s = 0.0
        bits = 0
        for j, v in enumerate(values):
            if j % 64 == 0:
                bits = rng.next()
            s += -v if (bits >> (63 - j % 64)) & 1 else v
        if abs(s / len(values)) >= bar:
            extreme += 1
    return (1 + extreme) / (1 + resamples)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def paired(draw: st.DrawFn) -> tuple[list[float], list[float], list[int] | None]:
    n = draw(st.integers(1, 150))
    baseline = draw(st.lists(finite, min_size=n, max_size=n))
    current = draw(st.lists(finite, min_size=n, max_size=n))
    clusters = None
    if draw(st.booleans()):
        k = draw(st.integers(1, n))
        # every cluster 0..k-1 gets a row, the rest land anywhere
        rest = draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
        clusters = draw(st.permutations(list(range(k)) + rest))
    return baseline, current, clusters


@pytest.mark.parametrize("method", ["percentile", "bca"])
@settings(max_examples=100, deadline=None)
@given(
    data=paired(),
    resamples=st.integers(1, 100),
    seed=st.integers(0, 2**64 - 1),
    confidence=st.floats(0.5, 0.999),
)
def test_bootstrap_equals_oracle(
    method: Literal["percentile", "bca"],
    data: tuple[list[float], list[float], list[int] | None],
    resamples: int,
    seed: int,
    confidence: float,
) -> None:
    baseline, current, clusters = data
    got = _native.paired_bootstrap(
        baseline,
        current,
        clusters=clusters,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
        method=method,
    )
    values = oracle_values(baseline, current, clusters)
    want = oracle_bootstrap(values, resamples, seed, confidence, bca=method == "bca")
    assert got.estimate == want[0] and got.low <= got.high
    if method == "percentile":
        assert tuple(got) == want
    else:
        # erfc/exp/log/pow are libm's on both sides; the BCa levels may still differ in
        # the last bit, which moves an interpolated end by far less than this
        assert got.low == pytest.approx(want[1], rel=1e-9, abs=1e-12)
        assert got.high == pytest.approx(want[2], rel=1e-9, abs=1e-12)


def test_normal_quantile_is_accurate() -> None:
    from statistics import NormalDist

    for p in (1e-10, 0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999999):
        assert oracle_normal_quantile(p) == pytest.approx(NormalDist().inv_cdf(p), rel=1e-9)


def test_bca_matches_scipy_on_skewed_data() -> None:
    scipy_stats = pytest.importorskip("scipy.stats")  # the bench group pins it; CI has it
    rng = np.random.default_rng(5)
    base = np.zeros(300)
    cur = rng.exponential(1.0, 300)  # strongly skewed: BCa moves the interval right
    ours = _native.paired_bootstrap(base, cur, resamples=20000, seed=2, method="bca")
    pct = _native.paired_bootstrap(base, cur, resamples=20000, seed=2)
    ref = scipy_stats.bootstrap(
        (base, cur), lambda x, y, axis: np.mean(y - x, axis=axis), paired=True,
        vectorized=True, n_resamples=20000, method="BCa", rng=np.random.default_rng(2),
    ).confidence_interval  # fmt: skip
    width = ours.high - ours.low
    assert abs(ours.low - ref.low) < 0.05 * width and abs(ours.high - ref.high) < 0.05 * width
    assert ours.low > pct.low and ours.high > pct.high


@settings(max_examples=150, deadline=None)
@given(data=paired(), resamples=st.integers(1, 200), seed=st.integers(0, 2**64 - 1))
def test_sign_flip_equals_oracle(
    data: tuple[list[float], list[float], list[int] | None], resamples: int, seed: int
) -> None:
    baseline, current, clusters = data
    got = _native.paired_sign_flip(
        baseline, current, clusters=clusters, resamples=resamples, seed=seed
    )
    values = oracle_values(baseline, current, clusters)
    assert got.estimate == oracle_mean(values)
    assert got.p_value == oracle_sign_flip(values, resamples, seed)
    assert 1 / (1 + resamples) <= got.p_value <= 1.0


def test_generator_matches_the_published_splitmix64() -> None:
    # Reference outputs of splitmix64 seeded with 1234567 (from Vigna's splitmix64.c).
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_a_real_shift_is_found_and_no_shift_is_not() -> None:
    rng = np.random.default_rng(7)
    base = rng.normal(0.5, 0.1, 200)
    shifted = base + 0.05 + rng.normal(0, 0.02, 200)
    test = _native.paired_sign_flip(base, shifted, resamples=5000, seed=3)
    ci = _native.paired_bootstrap(base, shifted, resamples=5000, seed=3)
    assert test.p_value < 0.001
    assert 0.04 < ci.low < 0.05 < ci.high < 0.06
    same = _native.paired_sign_flip(base, base, resamples=5000, seed=3)
    assert same.estimate == 0.0 and same.p_value == 1.0


def test_clusters_keep_repeats_together() -> None:
    # Two items, each run five times: as clusters there are two units, not ten, so the
    # interval is as wide as the two item means allow.
    base = [0.0] * 10
    cur = [1.0] * 5 + [0.0] * 5
    clustered = _native.paired_bootstrap(
        base, cur, clusters=[0] * 5 + [1] * 5, resamples=2000, seed=1
    )
    assert (clustered.low, clustered.high) == (0.0, 1.0)
    flat = _native.paired_bootstrap(base, cur, resamples=2000, seed=1)
    assert flat.low > 0.1 and flat.high < 0.9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"baseline": [], "current": []}, "baseline must not be empty"),
        ({"baseline": [1.0, 2.0], "current": [1.0]}, "current has 1 values but baseline has 2"),
        (
            {"baseline": [1.0, float("nan")], "current": [1.0, 2.0]},
            r"baseline\[1\] is not a finite",
        ),
        ({"baseline": [1.0], "current": [float("inf")]}, r"current\[0\] is not a finite"),
        ({"baseline": [1.0], "current": [2.0], "resamples": 0}, "resamples must be within"),
        ({"baseline": [1.0], "current": [2.0], "seed": -1}, "seed must be an int"),
        ({"baseline": [1.0, 2.0], "current": [2.0, 3.0], "clusters": [0]}, "clusters has 1"),
        (
            {"baseline": [1.0, 2.0], "current": [2.0, 3.0], "clusters": [0, 2]},
            "cluster 1 has no rows",
        ),
        ({"baseline": [1.0, 2.0], "current": [2.0, 3.0], "clusters": [0, -1]}, "outside"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_argument(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _native.paired_bootstrap(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        _native.paired_sign_flip(**kwargs)  # type: ignore[arg-type]


def test_the_binding_checks_its_arguments_too() -> None:
    ok = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="float64"):
        _core.paired_bootstrap(np.array([1, 2]), ok, None, 10, 0, 0.95, False)
    with pytest.raises(TypeError, match="ndarray"):
        _core.paired_sign_flip([1.0, 2.0], ok, None, 10, 0)
    with pytest.raises(ValueError, match="not a finite"):
        _core.paired_sign_flip(np.array([1.0, np.nan]), ok, None, 10, 0)
    with pytest.raises(ValueError, match="resamples"):
        _core.paired_sign_flip(ok, ok, None, 10**9, 0)
    with pytest.raises(ValueError, match="confidence"):
        _core.paired_bootstrap(ok, ok, None, 10, 0, 1.5, False)
    with pytest.raises(ValueError, match="outside"):
        _core.paired_bootstrap(ok, ok, np.array([0, -1], dtype=np.int64), 10, 0, 0.9, True)
