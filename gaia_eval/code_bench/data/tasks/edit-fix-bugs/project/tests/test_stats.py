import pytest

import stats


def test_mean():
    assert stats.mean([1, 2, 3, 4]) == 2.5


def test_mean_of_empty_list_is_an_error():
    with pytest.raises(ValueError):
        stats.mean([])


def test_median_odd_count():
    assert stats.median([3, 1, 2]) == 2


def test_median_even_count():
    assert stats.median([4, 1, 3, 2]) == 2.5


def test_sample_variance():
    assert stats.sample_variance([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(32 / 7)
