"""`gaia-eval tasks run|judge|controls|gate|propose|report`: the flagship agent tasks."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError

NAME = "tasks"
HELP = "Flagship agent tasks: give an agent real work on a small project and score the result."

# Every setting has an environment variable; the flag wins.
ENV = {
    "suite": "GAIA_EVAL_TASKS_SUITE",
    "harness": "GAIA_EVAL_TASKS_HARNESS",
    "model": "GAIA_EVAL_TASKS_MODEL",
    "out": "GAIA_EVAL_TASKS_RESULTS_DIR",
    "run_timeout": "GAIA_EVAL_TASKS_RUN_TIMEOUT",
    "work_root": "GAIA_EVAL_TASKS_WORK_ROOT",
    "repeats": "GAIA_EVAL_TASKS_REPEATS",
    "judge_model": "GAIA_EVAL_JUDGE_MODEL",
    "command_template": "GAIA_EVAL_TASKS_COMMAND",
    "replay": "GAIA_EVAL_TASKS_REPLAY",
    "price": "GAIA_EVAL_TASKS_PRICE",
    "claude": "GAIA_EVAL_CLAUDE_BIN",
    "tasks": "GAIA_EVAL_TASKS_IDS",
    "full_access": "GAIA_EVAL_TASKS_FULL_ACCESS",
}


def _env(key: str) -> str | None:
    value = os.environ.get(ENV[key], "").strip()
    return value or None


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def required(args: argparse.Namespace, key: str, why: str) -> str:
    value = getattr(args, key, None) or _env(key)
    if not value:
        msg = f"{_flag(key)} is required {why}: pass {_flag(key)} or set {ENV[key]}"
        raise InvalidInputError(msg)
    return str(value)


def _common_judge(p: argparse.ArgumentParser) -> None:
    p.add_argument("--judge-model", help=f"judge model spec [{ENV['judge_model']}]")
    p.add_argument("--judge-attempts", type=int, default=2, help="tries per grade (default 2)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="tasks_command", metavar="SUBCOMMAND", required=True)
    run = sub.add_parser("run", help="run an agent on each task of a suite, then judge")
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
        "--out",
        type=Path,
        help=f"run folder (default eval/results/tasks-<timestamp>) [{ENV['out']}]",
    )
    run.add_argument(
        "--repeats", type=int, help=f"run the suite N times into r1, r2, ... [{ENV['repeats']}]"
    )
    run.add_argument(
        "--run-timeout",
        type=float,
        help=f"wall-clock cap per task in s (default 1800) [{ENV['run_timeout']}]",
    )
    run.add_argument(
        "--work-root",
        type=Path,
        help=f"where task workdirs live (default: temp) [{ENV['work_root']}]",
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
    run.add_argument("--no-judge", action="store_true", help="skip judging")
    run.add_argument(
        "--price", help=f"USD per million tokens 'IN,OUT' for the agent model [{ENV['price']}]"
    )
    run.add_argument("--keep-workdirs", action="store_true", help="keep each task's project copy")
    _common_judge(run)

    judge = sub.add_parser("judge", help="grade a finished run (all repeats)")
    judge.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    judge.add_argument("--tasks-file", type=Path)
    _common_judge(judge)

    controls = sub.add_parser("controls", help="check the judge on three planted attempts")
    controls.add_argument("--out", type=Path, help="where the planted runs go (default: temp)")
    controls.add_argument("--work-root", type=Path)
    _common_judge(controls)

    cal = sub.add_parser(
        "calibrate", help="ask the judge about every question's reference and wrong answers"
    )
    cal.add_argument("--suite", default="full", help="whose question tasks (default full)")
    cal.add_argument("--out", type=Path, help="write calibration.json here")
    _common_judge(cal)

    gate = sub.add_parser("gate", help="compare a run with its expectations")
    gate.add_argument("dir", type=Path, metavar="DIR")
    gate.add_argument(
        "--expect",
        type=Path,
        help="expectations file (default: the shipped one for model and suite)",
    )
    gate.add_argument(
        "--enforce", action="store_true", help="exit 1 on a miss or an unmeasured task"
    )
    gate.add_argument(
        "--propose", type=Path, metavar="FILE", help="also write expectations from this run"
    )

    prop = sub.add_parser("propose", help="write expectations every one of several judged runs met")
    prop.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    prop.add_argument("--out", type=Path, required=True, metavar="FILE")

    rep = sub.add_parser(
        "report", help="harness x model table from finished runs (markdown + HTML)"
    )
    rep.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    rep.add_argument("--out", type=Path, required=True, metavar="DIR")


def run(args: argparse.Namespace) -> int:
    from gaia_eval.cli import _tasks_impl as impl

    handler = getattr(impl, f"cmd_{args.tasks_command}")
    return int(handler(args))
