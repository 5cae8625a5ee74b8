"""Splitting a restaurant bill."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def _amount(total):
    value = Decimal(str(total))
    if value < 0 or value != value.quantize(CENT):
        raise ValueError(f"not an amount in whole cents: {total!r}")
    return value


def split_bill(total, people):
    """Split `total` (a string or Decimal like "10.00") between `people` (an int >= 1).

    The shares are Decimal amounts in whole cents that add up to the total exactly, differ
    by at most one cent, and the larger shares come first. ValueError when `people` is
    below 1, or when the total is negative or has more than two decimals.
    """
    if people < 1:
        raise ValueError(f"people must be at least 1, got {people}")
    cents = int(_amount(total) / CENT)
    base, extra = divmod(cents, people)
    return [(Decimal(base + (1 if i < extra else 0)) * CENT) for i in range(people)]


def add_tip(total, percent):
    """`total` plus a `percent` tip, as a Decimal rounded half-up to whole cents
    (half a cent always rounds up). ValueError for a negative percent."""
    percent = Decimal(str(percent))
    if percent < 0:
        raise ValueError(f"a tip cannot be negative: {percent}")
    amount = Decimal(str(total)) * (1 + percent / 100)
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)
