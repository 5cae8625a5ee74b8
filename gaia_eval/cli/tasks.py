"""`gaia-eval tasks run|judge|controls|calibrate|gate|propose|report`: the flagship tasks."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.cli._alias import runner
from gaia_eval.core.rundir import RESULTS_ROOT
from gaia_eval.tasks.options import COMMAND, CONTROLS_COMMAND, JUDGE, env_names

NAME = "tasks"
HELP = "Flagship agent tasks: give an agent real work on a small project and score the result."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tasks_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="run an agent on each task of a suite, then judge",
        description=f"Run an agent on each task of a suite, then judge. The run folder (--out, "
        f"default {RESULTS_ROOT.as_posix()}/tasks-<suite>-<timestamp>) [{env_names('out')}] "
        "gets results.json, "
        "items.jsonl, report.md, report.html and a folder per task.",
    )
    COMMAND.add_to(run)

    judge = sub.add_parser("judge", help="grade finished runs (every repeat)")
    judge.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="tasks run folders")
    judge.add_argument("--tasks-file", type=Path, help="the tasks.json the runs used")
    JUDGE.add_to(judge)

    controls = sub.add_parser("controls", help="check the judge on three planted attempts")
    CONTROLS_COMMAND.add_to(controls)

    cal = sub.add_parser(
        "calibrate", help="ask the judge about every question's reference and wrong answers"
    )
    cal.add_argument("--suite", default="full", help="whose question tasks (default full)")
    cal.add_argument("--out", type=Path, help="write calibration.json into this folder")
    JUDGE.add_to(cal)

    gate = sub.add_parser("gate", help="compare a run with its expectations")
    gate.add_argument("dir", type=Path, metavar="DIR", help="a tasks run folder")
    gate.add_argument(
        "--expect",
        type=Path,
        metavar="FILE",
        help="expectations file, or shipped ones by name (builtin:tasks/<name>; `gaia-eval "
        "baselines` lists them); default: the committed one for the model and suite, "
        "gaia_eval/baselines/tasks/<model>.<suite>.json",
    )
    gate.add_argument(
        "--enforce",
        action="store_true",
        help="exit 1 on a miss or an unmeasured task (no committed expectations: not gated yet)",
    )
    gate.add_argument(
        "--propose", type=Path, metavar="FILE", help="also write expectations from this run"
    )

    prop = sub.add_parser("propose", help="write expectations every one of several judged runs met")
    prop.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="judged tasks run folders")
    prop.add_argument(
        "--out", type=Path, required=True, metavar="FILE", help="the expectations file to write"
    )

    gway = sub.add_parser(
        "gateway",
        help="run the model gateway in the foreground (for a matrix that reuses one)",
        description="Run the model gateway in the foreground until Ctrl-C: a loopback proxy "
        "that holds the upstream key, rewrites system-role entries of /messages calls as "
        "user entries, streams through and counts tokens per call. Point runs at it with "
        "`tasks run --gateway-url http://127.0.0.1:PORT`.",
    )
    gway.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    gway.add_argument(
        "--upstream",
        help="the backend's root URL, e.g. http://127.0.0.1:8000 (an OpenAI base without "
        "its /v1); default: the embedded local model, started now",
    )
    gway.add_argument(
        "--upstream-key-env",
        default="GAIA_EVAL_OPENAI_API_KEY",
        metavar="VAR",
        help="the variable holding the upstream key (default GAIA_EVAL_OPENAI_API_KEY)",
    )
    gway.add_argument(
        "--auth",
        choices=["bearer", "x-api-key"],
        default="bearer",
        help="how the key is sent upstream (default bearer)",
    )

    rep = sub.add_parser(
        "report", help="harness x model table from finished runs (markdown, HTML and PNG)"
    )
    rep.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="tasks run folders")
    rep.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="folder for report.md and .html"
    )
    p = sub.add_parser("swebench", help="grade a finished swebench run with the official harness")
    p.add_argument("dir", type=Path, metavar="DIR", help="a `tasks run --suite swebench` folder")
    p.add_argument("--docker-platform", help="platform images are pulled for (linux/amd64)")
    p.add_argument("--keep-images", action="store_true", help="do not pull/remove each image")
    p.add_argument("--work-root", type=Path, help="where the SWE-bench row cache lives")
    # A subcommand's --help opens with the line `tasks --help` lists for it.
    for choice in sub._choices_actions:
        parser_of = sub.choices[choice.dest]
        parser_of.description = parser_of.description or choice.help


def run(args: argparse.Namespace) -> int:
    from gaia_eval.tasks import commands as impl

    if args.tasks_command in ("run", "controls"):  # as `gaia-eval run tasks[-controls]`
        return runner(COMMAND if args.tasks_command == "run" else CONTROLS_COMMAND)(args)
    handler = getattr(impl, f"cmd_{args.tasks_command}")
    return int(handler(args))
