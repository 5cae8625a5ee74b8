"""Roman numerals."""

_VALUES = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]


def to_roman(number):
    """The Roman numeral of an int from 1 to 3999, in canonical form (subtractive pairs:
    IV, IX, XL, XC, CD, CM); ValueError for any other number."""
    if not isinstance(number, int) or not 1 <= number <= 3999:
        raise ValueError(f"no Roman numeral for {number!r}")
    out = []
    for value, letters in _VALUES:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def from_roman(text):
    """The int a Roman numeral stands for. Only canonical upper-case numerals (exactly what
    `to_roman` writes) are accepted; ValueError for anything else, the empty string
    included."""
    if not isinstance(text, str) or not text:
        raise ValueError(f"not a Roman numeral: {text!r}")
    total = 0
    rest = text
    for value, letters in _VALUES:
        while rest.startswith(letters):
            total += value
            rest = rest[len(letters) :]
    if rest or not 1 <= total <= 3999 or to_roman(total) != text:
        raise ValueError(f"not a canonical Roman numeral: {text!r}")
    return total
