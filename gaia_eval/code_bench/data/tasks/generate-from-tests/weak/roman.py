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
_LETTERS = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(number):
    """The Roman numeral of an int from 1 to 3999, in canonical form (subtractive pairs:
    IV, IX, XL, XC, CD, CM); ValueError for any other number."""
    if number < 1:
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
    if not text:
        raise ValueError("empty numeral")
    total = 0
    for i, letter in enumerate(text):
        value = _LETTERS[letter.upper()]
        if i + 1 < len(text) and _LETTERS[text[i + 1].upper()] > value:
            total -= value
        else:
            total += value
    return total
