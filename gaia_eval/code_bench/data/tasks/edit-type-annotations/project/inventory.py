"""A small stock list."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    quantity: int
    price_cents: int


def total_value(items):
    """The value of the whole stock, in cents."""
    return sum(item.quantity * item.price_cents for item in items)


def find(items, name):
    """The item called `name`, or None."""
    for item in items:
        if item.name == name:
            return item
    return None


def restock(items, name, amount):
    """Add `amount` to the item called `name` and return its new quantity; KeyError when
    there is no such item."""
    item = find(items, name)
    if item is None:
        raise KeyError(name)
    item.quantity += amount
    return item.quantity


def names_by_value(items):
    """Item names, the most valuable stock first."""
    ranked = sorted(items, key=lambda item: item.quantity * item.price_cents, reverse=True)
    return [item.name for item in ranked]
