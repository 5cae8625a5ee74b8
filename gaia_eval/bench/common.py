"""Shared pieces of the benchmarks: the row every area reports, and a fair timer."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class BenchRow:
    """One measured implementation on one case."""

    case: str
    """The workload, e.g. '100000 q x 100 docs'."""
    impl: str
    """Who ran it, e.g. 'gaia_eval (native)', 'numpy', 'pytrec_eval'."""
    median_s: float
    """Median wall seconds over the repeats."""
    ratio: float | None = None
    """median_s of this impl / median_s of ours (so 30.0 = we are 30x faster); None for ours."""
    note: str = ""
    """What the figure includes (e.g. 'incl. conversion from dict input'), or a skip reason."""


def time_interleaved(
    impls: dict[str, Callable[[], object]], repeats: int = 5, warmup: int = 1
) -> dict[str, float]:
    """Median seconds per implementation, running them round-robin so that machine noise
    (thermal, other processes) falls on all of them alike."""
    for _ in range(warmup):
        for fn in impls.values():
            fn()
    samples: dict[str, list[float]] = {name: [] for name in impls}
    for _ in range(repeats):
        for name, fn in impls.items():
            t0 = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t0)
    return {name: statistics.median(s) for name, s in samples.items()}


def ratio_rows(case: str, medians: dict[str, float], note: str, others: str = "") -> list[BenchRow]:
    """One row per implementation, each other one's median as a ratio to ours (the
    `gaia_eval` row); `others` is appended to the note of the rows that are not ours."""
    ours = next(m for name, m in medians.items() if name.startswith("gaia_eval"))
    return [
        BenchRow(
            case=case,
            impl=name,
            median_s=median,
            ratio=None if name.startswith("gaia_eval") else median / ours,
            note=note if name.startswith("gaia_eval") or not others else f"{note}; {others}",
        )
        for name, median in medians.items()
    ]


def installed(module: str) -> bool:
    """An optional anchor library can be imported (its rows are skipped otherwise)."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
