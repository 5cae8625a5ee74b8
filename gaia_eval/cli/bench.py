"""`gaia-eval bench`: speed of the native hot paths against named anchor libraries.

Runs the chosen areas of those listed in `gaia_eval.bench.AREAS` (each a module defining
`TITLE` and `run(quick)`) in this process, holding the eval lock since a concurrent eval
would skew every timing, and prints medians and ratios.
"""

from __future__ import annotations

import argparse
import importlib
import math
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gaia_eval.bench.common import BenchRow

NAME = "bench"
HELP = "Benchmark the native core against numpy and reference libraries (medians, ratios)."


def areas() -> list[str]:
    """Every bench area (the package's explicit registry, not a scan of its modules:
    a helper module must never be run as an area)."""
    from gaia_eval.bench import AREAS

    return list(AREAS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--only",
        metavar="AREA[,AREA]",
        help=f"run only these areas (available: {', '.join(areas()) or 'none'})",
    )
    parser.add_argument(
        "--quick", action="store_true", help="smaller workloads and fewer repeats (a smoke run)"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows as JSON")
    from gaia_eval.core.options import WAIT_LOCK

    WAIT_LOCK.add_to(parser)


def _chosen(only: str | None) -> list[str]:
    from gaia_eval.core.errors import InvalidInputError

    known = areas()
    if not only:
        return known
    wanted = [a.strip() for a in only.split(",") if a.strip()]
    unknown = [a for a in wanted if a not in known]
    if unknown or not wanted:
        msg = (
            f"--only {only!r}: unknown area {', '.join(unknown) or '(none given)'}; "
            f"choose from {', '.join(known)}"
        )
        raise InvalidInputError(msg)
    return wanted


def _module(area: str) -> ModuleType:
    mod = importlib.import_module(f"gaia_eval.bench.{area}")
    if not hasattr(mod, "TITLE") or not hasattr(mod, "run"):
        msg = f"gaia_eval.bench.{area} defines no TITLE and run(quick); it is not a bench area"
        raise TypeError(msg)
    return mod


def format_table(rows: list[tuple[str, BenchRow]]) -> str:
    """Plain-text table of (area, BenchRow) pairs: aligned columns, one row per line."""
    header = ("area", "case", "implementation", "includes", "median", "ratio")
    lines: list[tuple[str, ...]] = [header]
    for area, row in rows:
        lines.append(
            (
                area,
                row.case,
                row.impl,
                row.note,
                "-" if math.isnan(row.median_s) else _seconds(row.median_s),
                "" if row.ratio is None or math.isnan(row.ratio) else f"{row.ratio:.1f}x",
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for n, line in enumerate(lines):
        cells = [
            cell.rjust(w) if i >= 4 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def _seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def run(args: argparse.Namespace) -> int:
    from gaia_eval.bench.models import BenchResult, BenchRowModel
    from gaia_eval.core.lock import eval_lock
    from gaia_eval.core.progress import note
    from gaia_eval.core.results_io import write_json
    from gaia_eval.core.runmeta import RunClock

    chosen = _chosen(args.only)
    modules = {area: _module(area) for area in chosen}
    clock = RunClock()
    measured: list[tuple[str, BenchRow]] = []
    with eval_lock("gaia-eval bench", wait=args.wait_lock):
        try:
            for area, mod in modules.items():
                note(f"bench {area}: {mod.TITLE}{' (quick)' if args.quick else ''} ...")
                measured.extend((area, row) for row in mod.run(args.quick))
        finally:
            # Whatever finished is printed and kept, even when a later area fails.
            if measured:
                print(format_table(measured), flush=True)
            if args.json is not None:
                result = BenchResult(
                    quick=args.quick,
                    areas=chosen,
                    rows=[
                        BenchRowModel(
                            area=area,
                            case=row.case,
                            impl=row.impl,
                            median_s=_finite(row.median_s),
                            ratio=_finite(row.ratio),
                            note=row.note,
                        )
                        for area, row in measured
                    ],
                    meta=clock.finish(),
                )
                write_json(args.json, result)
    return 0


def _finite(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x
