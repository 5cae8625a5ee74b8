"""Unit conversions."""

KM_PER_MILE = 1.609344
KG_PER_POUND = 0.45359237
ABSOLUTE_ZERO_C = -273.15


def km_to_miles(km):
    """Kilometres to miles."""
    if km < 0:
        raise ValueError("negative length")
    return km / KM_PER_MILE


def miles_to_km(miles):
    """Miles to kilometres."""
    return miles * KM_PER_MILE


def kg_to_pounds(kg):
    """Kilograms to pounds."""
    if kg < 0:
        raise ValueError("negative mass")
    return kg / KG_PER_POUND


def pounds_to_kg(pounds):
    """Pounds to kilograms."""
    return pounds * KG_PER_POUND


def celsius_to_kelvin(celsius):
    """Degrees Celsius to kelvin."""
    return celsius - ABSOLUTE_ZERO_C


def fahrenheit_to_kelvin(fahrenheit):
    """Degrees Fahrenheit to kelvin."""
    return (fahrenheit - 32) * 5 / 9 - ABSOLUTE_ZERO_C
