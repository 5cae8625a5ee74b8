"""`gaia-eval merge`: join shard (or resumed) runs into one result."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.launch import resolve_baseline
from gaia_eval.core.options import non_negative

NAME = "merge"
HELP = "join shard runs of one suite (`--shard i/N`) into one result that gates like one run"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="run folders to join")
    parser.add_argument("--out", type=Path, required=True, help="new folder for the merged run")
    parser.add_argument(
        "--gate", metavar="BASELINE", help="gate the merged result (file, folder or builtin:NAME)"
    )
    parser.add_argument("--tolerance", type=non_negative, help="allowed metric drop (finite, >= 0)")


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK
    from gaia_eval.core.merge import merge
    from gaia_eval.core.report import terminal_summary

    baseline, label = resolve_baseline(args.gate) if args.gate else (None, None)
    env, paths, cls = merge(
        args.dirs, args.out, baseline=baseline, baseline_label=label, tolerance=args.tolerance
    )
    for line in terminal_summary(cls, env):
        print(line)
    for kind, path in paths.items():
        print(f"  {kind}: {path}")
    failed = env.header.item_errors > 0 or (env.verdict is not None and not env.verdict.passed)
    return EXIT_GATE_FAILED if failed else EXIT_OK
