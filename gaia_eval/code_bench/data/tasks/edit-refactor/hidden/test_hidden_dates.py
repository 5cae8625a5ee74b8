from datetime import datetime

import pytest

import dates

STAMP = datetime(2024, 3, 5, 10, 20, 30)


@pytest.mark.parametrize("parse", [dates.parse_created, dates.parse_updated, dates.parse_deleted])
def test_surrounding_space_and_z(parse):
    assert parse("  2024-03-05 10:20:30Z \n") == STAMP


@pytest.mark.parametrize("parse", [dates.parse_created, dates.parse_updated])
def test_t_separator_is_refused_outside_deletions(parse):
    with pytest.raises(ValueError):
        parse("2024-03-05T10:20:30")


@pytest.mark.parametrize("parse", [dates.parse_created, dates.parse_updated, dates.parse_deleted])
def test_lower_case_z_is_refused(parse):
    with pytest.raises(ValueError):
        parse("2024-03-05 10:20:30z")


@pytest.mark.parametrize("parse", [dates.parse_created, dates.parse_updated, dates.parse_deleted])
def test_results_are_naive(parse):
    assert parse("2024-03-05 10:20:30").tzinfo is None


def test_deleted_with_t_and_z():
    assert dates.parse_deleted("2024-03-05T10:20:30Z") == STAMP
