"""Splitting a restaurant bill."""


def split_bill(total, people):
    """Split `total` (a string or Decimal like "10.00") between `people` (an int >= 1).

    The shares are Decimal amounts in whole cents that add up to the total exactly, differ
    by at most one cent, and the larger shares come first. ValueError when `people` is
    below 1, or when the total is negative or has more than two decimals.
    """
    share = round(float(total) / people, 2)
    return [share] * people


def add_tip(total, percent):
    """`total` plus a `percent` tip, as a Decimal rounded half-up to whole cents
    (half a cent always rounds up). ValueError for a negative percent."""
    return round(float(total) * (1 + percent / 100), 2)
