"""Running a task's tests the way the grader trusts, and reading per-test outcomes back.

pytest runs as `python -I -m pytest -q --no-header -rA --tb=no` (docs/code-bench.md)
with a configuration file of our own outside the project (`-c`), so no pytest.ini,
tox.ini, setup.cfg or pyproject.toml of the project is ever read; `-I` keeps the project
folder, PYTHON* variables and the user site off the interpreter's start-up path (no
sitecustomize.py, no usercustomize.py); the cache plugin is off, plugin autoload is off.

Outcomes are read from pytest's one short test summary, which must end the output with
pytest's counts line; output a test prints (the PASSES section) comes before it and
cannot add a "PASSED ..." line, and output that breaks the shape is not read at all.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.agents.isolation import run_text

PYTEST_FLAGS = ("-q", "--no-header", "-rA", "--tb=no")
OUTCOMES = {
    "PASSED": "passed",
    "FAILED": "failed",
    "ERROR": "error",
    "XFAIL": "xfailed",
    "XPASS": "xpassed",
}
_SUMMARY_HEADER = re.compile(r"^=+ short test summary info =+$", re.MULTILINE)
# The closing counts line, e.g. "1 failed, 2 passed in 0.12s" or "no tests ran in 0.01s".
_COUNTS = re.compile(r"=*\s*(?:no tests ran|\d+ \w+(?:, \d+ \w+)*) in [\d.]+s\b.*")
OUTPUT_TAIL = 4000


@dataclass
class PytestRun:
    """One pytest run's outcomes."""

    outcomes: dict[str, str] = field(default_factory=dict)
    """Node id -> passed / failed / error / xfailed / xpassed (skips are not listed)."""
    collection_errors: list[str] = field(default_factory=list)
    """Paths pytest could not collect (an ERROR line without a test name)."""
    exit_code: int = 0
    timed_out: bool = False
    summary: str = ""
    """pytest's closing counts line."""
    forgery: str | None = None
    """Why the output could not be trusted (no outcome was read from it)."""
    output: str = ""
    """The tail of the output."""


def _node_id(rest: str) -> str:
    """The node id at the start of a summary line's rest: up to the first " - " outside
    brackets (a parametrize id may itself contain " - ")."""
    depth = 0
    for i, ch in enumerate(rest):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0 and rest.startswith(" - ", i):
            return rest[:i]
    return rest.strip()


def parse_report(text: str) -> tuple[dict[str, str], list[str], str, str | None]:
    """(outcomes, collection-error paths, counts line, forgery) of `-q -rA` output.

    pytest writes one short-summary section and ends with its counts line. Output that
    breaks that shape -- a second summary header, or anything after the counts line (code
    under test printing at exit) -- can only come from the code under test trying to
    forge outcomes: no outcome is read from it, and `forgery` says why."""
    headers = list(_SUMMARY_HEADER.finditer(text))
    lines = [ln for ln in text.splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    summary = last.strip("= ") if _COUNTS.fullmatch(last) else ""
    if not headers:
        return {}, [], summary, None
    if len(headers) > 1:
        return {}, [], summary, "the test output holds more than one pytest summary"
    if not summary:
        return {}, [], summary, "output follows pytest's closing counts line"
    outcomes: dict[str, str] = {}
    collection: list[str] = []
    for line in text[headers[0].end() :].splitlines():
        word, _, rest = line.partition(" ")
        kind = OUTCOMES.get(word)
        if kind is None or not rest:
            continue
        node = _node_id(rest)
        if "::" not in node:
            if kind == "error":
                collection.append(node)
            continue
        # A test that passed its call but errored in teardown is listed twice; the worse wins.
        if outcomes.get(node) in (None, "passed"):
            outcomes[node] = kind
    return outcomes, collection, summary, None


def write_config(folder: Path, project: Path) -> Path:
    """Our own pytest configuration, outside the project: the project's root on sys.path
    (the tests import its modules) and nothing else."""
    folder.mkdir(parents=True, exist_ok=True)
    ini = folder / "gaia-eval-pytest.ini"
    ini.write_text(f"[pytest]\npythonpath = {project}\naddopts =\n", encoding="utf-8")
    return ini


def grading_env(base: Mapping[str, str], mypy_cache: Path | None) -> dict[str, str]:
    """The environment tests run in when graded."""
    env = {k: v for k, v in base.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    env["COLUMNS"] = "200"  # fewer cut summary lines
    if mypy_cache is not None:
        # A type-checking task's mypy runs reuse one cache outside the project, which the
        # agent could otherwise have planted (.mypy_cache is never copied into the grade).
        env["MYPY_CACHE_DIR"] = str(mypy_cache)
    return env


def run_pytest(
    project: Path,
    paths: Sequence[str],
    *,
    env: Mapping[str, str],
    config_dir: Path,
    timeout_s: float,
    tb: str = "no",
) -> PytestRun:
    """Run pytest on `paths` (relative to `project`) as the grader does."""
    ini = write_config(config_dir, project)
    flags = [f if not f.startswith("--tb=") else f"--tb={tb}" for f in PYTEST_FLAGS]
    argv = [
        sys.executable,
        "-I",
        "-m",
        "pytest",
        *flags,
        "-p",
        "no:cacheprovider",
        # One file that does not import must not hide the outcomes of every other one.
        "--continue-on-collection-errors",
        "-c",
        str(ini),
        "--rootdir",
        str(project),
        *paths,
    ]
    rc, out, timed_out = run_text(argv, cwd=project, env=env, timeout_s=timeout_s)
    outcomes, collection, summary, forgery = parse_report(out)
    return PytestRun(
        outcomes=outcomes,
        collection_errors=collection,
        forgery=None if timed_out else forgery,
        exit_code=rc,
        timed_out=timed_out,
        summary=summary or (f"pytest ran past {timeout_s:g}s" if timed_out else ""),
        output=out[-OUTPUT_TAIL:],
    )
