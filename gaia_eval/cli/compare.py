"""`gaia-eval compare BASELINE CURRENT`: is the difference between two runs real?"""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.options import alpha, positive_int, seed

NAME = "compare"
HELP = (
    "compare two runs of one suite item by item: per metric the change with its confidence "
    "interval, a p-value and a call (better / worse / no detectable change / inconclusive); "
    "exit 1 when a gated metric is worse, 3 when the runs are not comparable"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = "a run folder, its results.json, or builtin:SUITE/NAME"
    parser.add_argument("baseline", metavar="BASELINE", help=f"the run compared against ({where})")
    parser.add_argument("current", metavar="CURRENT", help=f"the run compared ({where})")
    add = parser.add_argument
    add("--out", type=Path, help="folder for compare.json, .md and .html (default: none written)")
    add("--alpha", type=alpha, default=0.05, help="significance level; intervals 1 - alpha (0.05)")
    add("--resamples", type=positive_int, default=10_000, help="resamples (10000)")
    add("--seed", type=seed, default=0, help="seed of the resampling (0)")


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.compare.launch import run as compare

    flags = {k: getattr(args, k) for k in ("out", "alpha", "resamples", "seed")}
    return compare(args.baseline, args.current, **flags)
