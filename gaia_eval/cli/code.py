"""`gaia-eval code run|gate|report|list`: the code-editing benchmark, scored by its tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.cli._alias import runner
from gaia_eval.code_bench.options import COMMAND
from gaia_eval.core.options import non_negative
from gaia_eval.core.rundir import RESULTS_ROOT

NAME = "code"
HELP = "Code-editing benchmark: an agent changes small projects; their tests score it."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="code_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="run an agent on every code task, then grade it by the tests",
        description="Run an agent on every code task and grade each by its visible and hidden "
        f"tests. The run folder (--out, default {RESULTS_ROOT.as_posix()}/code-<timestamp>) gets "
        "results.json, items.jsonl, report.md, report.html and a folder per task.",
    )
    COMMAND.add_to(run)

    gate = sub.add_parser(
        "gate",
        help="gate a finished run against a baseline",
        description="Gate a finished code run against a baseline of the same harness, model "
        "and tasks; the verdict goes into its results.json and reports (exit 1 when it fails, "
        "3 when the two are not comparable).",
    )
    gate.add_argument("dir", type=Path, metavar="DIR", help="a code run folder")
    gate.add_argument(
        "--baseline",
        required=True,
        help="a results.json, a run folder, or a shipped baseline (builtin:code/reference-replay)",
    )
    gate.add_argument("--tolerance", type=non_negative, help="allowed drop, overriding the rules")

    rep = sub.add_parser(
        "report",
        help="rewrite a run's report, or compare several runs",
        description="With one run folder: rewrite its report.md and report.html. With several "
        "and --out: one table comparing them (solved, hidden tests, pass@1/2, dishonest, cost).",
    )
    rep.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="code run folders")
    rep.add_argument("--out", type=Path, help="folder for a comparison report.md and .html")

    lst = sub.add_parser(
        "list",
        help="the tasks, their kinds and categories",
        description="List the code tasks (the shipped ones, or those of --tasks-dir).",
    )
    lst.add_argument("--tasks-dir", type=Path, help="a folder of task folders")


def run(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench import commands as impl

    if args.code_command == "run":  # the suite's options, as `gaia-eval run code`
        return runner(COMMAND)(args)
    handler = getattr(impl, f"cmd_{args.code_command}")
    return int(handler(args))
