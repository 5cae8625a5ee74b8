import pytest

from roman import from_roman, to_roman


@pytest.mark.parametrize(
    ("number", "numeral"),
    [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")],
)
def test_to_roman(number, numeral):
    assert to_roman(number) == numeral


def test_from_roman():
    assert from_roman("MCMXCIV") == 1994


def test_zero_has_no_numeral():
    with pytest.raises(ValueError):
        to_roman(0)


def test_empty_string_is_not_a_numeral():
    with pytest.raises(ValueError):
        from_roman("")
