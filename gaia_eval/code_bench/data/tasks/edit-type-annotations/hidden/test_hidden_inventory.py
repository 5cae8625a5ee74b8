import re
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]

CLIENT = """\
from inventory import Item, find, names_by_value, restock, total_value

items = [Item("bolt", 1, 2)]
reveal_type(total_value(items))
reveal_type(total_value(iter(items)))
reveal_type(find(items, "bolt"))
reveal_type(restock(items, "bolt", 3))
reveal_type(names_by_value(items))
reveal_type(names_by_value(tuple(items)))
"""

WANT = ["int", "int", "inventory.Item | None", "int", "list[str]", "list[str]"]


def _norm(text):
    text = text.replace("builtins.", "")
    match = re.fullmatch(r"Union\[(.+), None\]", text)
    return f"{match.group(1)} | None" if match else text


def test_types_are_precise(tmp_path):
    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable, "-m", "mypy", "--strict", "--disallow-any-explicit",
            "--no-error-summary", str(PROJECT / "inventory.py"), str(tmp_path / "client.py"),
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    revealed = [_norm(m) for m in re.findall(r'Revealed type is "([^"]+)"', done.stdout)]
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == [], done.stdout
    assert revealed == WANT, done.stdout


def test_empty_stock():
    from inventory import find, names_by_value, total_value

    assert total_value([]) == 0
    assert find([], "x") is None
    assert names_by_value([]) == []


def test_equal_values_keep_their_order():
    from inventory import Item, names_by_value

    items = [Item("a", 1, 10), Item("b", 2, 5), Item("c", 10, 1)]
    assert names_by_value(items) == ["a", "b", "c"]


def test_restock_changes_the_item_in_place():
    from inventory import Item, restock

    items = [Item("a", 1, 10)]
    assert restock(items, "a", -1) == 0
    assert items[0].quantity == 0
