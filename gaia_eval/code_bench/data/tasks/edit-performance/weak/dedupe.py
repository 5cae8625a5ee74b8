"""Removing repeats from sequences of hashable items."""


def unique_in_order(items):
    """The items without repeats, in the order each was first seen."""
    seen = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def common_elements(a, b):
    """The items of `a` that are also in `b`, in `a`'s order, without repeats."""
    return unique_in_order([x for x in a if x in b])
