"""`gaia-eval compare BASELINE CURRENT`: is the difference between two runs real?"""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.options import finite, positive_int

NAME = "compare"
HELP = (
    "compare two runs of one suite item by item: per metric the change with its confidence "
    "interval, a p-value and a call (better / worse / no detectable change / inconclusive); "
    "exit 1 when a gated metric is worse, 3 when the runs are not comparable"
)


def _alpha(text: str) -> float:
    value = finite(text)
    if not 0 < value < 0.5:
        msg = f"--alpha must be a number within (0, 0.5), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2**64:
        msg = f"--seed must be a whole number within [0, 2**64), got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    where = "a run folder, its results.json, or builtin:SUITE/NAME"
    parser.add_argument("baseline", metavar="BASELINE", help=f"the run compared against ({where})")
    parser.add_argument("current", metavar="CURRENT", help=f"the run compared ({where})")
    parser.add_argument(
        "--out",
        type=Path,
        help="folder for compare.json, compare.md and compare.html (default: none written)",
    )
    parser.add_argument(
        "--alpha",
        type=_alpha,
        default=0.05,
        help="significance level; intervals are 1 - alpha (0.05)",
    )
    parser.add_argument(
        "--resamples",
        type=positive_int,
        default=10_000,
        help="bootstrap and permutation resamples (10000)",
    )
    parser.add_argument("--seed", type=_seed, default=0, help="seed of the resampling (0)")


def run(args: argparse.Namespace) -> int:
    from gaia_eval._native import MAX_RESAMPLES
    from gaia_eval.core.compare import render
    from gaia_eval.core.compare.engine import compare, load_pair
    from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK, InvalidInputError
    from gaia_eval.core.results_io import scrub_text, write_json, write_text

    if args.resamples > MAX_RESAMPLES:
        msg = f"--resamples must be at most {MAX_RESAMPLES}, got {args.resamples}"
        raise InvalidInputError(msg)
    baseline, current = load_pair(args.baseline, args.current)
    cmp = compare(baseline, current, alpha=args.alpha, resamples=args.resamples, seed=args.seed)
    for c in cmp.changed:
        print(scrub_text(f"changed: {c.field}: {c.baseline} -> {c.current}"))
    for m in cmp.metrics:
        p = "no power" if m.p_value is None else f"p={m.p_value:.4g}"
        gated = " (gated)" if m.gated else ""
        print(
            f"{m.name}{gated}: {m.baseline:.3f} -> {m.current:.3f}, change {m.delta:+.3f} "
            f"[{m.low:+.3f}, {m.high:+.3f}], {p}, MDE {m.mde:.3f}: {m.call}"
        )
    for line in cmp.notes:
        print(f"note: {line}")
    if cmp.only_baseline or cmp.only_current:
        only = f"{len(cmp.only_baseline)} baseline, {len(cmp.only_current)} current"
        print(f"items in one run only: {only}")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        print(f"  json: {write_json(args.out / 'compare.json', cmp)}")
        print(f"  md: {write_text(args.out / 'compare.md', render.markdown(cmp))}")
        print(f"  html: {write_text(args.out / 'compare.html', render.html(cmp))}")
    if cmp.worse:
        print(f"WORSE: {', '.join(cmp.worse)}")
        return EXIT_GATE_FAILED
    return EXIT_OK
