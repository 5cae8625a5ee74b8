import pytest

import stats


def test_mean_of_one_value():
    assert stats.mean([7]) == 7


def test_mean_of_floats():
    assert stats.mean([0.5, 1.5, 2.5]) == pytest.approx(1.5)


def test_median_of_empty_list_is_an_error():
    with pytest.raises(ValueError):
        stats.median([])


def test_median_leaves_its_input_alone():
    values = [5, 3, 1, 4]
    stats.median(values)
    assert values == [5, 3, 1, 4]


def test_median_even_count_negative_values():
    assert stats.median([-5, -1, -3, -7]) == -4


def test_median_of_two_values():
    assert stats.median([10, 20]) == 15


def test_sample_variance_of_two_values():
    assert stats.sample_variance([1, 3]) == pytest.approx(2.0)


def test_sample_variance_of_one_value_is_an_error():
    with pytest.raises(ValueError):
        stats.sample_variance([5])


def test_sample_variance_of_empty_list_is_an_error():
    with pytest.raises(ValueError):
        stats.sample_variance([])


def test_sample_variance_of_constant_values():
    assert stats.sample_variance([3, 3, 3]) == 0
