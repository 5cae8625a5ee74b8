"""Roman numerals."""


def to_roman(number):
    """The Roman numeral of an int from 1 to 3999, in canonical form (subtractive pairs:
    IV, IX, XL, XC, CD, CM); ValueError for any other number."""
    raise NotImplementedError


def from_roman(text):
    """The int a Roman numeral stands for. Only canonical upper-case numerals (exactly what
    `to_roman` writes) are accepted; ValueError for anything else, the empty string
    included."""
    raise NotImplementedError
