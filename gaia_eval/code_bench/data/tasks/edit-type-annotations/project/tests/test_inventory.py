import subprocess
import sys
from pathlib import Path

import pytest

from inventory import Item, find, names_by_value, restock, total_value

PROJECT = Path(__file__).resolve().parents[1]


def stock():
    return [Item("bolt", 100, 5), Item("nut", 250, 2), Item("gear", 3, 900)]


def test_behaviour():
    items = stock()
    assert total_value(items) == 100 * 5 + 250 * 2 + 3 * 900
    assert find(items, "nut") is items[1]
    assert find(items, "cog") is None
    assert restock(items, "gear", 2) == 5
    assert names_by_value(items) == ["gear", "bolt", "nut"]
    with pytest.raises(KeyError):
        restock(items, "cog", 1)


def test_mypy_strict_passes():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "inventory.py"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
