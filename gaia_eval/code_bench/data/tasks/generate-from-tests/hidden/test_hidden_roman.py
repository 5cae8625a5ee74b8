import pytest

from roman import from_roman, to_roman


def test_round_trip_every_number():
    for n in range(1, 4000):
        assert from_roman(to_roman(n)) == n


@pytest.mark.parametrize("number", [4000, -1, 10_000])
def test_out_of_range(number):
    with pytest.raises(ValueError):
        to_roman(number)


@pytest.mark.parametrize("text", ["IIII", "IC", "VX", "MMMM", "xiv", "IIV", "ABC", "XM", "VV"])
def test_non_canonical_numerals_are_refused(text):
    with pytest.raises(ValueError):
        from_roman(text)


@pytest.mark.parametrize(("numeral", "number"), [("CDXLIV", 444), ("MMXXIV", 2024), ("LVIII", 58)])
def test_from_roman_values(numeral, number):
    assert from_roman(numeral) == number
