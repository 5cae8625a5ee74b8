"""Progress bars for loops a person waits on; silent when stderr is not a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

T = TypeVar("T")


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """Yield `items`, drawing a rich progress bar on a terminal and nothing otherwise."""
    if not sys.stderr.isatty():
        yield from items
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    if total is None and isinstance(items, Sized):
        total = len(items)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        for item in items:
            yield item
            bar.advance(task)


def note(message: str) -> None:
    """A one-line status message on stderr (kept off stdout, which carries results)."""
    print(message, file=sys.stderr, flush=True)
