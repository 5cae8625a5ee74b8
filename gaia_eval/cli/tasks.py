"""`gaia-eval tasks run|judge|controls|calibrate|gate|propose|report`: the flagship tasks."""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.cli import _tasks_repo
from gaia_eval.cli._runflags import add_run_flags
from gaia_eval.core.rundir import RESULTS_ROOT
from gaia_eval.tasks.settings import ENV, SPEC_ENV

NAME = "tasks"
HELP = "Flagship agent tasks: give an agent real work on a small project and score the result."


def _var(key: str) -> str:
    """Today's variable and the specification's name for it."""
    return f"{ENV[key]} or {SPEC_ENV[key]}" if key in SPEC_ENV else ENV[key]


def _common_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge-model", help=f"judge model spec [{ENV['judge_model']}]")
    p.add_argument("--judge-attempts", type=int, default=2, help="tries per grade (default 2)")


def _run_parser(run: argparse.ArgumentParser) -> None:
    run.add_argument("--suite", help=f"suite name (default core) [{ENV['suite']}]")
    run.add_argument("--tasks", help=f"only these task ids, comma-separated [{ENV['tasks']}]")
    run.add_argument("--tasks-file", type=Path, help="a tasks.json other than the shipped one")
    run.add_argument(
        "--harness",
        help=f"builtin | claude-code | command | replay (default builtin) [{ENV['harness']}]",
    )
    run.add_argument(
        "--model", help=f"model spec, e.g. openai:http://127.0.0.1:8000/v1#qwen3 [{ENV['model']}]"
    )
    run.add_argument(
        "--replay",
        type=Path,
        help=f"replay harness: JSON of task id -> script, or 'reference' [{ENV['replay']}]",
    )
    run.add_argument(
        "--command-template",
        help=f"command harness: argv template with {{prompt}} [{ENV['command_template']}]",
    )
    run.add_argument(
        "--repeats",
        type=int,
        help=f"run every task N times in one run (items <task>, <task>#r2...) [{ENV['repeats']}]",
    )
    run.add_argument(
        "--run-timeout",
        type=float,
        help=f"wall-clock cap per task in s (default 1800) [{_var('run_timeout')}]",
    )
    run.add_argument(
        "--work-root",
        type=Path,
        help=f"where task workdirs live (default: the run's temp folder) [{_var('work_root')}]",
    )
    run.add_argument(
        "--full-access",
        action="store_true",
        help=f"builtin: no path boundary, no shell guardrails [{ENV['full_access']}=1]",
    )
    run.add_argument(
        "--fence",
        action="store_true",
        help="fence the agent off the answer keys, results and other workdirs (bubblewrap)",
    )
    run.add_argument(
        "--gateway-url",
        help="a model gateway already running (`tasks gateway`); default: the run starts "
        f"its own [{_var('gateway_url')}]",
    )
    run.add_argument(
        "--meter",
        choices=["fireworks"],
        help="read the run's real cost from the provider's billing meter (account "
        f"{_var('fireworks_account')}, key FIREWORKS_API_KEY) [{ENV['meter']}]",
    )
    run.add_argument("--no-judge", action="store_true", help="skip judging")
    run.add_argument(
        "--price", help=f"USD per million tokens 'IN,OUT' for the agent model [{ENV['price']}]"
    )
    run.add_argument(
        "--keep-workdirs", action="store_true", help="keep each task's project copy after it ran"
    )
    _common_judge(run)
    add_run_flags(run)
    _tasks_repo.add_run_flags(run)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tasks_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser(
        "run",
        help="run an agent on each task of a suite, then judge",
        description=f"Run an agent on each task of a suite, then judge. The run folder (--out, "
        f"default {RESULTS_ROOT.as_posix()}/tasks-<suite>-<timestamp>) [{_var('out')}] gets "
        "results.json, "
        "items.jsonl, report.md, report.html and a folder per task.",
    )
    _run_parser(run)

    judge = sub.add_parser("judge", help="grade finished runs (every repeat)")
    judge.add_argument("dirs", nargs="+", type=Path, metavar="DIR", help="tasks run folders")
    judge.add_argument("--tasks-file", type=Path, help="the tasks.json the runs used")
    _common_judge(judge)

    controls = sub.add_parser("controls", help="check the judge on three planted attempts")
    controls.add_argument("--work-root", type=Path, help="where the planted workdirs live")
    _common_judge(controls)
    add_run_flags(controls, gate=False)

    cal = sub.add_parser(
        "calibrate", help="ask the judge about every question's reference and wrong answers"
    )
    cal.add_argument("--suite", default="full", help="whose question tasks (default full)")
    cal.add_argument("--out", type=Path, help="write calibration.json into this folder")
    _common_judge(cal)

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
    _tasks_repo.add_swebench_command(sub)
    # A subcommand's --help opens with the line `tasks --help` lists for it.
    for choice in sub._choices_actions:
        parser_of = sub.choices[choice.dest]
        parser_of.description = parser_of.description or choice.help


def run(args: argparse.Namespace) -> int:
    from gaia_eval.cli import _tasks_impl as impl

    handler = getattr(impl, f"cmd_{args.tasks_command}")
    return int(handler(args))
