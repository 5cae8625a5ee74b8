import pytest

import units


@pytest.mark.parametrize(
    "convert", [units.km_to_miles, units.miles_to_km, units.kg_to_pounds, units.pounds_to_kg]
)
def test_every_length_and_mass_refuses_negatives(convert):
    with pytest.raises(ValueError):
        convert(-0.001)


@pytest.mark.parametrize(
    "convert", [units.km_to_miles, units.miles_to_km, units.kg_to_pounds, units.pounds_to_kg]
)
def test_zero_is_fine(convert):
    assert convert(0) == 0


def test_celsius_below_absolute_zero_is_refused():
    with pytest.raises(ValueError):
        units.celsius_to_kelvin(-273.16)


def test_celsius_at_absolute_zero():
    assert units.celsius_to_kelvin(-273.15) == pytest.approx(0.0)


def test_fahrenheit_below_absolute_zero_is_refused():
    with pytest.raises(ValueError):
        units.fahrenheit_to_kelvin(-460)


def test_fahrenheit_at_absolute_zero():
    assert units.fahrenheit_to_kelvin(-459.67) == pytest.approx(0.0, abs=1e-9)


def test_conversions_still_convert():
    assert units.miles_to_km(1) == pytest.approx(1.609344)
    assert units.pounds_to_kg(1) == pytest.approx(0.45359237)
    assert units.celsius_to_kelvin(0) == pytest.approx(273.15)
    assert units.fahrenheit_to_kelvin(32) == pytest.approx(273.15)
