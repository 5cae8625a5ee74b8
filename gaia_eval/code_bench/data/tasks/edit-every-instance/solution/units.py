"""Unit conversions."""

KM_PER_MILE = 1.609344
KG_PER_POUND = 0.45359237
ABSOLUTE_ZERO_C = -273.15
ABSOLUTE_ZERO_F = -459.67


def _not_negative(value, what):
    if value < 0:
        raise ValueError(f"a {what} cannot be negative: {value}")
    return value


def km_to_miles(km):
    """Kilometres to miles."""
    return _not_negative(km, "length") / KM_PER_MILE


def miles_to_km(miles):
    """Miles to kilometres."""
    return _not_negative(miles, "length") * KM_PER_MILE


def kg_to_pounds(kg):
    """Kilograms to pounds."""
    return _not_negative(kg, "mass") / KG_PER_POUND


def pounds_to_kg(pounds):
    """Pounds to kilograms."""
    return _not_negative(pounds, "mass") * KG_PER_POUND


def celsius_to_kelvin(celsius):
    """Degrees Celsius to kelvin."""
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError(f"{celsius} °C is below absolute zero")
    return celsius - ABSOLUTE_ZERO_C


def fahrenheit_to_kelvin(fahrenheit):
    """Degrees Fahrenheit to kelvin."""
    if fahrenheit < ABSOLUTE_ZERO_F:
        raise ValueError(f"{fahrenheit} °F is below absolute zero")
    return (fahrenheit - 32) * 5 / 9 - ABSOLUTE_ZERO_C
