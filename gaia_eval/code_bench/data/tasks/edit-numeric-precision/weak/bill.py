"""Splitting a restaurant bill."""

from decimal import Decimal

CENT = Decimal("0.01")


def split_bill(total, people):
    """Split `total` (a string or Decimal like "10.00") between `people` (an int >= 1)."""
    if people < 1:
        raise ValueError("people must be at least 1")
    cents = int(Decimal(str(total)) * 100)
    if cents < 0:
        raise ValueError("negative total")
    base, extra = divmod(cents, people)
    return [(Decimal(base + (1 if i < extra else 0)) * CENT) for i in range(people)]


def add_tip(total, percent):
    """`total` plus a `percent` tip, rounded to whole cents."""
    if percent < 0:
        raise ValueError("negative tip")
    return Decimal(str(round(float(total) * (1 + float(percent) / 100), 2))).quantize(CENT)
