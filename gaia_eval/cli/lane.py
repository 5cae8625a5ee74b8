"""`gaia-eval lane NAME`: run an eval CI lane's steps here, or one shard of one (CI's matrix).

gaia-eval lane --list
gaia-eval lane weekly --shards 3 --out runs/weekly        # every step, shards in turn
gaia-eval lane weekly --step memory_pr --shard 2/3 --out runs/weekly   # one CI job
gaia-eval lane weekly --merge-only --out runs/weekly       # CI's final job
gaia-eval lane --plan --event push --ref refs/tags/v1.2.0-rc3 --message "rc3 [full eval]"
gaia-eval lane verify --tag v1.2.0 --from downloaded-artifacts/
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gaia_eval.core.options import positive_int

NAME = "lane"
HELP = "run an eval CI lane (core/lanes.toml) here: its steps, shards, merge, gate and scrub check"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="the lane (see --list)")
    parser.add_argument("--list", action="store_true", help="list the lanes and their steps")
    parser.add_argument(
        "--out", type=Path, help="folder for the lane's runs (default eval/lanes/NAME)"
    )
    parser.add_argument("--shards", type=positive_int, help="split every step into N shards")
    parser.add_argument(
        "--step", action="append", default=[], metavar="STEP", help="only this step (repeatable)"
    )
    parser.add_argument("--shard", metavar="I/N", help="with one --step: run only that shard")
    parser.add_argument(
        "--merge-only", action="store_true", help="merge and gate shards already in --out"
    )
    parser.add_argument(
        "--scrub-check",
        action="store_true",
        help="only check that every file under --out passes `gaia-eval scrub --check` "
        "(CI runs it before each upload)",
    )
    parser.add_argument(
        "--plan",
        action="store_true",
        help="print which lane a CI event runs, with its shard matrix, as JSON",
    )
    parser.add_argument("--event", default="", help="--plan: the GitHub event name")
    parser.add_argument("--ref", default="", help="--plan: the git ref (refs/tags/v1.2.0-rc1)")
    parser.add_argument("--message", default="", help="--plan: the commit or tag message")
    parser.add_argument("--dispatch-lane", default="", help="--plan: a dispatch's lane input")
    parser.add_argument("--tag", help="verify: the final release tag (v1.2.0)")
    parser.add_argument(
        "--from",
        dest="roots",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="verify: folders holding earlier lanes' runs (lane.json files)",
    )
    from gaia_eval.core.options import WAIT_LOCK

    WAIT_LOCK.add_to(parser)


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.lane_command import run as run_lane

    return run_lane(args)
