"""The view's run index and Now page at scale: 1,000 synthetic runs of 100 items each.

The runs are written through core's results models (as a real run's results.json is),
under an unregistered suite name, so the index reads each with status-only outcomes. Timed:
a cold index of every folder, an incremental update with nothing changed, and rendering
the Now page from the index. The issue's targets are < 10 s and < 1 s; this prints them.
Run it: `gaia-eval bench --only view`.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from gaia_eval.bench.common import BenchRow
from gaia_eval.core.results import Envelope, Header, ItemRecord, ItemStatus, RunInfo
from gaia_eval.core.results_io import write_json
from gaia_eval.core.runmeta import machine

TITLE = "view: index 1,000 runs x 100 items, render the Now page"


def write_runs(root: Path, runs: int, items: int, seed: int = 31) -> None:
    rng = random.Random(seed)
    where = machine()
    for n in range(runs):
        status: list[ItemStatus] = ["ok" if rng.random() > 0.05 else "error" for _ in range(items)]
        head = Header(
            suite=f"bench-view-{n % 8}", tier="pr", system=f"system-{n % 3}",
            definition_digest="0" * 64, items_total=items,
            item_ids=[f"item-{i}" for i in range(items)], complete=True,
            item_errors=status.count("error"),
            run=RunInfo(package_version="0", commit=f"{n:040x}", dirty=False,
                        started=f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}+00:00",
                        duration_s=1.0, machine=where),
        )  # fmt: skip
        records = [
            ItemRecord(id=f"item-{i}", status=s, result={"score": rng.random()} if s == "ok"
                       else None, error=None if s == "ok" else "crashed", ran_at="t")
            for i, s in enumerate(status)
        ]  # fmt: skip
        write_json(root / f"run-{n:04d}" / "results.json", Envelope(header=head, items=records))


def run(quick: bool) -> list[BenchRow]:
    from gaia_eval.view.catalog import Catalog
    from gaia_eval.view.pages import now_page

    runs = 100 if quick else 1000
    rows: list[BenchRow] = []
    with tempfile.TemporaryDirectory(prefix="gaia-bench-view-") as name:
        root = Path(name)
        write_runs(root, runs, 100)
        case = f"{runs} runs x 100 items"
        t0 = time.perf_counter()
        catalog = Catalog([root])
        cold = time.perf_counter() - t0
        assert len(catalog.runs()) == runs
        t0 = time.perf_counter()
        catalog.refresh()
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        page = now_page(catalog)
        render = time.perf_counter() - t0
        catalog.close()
        assert page.count("<tr>") > 1
        rows.append(BenchRow(case, "index, cold (every folder read)", cold, None,
                             f"target < 10 s: {'met' if cold < 10 else 'MISSED'}"))  # fmt: skip
        rows.append(BenchRow(case, "index, incremental (nothing changed)", warm, None))
        rows.append(BenchRow(case, "Now page render", render, None,
                             f"target < 1 s: {'met' if render < 1 else 'MISSED'}"))  # fmt: skip
    return rows
