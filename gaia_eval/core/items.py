"""Item ids of a suite that repeats its tasks: `<task>` for the first repeat, `<task>#r2`
for the second, ...; where each item's files go, and the items of some tasks only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from gaia_eval.core.suite import Item

REPEAT = "#r"


def item_id(task_id: str, repeat: int) -> str:
    return task_id if repeat == 1 else f"{task_id}{REPEAT}{repeat}"


def split_item_id(item: str) -> tuple[str, int]:
    """(task id, repeat) of an item id."""
    task, sep, n = item.rpartition(REPEAT)
    if sep and task and n.isdigit():
        return task, int(n)
    return item, 1


def select_tasks(items: Sequence[Item], only: Sequence[str] | None) -> Sequence[Item]:
    """The items (every repeat) of the tasks named in `only`; all of them for None."""
    if only is None:
        return items
    wanted = set(only)
    return [i for i in items if split_item_id(i.id)[0] in wanted]


def item_dir(out: Path, item: str) -> Path:
    """Where an item's transcript and diffs go: `<out>/<task>`, `<out>/r2/<task>`, ..."""
    task, repeat = split_item_id(item)
    return out / task if repeat == 1 else out / f"r{repeat}" / task
