"""`gaia-eval code run|gate|report|list`: the code-editing benchmark, scored by its tests."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from gaia_eval.cli._runflags import add_run_flags, non_negative
from gaia_eval.core.rundir import RESULTS_ROOT

NAME = "code"
HELP = "Code-editing benchmark: an agent changes small projects; their tests score it."


def _positive(kind: type[float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError as err:
            msg = f"expected a {kind.__name__}, got {text!r}"
            raise argparse.ArgumentTypeError(msg) from err
        if value <= 0:
            msg = f"expected a number > 0, got {text!r}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def _run_parser(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--harness",
        default="builtin",
        help="builtin | claude-code | command | replay (default builtin)",
    )
    run.add_argument(
        "--model",
        help="model spec (default for builtin: local, the embedded model), e.g. "
        "openai:http://127.0.0.1:8000/v1#qwen3",
    )
    run.add_argument(
        "--replay",
        help="replay harness: a shipped script set (reference, do-nothing, claims-success, "
        "edit-tests, plant-conftest, visible-only) or a JSON file of task id -> steps",
    )
    run.add_argument("--command-template", help="command harness: argv template with {prompt}")
    run.add_argument("--tasks", help="only these task ids, comma-separated")
    run.add_argument(
        "--tasks-dir", type=Path, help="a folder of task folders other than the shipped one"
    )
    run.add_argument(
        "--tries",
        type=int,
        choices=(1, 2),
        default=1,
        help="2: an unsolved task gets a second try with the failing test output (default 1)",
    )
    run.add_argument("--repeats", type=_positive(int), default=1, help="run every task N times")
    run.add_argument(
        "--run-timeout", type=_positive(float), help="wall-clock cap per try in s (default 1200)"
    )
    run.add_argument(
        "--tests-timeout", type=_positive(float), help="cap per grading test run in s (default 300)"
    )
    run.add_argument(
        "--work-root", type=Path, help="where task workdirs live (default: the run's temp folder)"
    )
    run.add_argument(
        "--full-access", action="store_true", help="builtin: no path boundary, no guardrails"
    )
    run.add_argument(
        "--fence",
        action="store_true",
        help="fence the agent off the answer keys and results (bubblewrap)",
    )
    run.add_argument("--price", help="USD per million tokens 'IN,OUT' for the agent model")
    run.add_argument("--keep-workdirs", action="store_true", help="keep each task's project copy")
    add_run_flags(run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="code_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="run an agent on every code task, then grade it by the tests",
        description="Run an agent on every code task and grade each by its visible and hidden "
        f"tests. The run folder (--out, default {RESULTS_ROOT.as_posix()}/code-<timestamp>) gets "
        "results.json, items.jsonl, report.md, report.html and a folder per task.",
    )
    _run_parser(run)

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
    from gaia_eval.cli import _code_impl as impl

    handler = getattr(impl, f"cmd_{args.code_command}")
    return int(handler(args))
