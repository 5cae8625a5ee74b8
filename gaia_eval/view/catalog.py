"""Every run the view shows, over one or more results roots (one index each)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from gaia_eval.view.digest import ItemRow
from gaia_eval.view.index import IndexedRun, RunIndex, open_index


@dataclass(frozen=True)
class Flaky:
    suite: str
    config: str
    item: str
    flips: int
    outcomes: list[str]
    """The item's outcome per run of the configuration, oldest first."""


class Catalog:
    def __init__(self, roots: Sequence[Path], *, reindex: bool = False) -> None:
        self.indexes = [open_index(Path(r), reindex=reindex) for r in roots]

    def refresh(self) -> None:
        for index in self.indexes:
            index.update()

    def close(self) -> None:
        for index in self.indexes:
            index.close()

    def runs(self, suite: str | None = None) -> list[IndexedRun]:
        out = [run for index in self.indexes for run in index.runs(suite)]
        return sorted(out, key=lambda r: (r.row.started, r.path))

    def suites(self) -> list[str]:
        return sorted({r.row.suite for r in self.runs() if r.row.verdict != "unreadable"})

    def by_key(self, key: str) -> IndexedRun | None:
        return next((r for r in self.runs() if r.key == key), None)

    def _index_of(self, run: IndexedRun) -> RunIndex:
        return next(i for i in self.indexes if i.root == run.root)

    def items(self, run: IndexedRun) -> list[ItemRow]:
        return self._index_of(run).items(run.path)

    def flaky(self) -> list[Flaky]:
        """Items whose outcome changed between runs of one configuration (unmeasured runs
        of an item are skipped: an outage is not a flip), most flips first."""
        groups: dict[tuple[str, str], list[IndexedRun]] = {}
        for run in self.runs():
            if run.row.verdict != "unreadable":
                groups.setdefault((run.row.suite, run.row.config), []).append(run)
        out: list[Flaky] = []
        for (suite, config), runs in groups.items():
            if len(runs) < 2:
                continue
            seq: dict[str, list[str]] = {}
            for run in runs:
                for item in self.items(run):
                    if item.outcome != "unmeasured":
                        seq.setdefault(item.id, []).append(item.outcome)
            for item_id, outcomes in seq.items():
                flips = sum(a != b for a, b in pairwise(outcomes))
                if flips:
                    out.append(Flaky(suite, config, item_id, flips, outcomes))
        return sorted(out, key=lambda f: (-f.flips, f.suite, f.item))
