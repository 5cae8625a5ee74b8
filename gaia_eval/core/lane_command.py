"""`gaia-eval lane`: what the command does once its arguments are parsed (cli/lane.py parses
them): list the lanes, plan an event, run steps or one shard, merge, check, propose,
verify a final release."""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path

from gaia_eval.core.errors import EXIT_GATE_FAILED, EXIT_OK, InvalidInputError


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
