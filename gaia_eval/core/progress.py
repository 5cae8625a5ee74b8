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
    print(scrubbed(message), file=sys.stderr, flush=True)


def scrubbed(message: str) -> str:
    """`message` with secrets redacted, for stderr: an error can quote the user's input
    (a label, a URL with its password), and terminals end up in logs and screenshots."""
    from gaia_eval.core.errors import GaiaEvalError
    from gaia_eval.core.results_io import scrub_text

    try:
        return scrub_text(message)
    except GaiaEvalError as err:  # a secret survived redaction: say so, show nothing
        return f"(message withheld: {err})"
    except ImportError:  # pragma: no cover - a checkout without the native core built
        return "(message withheld: the native scrubber is not built; run `nox -s native`)"
