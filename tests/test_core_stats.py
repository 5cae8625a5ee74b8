"""Statistics helpers: both percentile definitions against exact oracles and numpy."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gaia_eval.core import stats

finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)
samples = st.lists(finite, min_size=1, max_size=60)
percents = st.one_of(
    st.integers(min_value=0, max_value=100),
    st.floats(min_value=0, max_value=100, allow_nan=False),
)


def nearest_rank_oracle(values: list[float], p: float) -> float:
    """The textbook definition with exact arithmetic on p as written in decimal."""
    data = sorted(values)
    for rank in range(1, len(data) + 1):
        if Fraction(rank, len(data)) * 100 >= Fraction(repr(float(p))):
            return data[rank - 1]
    return data[-1]


@given(samples, percents)
def test_nearest_rank_matches_exact_oracle(values: list[float], p: float) -> None:
    assert stats.percentile_nearest_rank(values, p) == nearest_rank_oracle(values, p)


@given(samples, st.integers(min_value=0, max_value=100))
def test_nearest_rank_is_a_sample_value_and_close_to_numpy(values: list[float], p: int) -> None:
    got = stats.percentile_nearest_rank(values, p)
    assert got in values
    # numpy's inverted_cdf is the same definition, computed in floats: it may pick the
    # next sample over at an exact boundary (see the regression test below), never further.
    data = sorted(values)
    want = float(np.percentile(values, p, method="inverted_cdf"))
    assert abs(data.index(got) - data.index(want)) <= 1


def test_nearest_rank_exact_at_float_boundaries() -> None:
    values = list(range(1, 26))
    # 28% of 25 values is exactly 7; in floats 28 / 100 * 25 = 7.000000000000001.
    assert stats.percentile_nearest_rank(values, 28) == 7
    assert float(np.percentile(values, 28, method="inverted_cdf")) == 8  # numpy's float slip
    assert stats.percentile_nearest_rank(list(range(1, 1001)), 99.9) == 999


@given(samples, percents)
def test_linear_matches_numpy(values: list[float], p: float) -> None:
    want = float(np.percentile(values, p, method="linear"))
    assert stats.percentile_linear(values, p) == pytest.approx(want, rel=1e-9, abs=1e-6)


def test_the_two_definitions_differ_where_they_should() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert stats.percentile_nearest_rank(values, 50) == 20.0
    assert stats.percentile_linear(values, 50) == 25.0
    assert stats.median(values) == 25.0
    assert stats.percentile_nearest_rank(values, 0) == 10.0
    assert stats.percentile_nearest_rank(values, 100) == 40.0


@given(samples)
def test_mean_and_median(values: list[float]) -> None:
    assert stats.mean(values) == pytest.approx(math.fsum(values) / len(values))
    assert stats.median(values) == pytest.approx(float(np.median(values)), rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("p", [-0.1, 100.5, math.nan])
def test_percent_out_of_range(p: float) -> None:
    with pytest.raises(ValueError, match="p must be within"):
        stats.percentile_linear([1.0], p)
    with pytest.raises(ValueError, match="p must be within"):
        stats.percentile_nearest_rank([1.0], p)


def test_empty_values_are_errors() -> None:
    for fn in (stats.mean, stats.median, stats.bootstrap_ci):
        with pytest.raises(ValueError, match="must not be empty"):
            fn([])
    with pytest.raises(ValueError, match="must not be empty"):
        stats.percentile_nearest_rank([], 50)


def test_bootstrap_ci_is_seeded_and_brackets_the_mean() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(10.0, 2.0, size=200).tolist()
    lo, hi = stats.bootstrap_ci(values, resamples=500)
    assert (lo, hi) == stats.bootstrap_ci(values, resamples=500)
    assert lo < stats.mean(values) < hi
    # The standard error of the mean is 2 / sqrt(200) = 0.14: a 95% CI is about +-0.28.
    assert 0.3 < hi - lo < 0.9
    assert stats.bootstrap_ci(values, resamples=500, seed=1) != (lo, hi)
    with pytest.raises(ValueError, match="confidence"):
        stats.bootstrap_ci(values, confidence=1.0)


def test_bootstrap_ci_of_a_constant_is_that_constant() -> None:
    assert stats.bootstrap_ci([4.0] * 10, stats.median, resamples=50) == (4.0, 4.0)
