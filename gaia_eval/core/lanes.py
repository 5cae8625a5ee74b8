"""Eval CI lanes: which runs a trigger starts, and running a lane's steps anywhere.

A lane (core/lanes.toml) is a list of steps; a step is a registered run (suites.toml) or a
command of its own. `gaia-eval lane NAME` runs every step on this machine: each step's
shards one after another (`--shard i/N`), then `gaia-eval merge` and the step's gate, then
`gaia-eval scrub --check` over everything written. CI runs the same steps one shard per
job (`--step S --shard i/N`) and merges in a final job (`--merge-only`), so the workflow
YAML stays a thin caller and a lane can be tried locally before it is pushed.

A step whose model or credentials are not set is "not run: no credentials", never a
failure. The engine names no suite here: lanes name runs, and runs are data.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import Field

from gaia_eval.core.errors import (
    EXIT_GATE_FAILED,
    EXIT_INFRA,
    EXIT_INVALID,
    EXIT_LEAK,
    EXIT_OK,
    InvalidInputError,
)
from gaia_eval.core.models import ResultModel

LANE_FILE = "lane.json"
_VAR = re.compile(r"\$\{([A-Z][A-Z0-9_]*)\}")
_NAME = re.compile(r"[a-z][a-z0-9_-]*")


@dataclass(frozen=True)
class Step:
    """One run of a lane: `gaia-eval ARGV`, split into `shards`, gated after the merge."""

    name: str
    argv: tuple[str, ...]
    gate: str | None = None
    extras: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    shards: int = 1

    def missing(self, environ: Mapping[str, str]) -> list[str]:
        """The variables this step needs that are unset or empty."""
        wanted = [*self.needs, *(_VAR.findall(" ".join(self.argv)))]
        return [v for v in dict.fromkeys(wanted) if not environ.get(v)]

    def command(self, environ: Mapping[str, str]) -> list[str]:
        """argv with its ${VARIABLE}s filled in (each one a whole argument, never a shell)."""
        return [_VAR.sub(lambda m: environ[m.group(1)], a) for a in self.argv]


@dataclass(frozen=True)
class Lane:
    name: str
    description: str
    trigger: str
    steps: tuple[Step, ...]
    propose: bool = False
    verify: str | None = None  # the lane whose complete sweep this lane checks for


def _read_toml(name: str) -> dict[str, object]:
    text = (resources.files("gaia_eval.core") / name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def _split_gate(argv: Sequence[str]) -> tuple[tuple[str, ...], str | None]:
    """argv without its `--gate X`, and X: shards are gated once, after the merge."""
    out: list[str] = []
    gate = None
    words = list(argv)
    while words:
        word = words.pop(0)
        if word == "--gate" and words:
            gate = words.pop(0)
        elif word.startswith("--gate="):
            gate = word.partition("=")[2]
        else:
            out.append(word)
    return tuple(out), gate


def _step(lane: str, row: Mapping[str, object], runs: Mapping[str, object]) -> Step:
    where = f"core/lanes.toml lane {lane!r}"
    if "run" in row:
        run = runs.get(str(row["run"]))
        if not isinstance(run, dict):
            msg = f"{where}: step run {row['run']!r} is not a [run.*] entry of suites.toml"
            raise InvalidInputError(msg)
        argv, gate = _split_gate([str(a) for a in run["argv"]])
        name = str(row["run"])
        extras = tuple(str(e) for e in run.get("extras", []))
    else:
        name = str(row.get("name", ""))
        argv, gate = _split_gate([str(a) for a in row.get("argv", [])])  # type: ignore[attr-defined]
        extras = tuple(str(e) for e in row.get("extras", []))  # type: ignore[attr-defined]
    if not _NAME.fullmatch(name) or not argv:
        msg = f"{where}: every step needs a name (lower case) and an argv; got {dict(row)!r}"
        raise InvalidInputError(msg)
    shards = row.get("shards", 1)
    if not isinstance(shards, int) or shards < 1:
        msg = f"{where} step {name}: shards must be a whole number >= 1, not {shards!r}"
        raise InvalidInputError(msg)
    needs = tuple(str(n) for n in row.get("needs", []))  # type: ignore[attr-defined]
    return Step(name, argv, gate, extras, needs, shards)


def lanes() -> dict[str, Lane]:
    """Every lane of core/lanes.toml, its steps resolved against suites.toml's runs."""
    runs = _read_toml("suites.toml").get("run", {})
    assert isinstance(runs, dict)
    table = _read_toml("lanes.toml").get("lane", {})
    assert isinstance(table, dict)
    out = {}
    for name, row in table.items():
        steps = tuple(_step(name, s, runs) for s in row.get("steps", []))
        names = [s.name for s in steps]
        if len(set(names)) != len(names):
            msg = f"core/lanes.toml lane {name!r}: a step name appears twice ({names})"
            raise InvalidInputError(msg)
        out[name] = Lane(
            name,
            str(row["description"]),
            str(row["trigger"]),
            steps,
            propose=bool(row.get("propose", False)),
            verify=row.get("verify"),
        )
    return out


def lane(name: str) -> Lane:
    found = lanes()
    if name not in found:
        msg = f"no lane {name!r}; the lanes are {', '.join(found)} (core/lanes.toml)"
        raise InvalidInputError(msg)
    return found[name]


# ---- which lane a trigger starts ----------------------------------------------------------

_RC = re.compile(r"refs/tags/v\d+\.\d+\.\d+-rc\d+")
_FINAL = re.compile(r"refs/tags/v\d+\.\d+\.\d+")


class Plan(ResultModel):
    """What one CI event runs: the lane (or none, and why) and its shard matrix."""

    schema_version: int = Field(default=1, alias="schema")
    lane: str | None
    reason: str
    matrix: list[dict[str, str]] = Field(default_factory=list)
    """One entry per CI job: {"step": NAME, "shard": "i/N"}."""


def choose(event: str, ref: str, message: str, dispatch_lane: str = "") -> tuple[str | None, str]:
    """(lane, reason) for a GitHub event name, its ref and its commit or tag message."""
    skip = "[skip eval]" in message
    full = "[full eval]" in message
    if event == "schedule":
        return "weekly", "the weekly schedule"
    if event == "workflow_dispatch":
        return (dispatch_lane or "pr"), "a manual dispatch"
    if _RC.fullmatch(ref):
        if skip:
            return None, f"{ref.removeprefix('refs/tags/')} says [skip eval] in its annotation"
        if full:
            return "full", "a release candidate nominated with [full eval]"
        return "release", "a release-candidate tag"
    if _FINAL.fullmatch(ref):  # a final release ignores [skip eval]
        return "verify", "a final release tag: nothing re-runs, the full sweep is checked"
    if ref.startswith("refs/tags/"):
        return None, f"{ref.removeprefix('refs/tags/')} is not a release tag (vX.Y.Z or -rcN)"
    if skip:
        return None, "the commit message says [skip eval]"
    if full and event == "push":
        return "full", "the commit message says [full eval]"
    return "pr", f"a {event.replace('_', ' ')}"


def plan(
    event: str, ref: str, message: str, *, dispatch_lane: str = "", shards: int | None = None
) -> Plan:
    name, reason = choose(event, ref, message, dispatch_lane)
    if name is None:
        return Plan(lane=None, reason=reason)
    chosen = lane(name)
    matrix = [
        {"step": s.name, "shard": f"{i}/{n}"}
        for s in chosen.steps
        for n in [shards or s.shards]
        for i in range(1, n + 1)
    ]
    return Plan(lane=name, reason=reason, matrix=matrix)


# ---- running a lane ---------------------------------------------------------------------


class StepOutcome(ResultModel):
    schema_version: int = Field(default=1, alias="schema")
    step: str
    status: Literal["passed", "failed", "not run", "unmeasured"]
    detail: str
    exit_code: int
    shards: int
    folder: str | None = None
    """The step's result: the merged run, or the single run when unsharded."""


class LaneRecord(ResultModel):
    """lane.json: what a lane run did, step by step (the verify lane reads it)."""

    schema_version: int = Field(default=1, alias="schema")
    lane: str
    commit: str | None
    complete: bool
    """Every step ran and passed its gate (a step not run for credentials is incomplete)."""
    steps: list[StepOutcome]
    scrub_check: Literal["clean", "found", "not run"] = "not run"


Runner = Callable[[list[str]], int]


def gaia_eval_process(argv: list[str]) -> int:
    """`gaia-eval ARGV` in a child process (its own signals, lock and exit code)."""
    return subprocess.run([sys.executable, "-m", "gaia_eval", *argv], check=False).returncode


def _status(code: int) -> Literal["passed", "failed", "unmeasured"]:
    if code == EXIT_OK:
        return "passed"
    return "failed" if code in (EXIT_GATE_FAILED, EXIT_INVALID) else "unmeasured"


def shard_folder(out: Path, step: str, index: int, count: int) -> Path:
    return out / step / (f"shard-{index}-of-{count}" if count > 1 else "run")


def run_shard(
    step: Step,
    out: Path,
    index: int,
    count: int,
    *,
    environ: Mapping[str, str],
    run: Runner,
    extra: Sequence[str] = (),
) -> int:
    """One shard of a step (the whole step when count is 1, gated then)."""
    argv = [
        *step.command(environ),
        *extra,
        "--out",
        str(shard_folder(out, step.name, index, count)),
    ]
    if count > 1:
        argv += ["--shard", f"{index}/{count}"]
    elif step.gate:
        argv += ["--gate", step.gate]
    return run(argv)


def merge_step(step: Step, out: Path, count: int, *, run: Runner) -> tuple[int, Path]:
    """Join a step's shard folders and gate the result, as one run would be."""
    shards = [shard_folder(out, step.name, i, count) for i in range(1, count + 1)]
    absent = [str(s) for s in shards if not (s / "results.json").is_file()]
    if absent:
        msg = f"step {step.name}: shard results missing ({', '.join(absent)}); run those shards"
        raise InvalidInputError(msg)
    merged = out / step.name / "merged"
    argv = ["merge", *map(str, shards), "--out", str(merged)]
    if step.gate:
        argv += ["--gate", step.gate]
    return run(argv), merged


def scrub_check(out: Path, *, run: Runner = gaia_eval_process) -> bool:
    """Every file under `out` passes `gaia-eval scrub --check` (nothing would be redacted)."""
    files = sorted(str(p) for p in out.rglob("*") if p.is_file() and p.name != LANE_FILE)
    for start in range(0, len(files), 200):
        if run(["scrub", "--check", "--known-from-env", *files[start : start + 200]]) != EXIT_OK:
            return False
    return True


@dataclass
class LaneRun:
    """Options of one local or CI invocation of a lane."""

    lane: Lane
    out: Path
    shards: int | None = None
    only: Sequence[str] = ()
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    run: Runner = gaia_eval_process
    commit: str | None = None
    extra: Sequence[str] = ()
    """Flags added to every step's run (the lane's `--wait-lock`)."""

    def steps(self) -> list[Step]:
        known = {s.name for s in self.lane.steps}
        unknown = [s for s in self.only if s not in known]
        if unknown:
            msg = (
                f"--step {', '.join(unknown)}: not a step of lane {self.lane.name} "
                f"(its steps: {', '.join(sorted(known))})"
            )
            raise InvalidInputError(msg)
        return [s for s in self.lane.steps if not self.only or s.name in self.only]

    def count(self, step: Step) -> int:
        return self.shards or step.shards


def recorded_code(folder: Path) -> int:
    """The exit code a finished run folder stands for, read back from its results."""
    from gaia_eval.core.results import load_envelope

    path = folder / "results.json"
    if not path.is_file():
        return EXIT_INFRA  # the job never wrote a result: nothing was measured
    env = load_envelope(path)
    if env.header.item_errors or (env.verdict is not None and not env.verdict.passed):
        return EXIT_GATE_FAILED
    if env.header.infra_errors or not env.header.complete:
        return EXIT_INFRA
    return EXIT_OK


def run_steps(job: LaneRun, *, merge_only: bool = False) -> LaneRecord:
    """Every selected step: its shards (unless merge_only), the merge, the gate."""
    outcomes = []
    for step in job.steps():
        count = job.count(step)
        missing = step.missing(job.environ)
        if missing:
            detail = f"no credentials ({', '.join(missing)} unset)"
            outcomes.append(
                StepOutcome(
                    step=step.name, status="not run", detail=detail, exit_code=EXIT_OK, shards=count
                )
            )
            continue
        codes = []
        if not merge_only:
            codes = [
                run_shard(
                    step, job.out, i, count, environ=job.environ, run=job.run, extra=job.extra
                )
                for i in range(1, count + 1)
            ]
        folder = shard_folder(job.out, step.name, 1, 1)
        if count == 1 and merge_only:  # CI ran (and gated) it in its own job
            codes = [recorded_code(folder)]
        if count > 1:
            try:
                code, folder = merge_step(step, job.out, count, run=job.run)
            except InvalidInputError as err:  # a shard job that wrote nothing
                outcomes.append(
                    StepOutcome(
                        step=step.name,
                        status="unmeasured",
                        detail=str(err),
                        exit_code=EXIT_INFRA,
                        shards=count,
                    )
                )
                continue
            # A shard stopped by an outage leaves its items unmeasured; the merge says so.
            codes = [c for c in codes if c not in (EXIT_OK, EXIT_GATE_FAILED)] + [code]
        code = max(codes, default=EXIT_OK, key=lambda c: (c != EXIT_OK, c))
        detail = f"{count} shard(s), exit {code}" + (f", gated by {step.gate}" if step.gate else "")
        outcomes.append(
            StepOutcome(
                step=step.name,
                status=_status(code),
                detail=detail,
                exit_code=code,
                shards=count,
                folder=str(folder),
            )
        )
    complete = bool(outcomes) and all(o.status == "passed" for o in outcomes)
    return LaneRecord(lane=job.lane.name, commit=job.commit, complete=complete, steps=outcomes)


def lane_exit(record: LaneRecord) -> int:
    """0 when every step that ran passed; else the worst step's code; 5 for a leak."""
    if record.scrub_check == "found":
        return EXIT_LEAK
    codes = [o.exit_code for o in record.steps if o.status != "not run"]
    return max(codes, default=EXIT_OK, key=lambda c: (c != EXIT_OK, c))


# ---- the verify lane --------------------------------------------------------------------


def verify(roots: Sequence[Path], commits: Sequence[str], of_lane: str) -> LaneRecord | None:
    """The first complete lane.json of `of_lane` under `roots` that measured one of
    `commits` (the final tag's commit or one of its release candidates'), or None."""
    want = {c for c in commits if c}
    for root in roots:
        for path in sorted(root.rglob(LANE_FILE)):
            try:
                rec = LaneRecord.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # a damaged or foreign file is no evidence either way
            if rec.lane == of_lane and rec.complete and rec.commit in want:
                return rec
    return None


def release_commits(tag: str, git: Callable[[list[str]], str]) -> list[str]:
    """The commit of tag vX.Y.Z and of each of its release candidates vX.Y.Z-rcN."""
    if not re.fullmatch(r"v\d+\.\d+\.\d+", tag):
        msg = f"--tag {tag!r}: a final release tag looks like v1.2.0"
        raise InvalidInputError(msg)
    names = [tag, *git(["tag", "--list", f"{tag}-rc*"]).split()]
    return [git(["rev-list", "-n", "1", n]).strip() for n in names]


def github_output(made: Plan) -> str:
    """The plan as `name=value` lines for $GITHUB_OUTPUT (the matrix as one JSON line)."""
    import json

    return "\n".join(
        [
            f"lane={made.lane or ''}",
            f"reason={made.reason}",
            f"matrix={json.dumps(made.matrix, separators=(',', ':'))}",
        ]
    )


if __name__ == "__main__":
    # The workflow's first job asks which lane runs before anything is installed: this
    # module needs only pydantic. `python -m gaia_eval.core.lanes EVENT REF MESSAGE
    # [DISPATCH_LANE [SHARDS]]`.
    event, ref, message, *rest = sys.argv[1:]
    dispatch = rest[0] if rest else ""
    count = int(rest[1]) if len(rest) > 1 and rest[1] else None
    print(github_output(plan(event, ref, message, dispatch_lane=dispatch, shards=count)))
