import pytest

import units


def test_km_to_miles():
    assert units.km_to_miles(1.609344) == pytest.approx(1.0)


def test_negative_distance_is_refused():
    with pytest.raises(ValueError):
        units.km_to_miles(-1)


def test_kg_to_pounds():
    assert units.kg_to_pounds(0.45359237) == pytest.approx(1.0)


def test_negative_mass_is_refused():
    with pytest.raises(ValueError):
        units.kg_to_pounds(-0.5)
