"""`gaia-eval sessions [run|controls]`: the older names of `gaia-eval run sessions` and
`gaia-eval run sessions-controls` (gaia_eval/sessions/options.py)."""

from __future__ import annotations

import argparse

from gaia_eval.cli._alias import runner
from gaia_eval.sessions.options import COMMAND, CONTROLS_COMMAND

NAME = "sessions"
HELP = COMMAND.help


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "mode",
        nargs="?",
        choices=["run", "controls"],
        default="run",
        help="run (default): replay and judge; controls: check the judge orders planted answers",
    )
    COMMAND.add_to(parser)


def run(args: argparse.Namespace) -> int:
    return runner(COMMAND if args.mode == "run" else CONTROLS_COMMAND)(args)
