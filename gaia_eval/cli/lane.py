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
import os
import subprocess
from pathlib import Path

from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK, InvalidInputError
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


def _git(args: list[str]) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        msg = f"git {' '.join(args)} failed: {done.stderr.strip()[:300]}"
        raise InvalidInputError(msg)
    return done.stdout


def _commit() -> str | None:
    sha = os.environ.get("GITHUB_SHA")
    if sha:
        return sha
    done = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or None


def _list() -> int:
    from gaia_eval.core.lanes import lanes

    for lane in lanes().values():
        print(f"{lane.name}: {lane.description}")
        print(f"  trigger: {lane.trigger}")
        for step in lane.steps:
            needs = f"  (needs {', '.join(step.needs)})" if step.needs else ""
            shards = f" x{step.shards} shards" if step.shards > 1 else ""
            print(f"  - {step.name}: gaia-eval {' '.join(step.argv)}{shards}{needs}")
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    from gaia_eval.core.lanes import lane, release_commits, verify

    chosen = lane(args.name)
    if not args.tag or not args.roots:
        msg = f"lane {chosen.name}: give --tag vX.Y.Z and --from DIR (earlier lanes' runs)"
        raise InvalidInputError(msg)
    commits = release_commits(args.tag, _git)
    found = verify(args.roots, commits, chosen.verify or "full")
    if found is None:
        print(
            f"verify {args.tag}: no complete {chosen.verify} sweep measured {args.tag} or one "
            f"of its release candidates ({len(commits)} commit(s) checked); run the "
            f"{chosen.verify} lane on a release candidate"
        )
        return EXIT_GATE_FAILED
    print(f"verify {args.tag}: a complete {found.lane} sweep measured commit {found.commit}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.lanes import (
        LANE_FILE,
        LaneRun,
        lane,
        lane_exit,
        plan,
        run_steps,
        scrub_check,
    )
    from gaia_eval.core.results_io import write_json

    if args.list:
        return _list()
    if args.plan:
        made = plan(args.event, args.ref, args.message, dispatch_lane=args.dispatch_lane,
                    shards=args.shards)  # fmt: skip
        print(made.model_dump_json())
        return EXIT_OK
    if not args.name:
        msg = "name a lane (gaia-eval lane --list shows them)"
        raise InvalidInputError(msg)
    chosen = lane(args.name)
    if chosen.verify:
        return _verify(args)
    out = args.out or Path("eval") / "lanes" / chosen.name
    if args.scrub_check:
        clean = scrub_check(out)
        print(f"scrub check of {out}: {'clean' if clean else 'a file would be redacted'}")
        return EXIT_OK if clean else EXIT_GATE_FAILED
    wait = [] if args.wait_lock is None else [f"--wait-lock={args.wait_lock}"]
    job = LaneRun(chosen, out, shards=args.shards, only=args.step, commit=_commit(), extra=wait)
    if args.shard:
        return _one_shard(job, args.shard)
    record = run_steps(job, merge_only=args.merge_only)
    ran = any(o.status != "not run" for o in record.steps)
    if ran:
        record.scrub_check = "clean" if scrub_check(out, run=job.run) else "found"
    if chosen.propose:
        _propose(job, record)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / LANE_FILE, record)
    for o in record.steps:
        print(
            f"{o.step}: {o.status}: {o.detail}"
            if o.status == "not run"
            else f"{o.step}: {o.status} ({o.detail})"
        )
    print(f"scrub check: {record.scrub_check}")
    print(
        f"lane {chosen.name}: {'complete' if record.complete else 'incomplete'}; {out / LANE_FILE}"
    )
    return lane_exit(record)


def _propose(job: object, record: object) -> None:
    """Expectations proposals from the lane's judged tasks runs, kept beside them for
    review: CI uploads them; nothing is committed automatically."""
    from gaia_eval.core.lanes import LaneRecord, LaneRun

    assert isinstance(job, LaneRun) and isinstance(record, LaneRecord)
    steps = {s.name: s for s in job.steps()}
    for o in record.steps:
        step = steps[o.step]
        judged = step.argv[:2] == ("tasks", "run") and "--no-judge" not in step.argv
        if not judged or o.folder is None or o.status == "not run":
            continue
        target = job.out / "proposals" / f"{o.step}.json"
        code = job.run(["tasks", "propose", o.folder, "--out", str(target)])
        said = f"written to {target}" if code == 0 else f"not written (exit {code})"
        print(f"{o.step}: expectations proposal {said}")


def _one_shard(job: object, shard: str) -> int:
    from gaia_eval.core.lanes import LaneRun, run_shard

    assert isinstance(job, LaneRun)
    steps = job.steps()
    if len(job.only) != 1:
        msg = "--shard I/N runs one shard of one step: name exactly one --step"
        raise InvalidInputError(msg)
    (step,) = steps
    index, _, count = shard.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        msg = f"--shard {shard!r}: expected I/N with 1 <= I <= N, such as 2/3"
        raise InvalidInputError(msg)
    missing = step.missing(job.environ)
    if missing:
        print(f"{step.name}: not run: no credentials ({', '.join(missing)} unset)")
        return EXIT_OK
    return run_shard(
        step, job.out, int(index), int(count), environ=job.environ, run=job.run, extra=job.extra
    )
