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


# ---- paired comparison ----------------------------------------------------------------------


def test_wilson_matches_the_published_example() -> None:
    # Newcombe (1998), Table I: 81 of 263 -> 0.2553 .. 0.3662 (95%)
    lo, hi = stats.wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    assert stats.wilson(0, 10)[0] == 0.0 and stats.wilson(10, 10)[1] == 1.0
    with pytest.raises(ValueError, match="successes"):
        stats.wilson(11, 10)


@given(gained=st.integers(0, 40), lost=st.integers(0, 40))
def test_mcnemar_exact_is_the_two_sided_binomial_sign_test(gained: int, lost: int) -> None:
    n = gained + lost
    if n == 0:
        assert stats.mcnemar_exact(0, 0) == 1.0
        return
    # two-sided by summing every outcome no more likely than the observed one
    probs = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    observed = probs[gained]
    want = min(Fraction(1), sum(p for p in probs if p <= observed))
    assert stats.mcnemar_exact(gained, lost) == pytest.approx(float(want), rel=1e-12)
    assert stats.mcnemar_exact(gained, lost) == stats.mcnemar_exact(lost, gained)


def test_holm_adjusts_step_down_and_keeps_order() -> None:
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert stats.holm([]) == []


def test_minimum_detectable_effect_formulas() -> None:
    z = 1.959963984540054 + 0.8416212335729143
    assert stats.mde_continuous(100, 0.2) == pytest.approx(z * 0.02)
    # identical runs: the unpaired SD of the baseline stands in for the paired one
    same = [0.0, 1.0] * 10
    sd = math.sqrt(2) * float(np.std(same, ddof=1))
    assert stats.paired(same, same, "continuous", resamples=100).mde == pytest.approx(
        z * sd / math.sqrt(20)
    )
    assert stats.mde_binary(100, 20) == pytest.approx(z * math.sqrt(0.2 / 100))
    # nothing flipped: a change of d flips at least a share d of items, so MDE = z^2 / n
    assert stats.mde_binary(100, 0) == stats.mde_binary(100, 1) == pytest.approx(z * z / 100)
    # and at that size the exact test does reject: 8 of 100 items all one way
    assert stats.mcnemar_exact(0, 8) < 0.05


def _result(
    delta: float, low: float, high: float, p: float | None, mde: float
) -> stats.PairedResult:
    return stats.PairedResult(20, 0.5, 0.5 + delta, delta, low, high, p, "t", mde)


def test_call_definitions() -> None:
    worse = _result(-0.2, -0.3, -0.1, 0.001, 0.1)
    assert stats.call(worse, higher_is_better=True) == "worse"
    assert stats.call(worse, higher_is_better=False) == "better"
    # Holm-adjusted p above alpha: not significant any more
    assert stats.call(worse, higher_is_better=True, p_value=0.06) == "inconclusive"
    flat = _result(0.01, -0.04, 0.06, 0.7, 0.1)
    assert stats.call(flat, higher_is_better=True) == "no detectable change"
    wide = _result(0.01, -0.2, 0.22, 0.9, 0.1)
    assert stats.call(wide, higher_is_better=True) == "inconclusive"
    assert stats.call(wide, higher_is_better=True, tolerance=0.25) == "no detectable change"
    assert stats.call(_result(-0.5, -0.6, -0.4, None, 0.1), higher_is_better=True) == "inconclusive"


def test_paired_picks_the_test_by_kind_and_counts_items_not_rows() -> None:
    base = [1.0] * 30
    cur = [1.0] * 20 + [0.0] * 10
    res = stats.paired(base, cur, "binary", resamples=2000)
    assert res.test.startswith("exact McNemar") and res.p_value == stats.mcnemar_exact(0, 10)
    assert res.delta == pytest.approx(-1 / 3) and res.high < 0
    cont = stats.paired(base, cur, "continuous", resamples=2000)
    assert cont.test == "sign-flip permutation" and cont.p_value is not None and cont.p_value < 0.01
    # 30 rows that are 3 repeats of 10 items: 10 units
    clustered = stats.paired(
        base, cur, "binary", clusters=[i // 3 for i in range(30)], resamples=500
    )
    assert clustered.n == 10
    few = stats.paired(base[:5], cur[20:25], "binary", resamples=200)
    assert few.p_value is None and "no power" in few.test
