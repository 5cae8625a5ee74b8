"""A small stock list."""

from dataclasses import dataclass
from typing import Any


@dataclass
class Item:
    name: str
    quantity: int
    price_cents: int


def total_value(items: list[Item]) -> Any:
    """The value of the whole stock, in cents."""
    return sum(item.quantity * item.price_cents for item in items)


def find(items: list[Item], name: str) -> Any:
    """The item called `name`, or None."""
    for item in items:
        if item.name == name:
            return item
    return None


def restock(items: list[Item], name: str, amount: int) -> int:
    """Add `amount` to the item called `name` and return its new quantity; KeyError when
    there is no such item."""
    item = find(items, name)
    if item is None:
        raise KeyError(name)
    item.quantity += amount
    return int(item.quantity)


def names_by_value(items: list[Item]) -> list[str]:
    """Item names, the most valuable stock first."""
    ranked = sorted(items, key=lambda item: item.quantity * item.price_cents, reverse=True)
    return [item.name for item in ranked]
