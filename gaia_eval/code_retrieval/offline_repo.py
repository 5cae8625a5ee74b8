"""A small real git repository, generated deterministically, for the `offline` suite.

`invtrack` is a little inventory library. Its history starts with one commit of the whole
project, then each later commit fixes one described problem; the commit message body is the
issue text. Author, committer and dates are fixed, so every machine builds the same commit
ids. Instances are derived from that history in SWE-bench's shape: the base commit is the
parent of each fix, the problem statement is the message body, the patch is the diff.
"""

# ruff: noqa: E501 - the fixture sources and patches read best unwrapped
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gaia_eval.code_retrieval.instances import Instance

REPO_NAME = "gaia-eval/invtrack"

FILES: dict[str, str] = {
    "invtrack/__init__.py": '''"""invtrack: a small inventory library."""

from invtrack.models import Item, Warehouse
from invtrack.pricing import apply_discount, total_value

__all__ = ["Item", "Warehouse", "apply_discount", "total_value"]
''',
    "invtrack/models.py": '''"""Items and warehouses."""

from dataclasses import dataclass, field


@dataclass
class Item:
    sku: str
    name: str
    quantity: int = 0
    unit_price: float = 0.0
    tags: list = field(default_factory=list)

    def restock(self, amount):
        """Add stock to this item."""
        self.quantity += amount
        return self.quantity

    def withdraw(self, amount):
        """Take stock out of this item."""
        self.quantity -= amount
        return self.quantity


class Warehouse:
    """A named collection of items keyed by SKU."""

    def __init__(self, name):
        self.name = name
        self.items = {}

    def add_item(self, item):
        self.items[item.sku] = item

    def find_by_tag(self, tag):
        return [item for item in self.items.values() if tag in item.tags]

    def low_stock(self, threshold):
        """Items whose quantity is below the threshold."""
        return [item for item in self.items.values() if item.quantity < threshold]
''',
    "invtrack/pricing.py": '''"""Prices, discounts and currency rounding."""


def apply_discount(price, percent):
    """Price after a percentage discount."""
    return price - price * percent


def total_value(warehouse):
    """Value of all stock in a warehouse."""
    return sum(item.quantity * item.unit_price for item in warehouse.items.values())


def round_currency(amount):
    return int(amount * 100) / 100
''',
    "invtrack/storage.py": '''"""Saving and loading warehouses as CSV."""

import csv

from invtrack.models import Item, Warehouse

HEADER = ["sku", "name", "quantity", "unit_price", "tags"]


def save_csv(warehouse, path):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(HEADER)
        for item in warehouse.items.values():
            writer.writerow([item.sku, item.name, item.quantity, item.unit_price, ";".join(item.tags)])


def load_csv(path, name="main"):
    warehouse = Warehouse(name)
    with open(path, newline="") as fh:
        reader = csv.reader(fh)
        next(reader)
        for row in reader:
            sku, item_name, quantity, price, tags = row
            warehouse.add_item(Item(sku, item_name, int(quantity), float(price), tags.split(";")))
    return warehouse
''',
    "invtrack/report.py": '''"""Plain-text stock reports."""

from invtrack.pricing import total_value


def format_line(item):
    return f"{item.sku:<10} {item.name:<20} {item.quantity:>6}"


def stock_report(warehouse):
    lines = [f"Warehouse {warehouse.name}"]
    for item in warehouse.items.values():
        lines.append(format_line(item))
    lines.append(f"Total value: {total_value(warehouse)}")
    return "\\n".join(lines)
''',
    "invtrack/cli.py": '''"""Command line entry point: `invtrack report FILE`."""

import sys

from invtrack.report import stock_report
from invtrack.storage import load_csv


def parse_args(argv):
    if len(argv) < 2:
        raise SystemExit("usage: invtrack report FILE")
    return argv[0], argv[1]


def main(argv=None):
    command, path = parse_args(argv or sys.argv[1:])
    if command == "report":
        print(stock_report(load_csv(path)))
    return 0
''',
    "invtrack/transfer.py": '''"""Moving stock between warehouses."""


class TransferError(Exception):
    pass


def transfer(source, target, sku, amount):
    """Move `amount` of `sku` from source to target."""
    item = source.items[sku]
    item.withdraw(amount)
    if sku in target.items:
        target.items[sku].restock(amount)
    else:
        target.add_item(type(item)(item.sku, item.name, amount, item.unit_price, item.tags))
    return amount
''',
    "README.md": "# invtrack\n\nA small inventory library used by gaia-eval's offline suite.\n",
}

# (file, old text, new text, subject, problem statement written like an issue)
FIXES: list[tuple[str, str, str, str, str]] = [
    (
        "invtrack/pricing.py",
        "    return price - price * percent\n",
        '    if not 0 <= percent <= 100:\n        raise ValueError(f"percent out of range: {percent}")\n    return price - price * percent / 100\n',
        "Treat discount percentages as percent, not fractions",
        "apply_discount(100, 20) returns -1900 instead of 80. The docstring says the discount "
        "is a percentage, but the function multiplies by the raw number, so every discount "
        "above 1 produces a negative price.",
    ),
    (
        "invtrack/models.py",
        '        """Take stock out of this item."""\n        self.quantity -= amount\n',
        '        """Take stock out of this item."""\n        if amount > self.quantity:\n            raise ValueError(f"only {self.quantity} of {self.sku} in stock")\n        self.quantity -= amount\n',
        "Refuse to withdraw more stock than an item holds",
        "Taking more units out of an item than it has leaves a negative quantity. "
        "`Item.withdraw` should refuse instead of letting stock go below zero; we found "
        "warehouses reporting -3 units after a large order.",
    ),
    (
        "invtrack/storage.py",
        '            warehouse.add_item(Item(sku, item_name, int(quantity), float(price), tags.split(";")))\n',
        '            tag_list = [t for t in tags.split(";") if t]\n            warehouse.add_item(Item(sku, item_name, int(quantity), float(price), tag_list))\n',
        "Do not load an empty tag from CSV rows without tags",
        "After saving and loading a warehouse, items that had no tags come back with one empty "
        "tag (`['']`), so find_by_tag('') matches them. load_csv should drop empty tags.",
    ),
    (
        "invtrack/pricing.py",
        "def round_currency(amount):\n    return int(amount * 100) / 100\n",
        'def round_currency(amount):\n    """Round half up to cents."""\n    return float(Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))\n',
        "Round currency half up instead of truncating",
        "round_currency(2.675) gives 2.67 and round_currency(-1.005) gives -1.0: the helper "
        "truncates toward zero. Prices should be rounded half up to the cent.",
    ),
    (
        "invtrack/report.py",
        '    lines.append(f"Total value: {total_value(warehouse)}")\n',
        '    lines.append(f"Total value: {total_value(warehouse):.2f}")\n',
        "Show the report total with two decimals",
        "The stock report prints totals like `Total value: 1234.5000000001`. The total in "
        "stock_report should be formatted as money with two decimals.",
    ),
    (
        "invtrack/transfer.py",
        "    item = source.items[sku]\n",
        '    if sku not in source.items:\n        raise TransferError(f"{sku} is not stocked in {source.name}")\n    item = source.items[sku]\n',
        "Raise TransferError for an unknown SKU",
        "Transferring a SKU the source warehouse does not stock raises a bare KeyError from "
        "deep inside transfer(). It should raise the module's TransferError with a message "
        "naming the SKU and the warehouse.",
    ),
    (
        "invtrack/cli.py",
        "    command, path = parse_args(argv or sys.argv[1:])\n",
        "    command, path = parse_args(sys.argv[1:] if argv is None else argv)\n",
        "Honour an explicit empty argv in the CLI main",
        "Calling main([]) from a test reads the real sys.argv of the test runner instead of "
        "the empty list it was given, because `argv or sys.argv[1:]` treats [] as missing.",
    ),
    (
        "invtrack/models.py",
        "        return [item for item in self.items.values() if item.quantity < threshold]\n",
        "        return [item for item in self.items.values() if item.quantity <= threshold]\n",
        "Count items at the threshold as low stock",
        "Warehouse.low_stock(5) leaves out items with exactly 5 units, but our reorder rule "
        "says an item at the threshold must be reordered. The comparison should include it.",
    ),
    (
        "invtrack/transfer.py",
        "        target.add_item(type(item)(item.sku, item.name, amount, item.unit_price, item.tags))\n",
        "        target.add_item(type(item)(item.sku, item.name, amount, item.unit_price, list(item.tags)))\n",
        "Copy tags when a transfer creates a new item",
        "After transfer() creates an item in the target warehouse, adding a tag to it also "
        "changes the source item's tags: both items share one tags list object.",
    ),
    (
        "invtrack/storage.py",
        '    with open(path, "w", newline="") as fh:\n',
        '    with open(path, "w", newline="", encoding="utf-8") as fh:\n',
        "Write CSV files as UTF-8 on every platform",
        "save_csv fails with UnicodeEncodeError on Windows for item names such as "
        "'Crème brûlée': the file is opened with the locale encoding. Saving should always "
        "use UTF-8, as load_csv expects.",
    ),
    (
        "invtrack/models.py",
        '        """Add stock to this item."""\n        self.quantity += amount\n',
        '        """Add stock to this item."""\n        if amount < 0:\n            raise ValueError(f"cannot restock a negative amount: {amount}")\n        self.quantity += amount\n',
        "Reject a negative amount in Item.restock",
        "`Item.restock(-5)` silently lowers the quantity. restock should raise ValueError for "
        "a negative amount; taking stock out is what withdraw is for.",
    ),
    (
        "invtrack/models.py",
        "    def add_item(self, item):\n        self.items[item.sku] = item\n",
        '    def add_item(self, item):\n        if item.sku in self.items:\n            raise ValueError(f"{item.sku} is already stocked in {self.name}")\n        self.items[item.sku] = item\n',
        "Refuse to register the same product twice",
        "When a product is registered a second time under a code the site already holds, the "
        "first record is silently replaced and the units it had disappear from the books. "
        "Registering a duplicate should be refused instead.",
    ),
    (
        "invtrack/models.py",
        "        return [item for item in self.items.values() if tag in item.tags]\n",
        "        wanted = tag.lower()\n        return [item for item in self.items.values() if wanted in (t.lower() for t in item.tags)]\n",
        "Ignore case when looking products up by label",
        "Looking up the products labelled Fragile misses the ones somebody labelled fragile. "
        "Label lookups should not care about upper and lower case.",
    ),
    (
        "invtrack/pricing.py",
        "    return sum(item.quantity * item.unit_price for item in warehouse.items.values())\n",
        "    return round_currency(sum(item.quantity * item.unit_price for item in warehouse.items.values()))\n",
        "Round the worth of all stock to the cent",
        "Adding up what everything on the shelves is worth gives amounts such as "
        "10.100000000000001. The sum should come back rounded to whole cents.",
    ),
    (
        "invtrack/pricing.py",
        "    return price - price * percent / 100\n",
        "    return round_currency(price - price * percent / 100)\n",
        "Round reduced prices to the cent",
        "Taking 15% off 19.99 gives 16.9915, and that is what we show and store. A price after "
        "a reduction should come back in whole cents like every other amount of money.",
    ),
    (
        "invtrack/storage.py",
        "        for row in reader:\n            sku, item_name, quantity, price, tags = row\n",
        "        for row in reader:\n            if not row:\n                continue\n            sku, item_name, quantity, price, tags = row\n",
        "Skip blank lines when reading a saved file",
        "Opening an export that has blank lines between entries stops with `ValueError: not "
        "enough values to unpack (expected 5, got 0)`. Blank lines should simply be skipped "
        "when the file is read back.",
    ),
    (
        "invtrack/storage.py",
        "        next(reader)\n",
        "        if next(reader, None) is None:\n            return warehouse\n",
        "Load an empty CSV file as an empty warehouse",
        "load_csv raises StopIteration on a zero-byte file because `next(reader)` has no header "
        "row to skip. An empty file should load as an empty Warehouse.",
    ),
    (
        "invtrack/storage.py",
        "        for item in warehouse.items.values():\n            writer.writerow(",
        "        for item in sorted(warehouse.items.values(), key=lambda i: i.sku):\n            writer.writerow(",
        "Save products in a stable order",
        "Every time we save, the rows of the written file come out in whatever order the "
        "products were added, so two saves of the same stock differ and our diffs are noisy. "
        "Rows should be written ordered by product code.",
    ),
    (
        "invtrack/report.py",
        '    return f"{item.sku:<10} {item.name:<20} {item.quantity:>6}"\n',
        '    name = item.name if len(item.name) <= 20 else item.name[:19] + "~"\n    return f"{item.sku:<10} {name:<20} {item.quantity:>6}"\n',
        "Keep long product names inside their column",
        "In the printed listing, a product with a long name pushes its count out of its "
        "column and the table no longer lines up. Names wider than the column should be cut "
        "to fit.",
    ),
    (
        "invtrack/report.py",
        "    for item in warehouse.items.values():\n        lines.append(format_line(item))\n",
        "    for item in sorted(warehouse.items.values(), key=lambda i: i.sku):\n        lines.append(format_line(item))\n",
        "Sort stock_report lines by SKU",
        "stock_report lists items in insertion order, so the same warehouse prints differently "
        "depending on how it was built. Sort the lines by `item.sku`.",
    ),
    (
        "invtrack/report.py",
        '    lines = [f"Warehouse {warehouse.name}"]\n',
        '    lines = [f"Warehouse {warehouse.name}"]\n    if not warehouse.items:\n        lines.append("(no items)")\n',
        "Say so when a listing has nothing in it",
        "The printed listing for a site with nothing in it shows only the heading and a zero "
        "total, which readers take for a broken export. It should say plainly that there "
        "are no products.",
    ),
    (
        "invtrack/cli.py",
        "        print(stock_report(load_csv(path)))\n    return 0\n",
        '        print(stock_report(load_csv(path)))\n        return 0\n    raise SystemExit(f"unknown command: {command}")\n',
        "Fail on a misspelt subcommand",
        "Running the tool with a misspelt subcommand, e.g. `invtrack reprot stock.csv`, prints "
        "nothing and exits successfully, so our nightly script never noticed the typo. An "
        "unknown subcommand should fail with a message.",
    ),
    (
        "invtrack/cli.py",
        "        print(stock_report(load_csv(path)))\n",
        '        try:\n            warehouse = load_csv(path)\n        except FileNotFoundError:\n            raise SystemExit(f"no such file: {path}") from None\n        print(stock_report(warehouse))\n',
        "Print one line, not a traceback, for a missing file",
        "Pointing the command line tool at a file that does not exist dumps a long Python "
        "traceback on the terminal. It should print a one-line message naming the path and "
        "exit.",
    ),
    (
        "invtrack/transfer.py",
        "    item = source.items[sku]\n",
        '    if amount <= 0:\n        raise TransferError(f"amount must be positive: {amount}")\n    item = source.items[sku]\n',
        "Reject non-positive amounts in transfer()",
        "`transfer(a, b, 'X1', 0)` creates an empty item in the target warehouse, and a "
        "negative amount moves stock backwards. transfer should raise TransferError when the "
        "amount is not positive.",
    ),
    (
        "invtrack/transfer.py",
        "    item.withdraw(amount)\n",
        "    try:\n        item.withdraw(amount)\n    except ValueError as exc:\n        raise TransferError(str(exc)) from exc\n",
        "Report a short shipment between sites as a failed move",
        "When we try to ship more units to another site than the first site holds, the error "
        "that comes back is a generic ValueError, so our handler for failed moves between "
        "sites never catches it.",
    ),
    (
        "invtrack/storage.py",
        "Item(sku, item_name, int(quantity), float(price), tag_list)",
        "Item(sku, item_name, int(float(quantity)), float(price), tag_list)",
        "Accept whole counts written with a trailing .0",
        "Files exported from our spreadsheet write counts as 3.0, and reading them back stops "
        "with `invalid literal for int() with base 10: '3.0'`. Whole-number counts with a "
        "trailing .0 should be accepted.",
    ),
]


def _git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, env=env
    )
    if out.returncode != 0:
        msg = f"git {' '.join(args)} failed in {repo}: {out.stderr.strip()}"
        raise RuntimeError(msg)
    return out.stdout


def _env(step: int) -> dict[str, str]:
    date = f"2026-01-{step + 1:02d}T12:00:00+00:00"
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": "gaia-eval",
        "GIT_AUTHOR_EMAIL": "gaia-eval@example.invalid",
        "GIT_COMMITTER_NAME": "gaia-eval",
        "GIT_COMMITTER_EMAIL": "gaia-eval@example.invalid",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }


def build(dest: Path) -> Path:
    """Create the repository at `dest` (a new folder); returns it."""
    dest.mkdir(parents=True, exist_ok=False)
    _git(dest, "init", "-q", "-b", "main", env=_env(0))
    for rel, text in FILES.items():
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8", newline="\n")
    # The Decimal import the rounding fix needs is in place from the start.
    pricing = dest / "invtrack/pricing.py"
    pricing.write_text(
        pricing.read_text(encoding="utf-8").replace(
            '"""Prices, discounts and currency rounding."""\n',
            '"""Prices, discounts and currency rounding."""\n\n'
            "from decimal import ROUND_HALF_UP, Decimal\n",
        ),
        encoding="utf-8",
        newline="\n",
    )
    _git(dest, "add", "-A", env=_env(0))
    _git(
        dest,
        "commit",
        "-q",
        "-m",
        "Start invtrack: items, warehouses, pricing, storage",
        env=_env(0),
    )
    for step, (rel, old, new, subject, problem) in enumerate(FIXES, start=1):
        p = dest / rel
        text = p.read_text(encoding="utf-8")
        if old not in text:
            msg = f"offline repo fix {step} does not apply to {rel}"
            raise RuntimeError(msg)
        p.write_text(text.replace(old, new, 1), encoding="utf-8", newline="\n")
        _git(dest, "add", "-A", env=_env(step))
        _git(dest, "commit", "-q", "-m", f"{subject}\n\n{problem}", env=_env(step))
    return dest


def instances(repo: Path) -> list[Instance]:
    """One SWE-bench-shaped row per fix commit, oldest first."""
    revs = _git(repo, "rev-list", "--reverse", "--first-parent", "HEAD").split()
    out: list[Instance] = []
    for i, commit in enumerate(revs[1:], start=1):
        parent = revs[i - 1]
        body = _git(repo, "log", "-1", "--format=%s%n%n%b", commit).strip()
        patch = _git(repo, "diff", "--no-color", "--no-ext-diff", parent, commit)
        date = _git(repo, "log", "-1", "--format=%cI", commit).strip()
        out.append(
            Instance(
                instance_id=f"gaia-eval__invtrack-{i}",
                repo=REPO_NAME,
                base_commit=parent,
                problem_statement=body,
                patch=patch,
                created_at=date,
                source="offline",
            )
        )
    return out
