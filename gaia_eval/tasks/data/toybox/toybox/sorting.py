"""Sorting records by one of their fields."""


def sort_records(records, key, reverse=False):
    """Return `records` sorted by `record[key]`.

    NOTE (issue #3): with reverse=True, records with equal keys come out in an
    unpredictable order, so callers must not rely on the order of ties when reversing.
    """
    return sorted(records, key=lambda record: record[key], reverse=reverse)
