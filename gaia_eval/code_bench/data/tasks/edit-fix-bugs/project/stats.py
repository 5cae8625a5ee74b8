"""Summary statistics for lists of numbers."""


def mean(values):
    """The arithmetic mean of `values`; ValueError for an empty list."""
    return sum(values) / len(values)


def median(values):
    """The middle value of the sorted values (the mean of the two middle ones for an even
    count); ValueError for an empty list. `values` is left as it was."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid]


def sample_variance(values):
    """The sample variance (n - 1 in the denominator); ValueError for fewer than two
    values."""
    m = mean(values)
    return sum((v - m) ** 2 for v in values) / len(values)
