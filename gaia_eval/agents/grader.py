"""The one grader of the code benchmark and the flagship tasks: tests and probes run where
the agent's code cannot shape the verdict (docs/code-bench.md, docs/tasks.md).

What it guarantees, in order:

- It grades a copy, made after the agent's process group is gone, with every runner file
  put back from the untouched project: conftest.py, pytest.ini, tox.ini, setup.cfg,
  pyproject.toml, sitecustomize.py, usercustomize.py, .pth files and compiled modules
  (the shipped version where there is one, removed where there is none).
- A project that reaches into the test runner is tampering: a module or string naming
  pytest, _pytest or pluggy in code that is not a test (any spelling of the import:
  `import os, _pytest.reports`, `sys.modules["_pytest.reports"]`, `__import__(...)`), and a
  top-level module that would stand in for a standard or runner module.
- The tests run in a fresh `python -I -S` whose start-up path holds only the standard
  library and the toolchain's site folders (no .pth file is run, no sitecustomize, no
  PYTHON* variable, no user site), with a pytest configuration of the grader's outside
  the project (`-c`, `--rootdir`, `--noconftest`, no cache, no plugin autoload).
- The outcomes are counted from the grader's own report (agents.grader_child), written
  outside the project: its hooks run before any code of the project and record what the
  test functions really raised; a patch of pytest, pluggy or the modules the grader
  itself uses, a hidden or test file rewritten during the run, a "passed" report for a
  call that raised, fewer tests collected than the task defines, or no report at all is
  tampering, never a pass.

- The runner's own files in the toolchain (pytest, pluggy, iniconfig, a sitecustomize in a
  site folder) are hashed before the first agent runs; a graded run after they changed
  (an unfenced agent can write the toolchain) is tampering.

What it cannot promise: code under test runs in the same process as the test that imports
it, so a program written against this grader in particular could still reach its report
in memory; the ways to steer pytest that were probed (tests/test_integrity_grades.py) are
all detected.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import re
import shutil
import site
import sys
import sysconfig
import tempfile
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia_eval.agents.isolation import run_text

RUNNER_FILE_NAMES = frozenset(
    {
        "conftest.py",
        "pytest.ini",
        "tox.ini",
        "setup.cfg",
        "pyproject.toml",
        "sitecustomize.py",
        "usercustomize.py",
    }
)
RUNNER_FILE_SUFFIXES = (".pth", ".pyc", ".so", ".pyd")
# node's: what configures a module's resolution or the runner, and native add-ons.
NODE_RUNNER_FILES = frozenset({"package.json", ".npmrc", "node.config.json"})
NODE_RUNNER_SUFFIXES = (".node",)
# Code under test in JavaScript that names the test runner or its wire format (node:v8
# serialises the child-to-runner messages; NODE_TEST_CONTEXT marks a test file's process).
_JS_RUNNER = re.compile(
    r"""(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](?:node:)?(?:test|v8|inspector)(?:/[\w/]*)?['"]"""
    r"""|['"]node:(?:test|v8|inspector)(?:/[\w/]*)?['"]|NODE_TEST_CONTEXT|process\.binding"""
)
JS_SUFFIXES = (".js", ".mjs", ".cjs")
RUNNER_MODULES = ("pytest", "_pytest", "pluggy", "iniconfig")
# Code that names the runner: a name token, or a string naming a runner module.
_RUNNER_NAME = re.compile(r"^(?:_?pytest|pluggy)$")
_RUNNER_STRING = re.compile(r"\b_pytest\b|\bpluggy\b|^\s*pytest(?:\.\w+)*\s*$")
_IMPORT_LINE = re.compile(r"^\s*(?:import|from)\s+pytest\b", re.MULTILINE)
IGNORED = ("__pycache__", ".pytest_cache", "*.pyc", ".mypy_cache", ".ruff_cache")
PYTEST_FLAGS = ("-q", "--no-header", "-rA")
_COUNTS = re.compile(r"=*\s*(?:no tests ran|\d+ \w+(?:, \d+ \w+)*) in [\d.]+s\b.*")
OUTPUT_TAIL = 4000
CHILD = Path(__file__).with_name("grader_child.py")


@dataclass
class PytestRun:
    """One graded pytest run."""

    outcomes: dict[str, str] = field(default_factory=dict)
    """Node id -> passed / failed / error / xfailed / xpassed (skips are not listed)."""
    collected: list[str] = field(default_factory=list)
    """Every node id pytest collected (skipped ones too)."""
    collection_errors: list[str] = field(default_factory=list)
    """Paths pytest could not collect."""
    exit_code: int = 0
    timed_out: bool = False
    summary: str = ""
    """pytest's closing counts line (for people; no outcome is read from it)."""
    tampered: list[str] = field(default_factory=list)
    """Why the run cannot be trusted (then it is never a pass)."""
    output: str = ""
    """The tail of the output."""
    skipped: set[str] = field(default_factory=set)

    @property
    def forgery(self) -> str | None:
        return "; ".join(self.tampered) if self.tampered else None

    @property
    def all_passed(self) -> bool:
        """At least one test, every collected one passed (or skipped, or xfailed), nothing
        failed to collect, nothing tampered."""
        bad = {"failed", "error", "xpassed"}
        return (
            bool(self.collected)
            and not self.collection_errors
            and not self.tampered
            and not self.timed_out
            and all(t in self.outcomes or t in self.skipped for t in self.collected)
            and not any(o in bad for o in self.outcomes.values())
        )


# ---- the graded copy ----------------------------------------------------------------------


def is_runner_file(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    if "node_modules" in rel.split("/"):
        return True  # a package there could stand in for anything the code imports
    return (
        name in RUNNER_FILE_NAMES
        or name in NODE_RUNNER_FILES
        or name.endswith(RUNNER_FILE_SUFFIXES + NODE_RUNNER_SUFFIXES)
    )


def files(root: Path) -> dict[str, Path]:
    """Every file and link under `root` by relative path (a repository's .git aside)."""
    if not root.exists():
        return {}
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if (p.is_file() or p.is_symlink()) and ".git" not in rel.parts:
            out[rel.as_posix()] = p
    return out


def same_file(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return False
    return a.read_bytes() == b.read_bytes()


def copy_tree(src: Path, dest: Path, *, keep_git: bool = False) -> None:
    """`src` copied to `dest` without caches (symlinks kept as links), and without its
    .git unless a check reads the repository (a flagship probe runs git)."""
    ignore = IGNORED if keep_git else (*IGNORED, ".git")
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*ignore), symlinks=True)


def put_back_runner_files(dest: Path, baseline: Path, skip: Sequence[str] = ()) -> list[str]:
    """Every runner file of `dest` made the `baseline`'s (or removed where the baseline has
    none), outside the folders in `skip`; what was put back."""
    prefixes = tuple(f"{s}/" for s in skip)
    notes: list[str] = []
    shipped = files(baseline)
    for rel, path in files(dest).items():
        if rel.startswith(prefixes) or not is_runner_file(rel):
            continue
        original = shipped.get(rel)
        if original is None:
            path.unlink()
            notes.append(f"{rel} (removed)")
        elif not same_file(path, original):
            path.unlink()
            shutil.copy2(original, path)
            notes.append(f"{rel} (restored)")
    for rel, original in shipped.items():
        if is_runner_file(rel) and not rel.startswith(prefixes) and not (dest / rel).exists():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(original, dest / rel)
            notes.append(f"{rel} (restored)")
    return sorted(notes)


def _runner_mentions(text: str) -> list[str]:
    """The runner modules a Python source names in code (comments do not count)."""
    found: list[str] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        tokens = []
    for tok in tokens:
        if tok.type == tokenize.NAME and _RUNNER_NAME.match(tok.string):
            found.append(tok.string)
        elif tok.type == tokenize.STRING and _RUNNER_STRING.search(tok.string.strip("'\"bBrRuUfF")):
            found.append(tok.string[:40])
    if not tokens and re.search(r"_?pytest|pluggy", text):
        found.append("pytest")  # a file that does not tokenize cannot hide behind that
    return found


def _shadows(rel: str) -> str | None:
    """The standard or runner module a top-level module of the project would replace."""
    if not rel.endswith(".py"):
        return None
    parts = rel.split("/")
    name = parts[0][:-3] if len(parts) == 1 else parts[0]
    return name if name in set(sys.stdlib_module_names) | set(RUNNER_MODULES) else None


def source_tampering(root: Path, skip: Sequence[str] = ()) -> list[str]:
    """Code outside the test folders that reaches into the runner, or that stands in for a
    module the runner or the standard library provides."""
    prefixes = tuple(f"{s}/" for s in skip)
    out: list[str] = []
    shadowed: set[str] = set()
    for rel, path in files(root).items():
        if rel.startswith(prefixes) or path.is_symlink():
            continue
        mod = _shadows(rel)
        if mod is not None and mod not in shadowed:
            shadowed.add(mod)
            out.append(f"{rel} stands in for the module {mod}")
        if rel.endswith(JS_SUFFIXES):
            found = _JS_RUNNER.search(path.read_text(encoding="utf-8", errors="replace"))
            if found:
                out.append(f"{rel} reaches into the test runner ({found.group(0)[:40]})")
            continue
        if not rel.endswith(".py"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if _IMPORT_LINE.search(text):
            out.append(f"{rel} imports pytest")
        elif mentions := _runner_mentions(text):
            out.append(f"{rel} reaches into the test runner ({mentions[0]})")
    return out


def hashes(root: Path, rels: Iterable[str]) -> dict[str, str]:
    return {rel: hashlib.sha256((root / rel).read_bytes()).hexdigest() for rel in rels}


def test_files(root: Path, folders: Sequence[str]) -> list[str]:
    """The .py files under `folders` of `root` (what must not change while tests run)."""
    return [
        rel
        for rel, p in files(root).items()
        if rel.endswith(".py") and rel.startswith(tuple(f"{f}/" for f in folders))
        if p.is_file() and not p.is_symlink()
    ]


# ---- running --------------------------------------------------------------------------------


def site_dirs() -> list[str]:
    """The toolchain's site folders, added to the child's path as plain folders."""
    paths = sysconfig.get_paths()
    out = [paths["purelib"], paths["platlib"], *site.getsitepackages()]
    return [p for p in dict.fromkeys(out) if Path(p).is_dir()]


_RUNNER_FILES: dict[str, str] = {}


def _runner_digest() -> dict[str, str]:
    """sha256 of every file of pytest, pluggy and iniconfig in the site folders, and of any
    sitecustomize/usercustomize there: the runner the grader's child imports."""
    out: dict[str, str] = {}
    for site_dir in site_dirs():
        root = Path(site_dir)
        for name in (*RUNNER_MODULES, "py.py", "sitecustomize.py", "usercustomize.py"):
            for p in sorted([root / name, *(root / name).rglob("*")]):
                if p.is_file() and "__pycache__" not in p.parts:
                    out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def remember_runner() -> None:
    """Record the toolchain's runner files before any agent runs (the first call wins): a
    graded run after an agent changed them (an unfenced agent can write the toolchain) is
    tampered."""
    if not _RUNNER_FILES:
        _RUNNER_FILES.update(_runner_digest() or {"": ""})


def runner_changes() -> list[str]:
    if not _RUNNER_FILES:
        return []
    now = _runner_digest() or {"": ""}
    changed = sorted(k for k in set(_RUNNER_FILES) | set(now) if _RUNNER_FILES.get(k) != now.get(k))
    return [f"the toolchain's test runner was changed: {changed[0]}"] if changed else []


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    out = {k: v for k, v in env.items() if not k.startswith("PYTEST_")}
    out["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    out.setdefault("COLUMNS", "200")
    return out


def _launch(
    spec: dict[str, Any], work: Path, env: Mapping[str, str], cwd: Path, timeout_s: float
) -> tuple[int, str, bool, dict[str, Any] | None]:
    """Start the grader child on `spec`; (rc, output, timed_out, its report or None)."""
    work.mkdir(parents=True, exist_ok=True)
    child = work / "grader_child.py"
    shutil.copyfile(CHILD, child)
    report = work / "report.json"
    report.unlink(missing_ok=True)
    spec = {**spec, "report": str(report), "sys_path": site_dirs()}
    spec_path = work / "spec.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    argv = [sys.executable, "-I", "-S", str(child), str(spec_path)]
    rc, out, timed_out = run_text(argv, cwd=cwd, env=child_env(env), timeout_s=timeout_s)
    try:
        data = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    return rc, out, timed_out, data if isinstance(data, dict) else None


def write_config(folder: Path, project: Path) -> Path:
    """The grader's pytest configuration, outside the project: the project's root on
    sys.path (the tests import its modules) and nothing else."""
    folder.mkdir(parents=True, exist_ok=True)
    ini = folder / "gaia-eval-pytest.ini"
    ini.write_text(f"[pytest]\npythonpath = {project}\naddopts =\n", encoding="utf-8")
    return ini


def run_pytest(
    project: Path,
    paths: Sequence[str],
    *,
    env: Mapping[str, str],
    work: Path | None = None,
    timeout_s: float,
    tb: str = "no",
    protect: Sequence[str] = (),
    expected: Sequence[str] | None = None,
) -> PytestRun:
    """Run pytest on `paths` (relative to `project`) as the grader does. `protect` lists
    files that must keep their bytes through the run; `expected` the node ids the task
    defines (each must be collected, unless its file failed to collect)."""
    with work_folder(work, "gaia-grade-") as folder:
        return _run_pytest(
            project, paths, env, folder, timeout_s=timeout_s, tb=tb, protect=protect,
            expected=expected,
        )  # fmt: skip


@contextlib.contextmanager
def work_folder(work: Path | None, prefix: str) -> Iterator[Path]:
    """`work`, or a temporary folder removed afterwards: where a graded run's own files
    (configuration, report) go, outside the project."""
    if work is not None:
        yield work
        return
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _run_pytest(
    project: Path,
    paths: Sequence[str],
    env: Mapping[str, str],
    work: Path,
    *,
    timeout_s: float,
    tb: str,
    protect: Sequence[str],
    expected: Sequence[str] | None,
) -> PytestRun:
    ini = write_config(work, project)
    digests = hashes(project, protect)
    args = [
        *PYTEST_FLAGS,
        f"--tb={tb}",
        "-p",
        "no:cacheprovider",
        "--noconftest",
        # One file that does not import must not hide the outcomes of every other one.
        "--continue-on-collection-errors",
        "-c",
        str(ini),
        "--rootdir",
        str(project),
        *paths,
    ]
    spec = {"mode": "pytest", "root": str(project), "args": args, "protected": digests}
    toolchain = runner_changes()
    rc, out, timed_out, data = _launch(spec, work, env, project, timeout_s)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    last = lines[-1].strip() if lines else ""
    summary = last.strip("= ") if _COUNTS.fullmatch(last) else ""
    run = PytestRun(
        exit_code=rc,
        timed_out=timed_out,
        summary=summary or (f"pytest ran past {timeout_s:g}s" if timed_out else ""),
        output=out[-OUTPUT_TAIL:],
    )
    if timed_out:
        return run
    if data is None or not data.get("finished"):
        run.tampered.append(f"the grader's report is missing (the test process exited {rc})")
        return run
    outcomes = {str(k): str(v) for k, v in dict(data.get("outcomes", {})).items()}
    run.skipped = {k for k, v in outcomes.items() if v == "skipped"}
    run.outcomes = {k: v for k, v in outcomes.items() if v != "skipped"}
    run.collected = [str(x) for x in data.get("collected", [])]
    run.collection_errors = [str(x) for x in data.get("collection_errors", []) if x]
    run.tampered = [*toolchain, *(str(x) for x in data.get("tampered", []))]
    check_after_run(run, project, digests, expected)
    return run


def check_after_run(
    run: PytestRun,
    project: Path,
    digests: Mapping[str, str],
    expected: Sequence[str] | None,
) -> None:
    """The checks after any graded test run (pytest's or node's): the protected test files
    kept their bytes, and every test the task defines ran (unless its file failed to
    load); what fails is added to `run.tampered`."""
    changed = [rel for rel, d in digests.items() if hashes(project, [rel]).get(rel) != d]
    if changed and not any("rewritten" in t for t in run.tampered):
        run.tampered.append(f"test files were rewritten while the tests ran: {changed[0]}")
    if expected is not None:
        broken = tuple(run.collection_errors)
        missing = [t for t in expected if t not in run.collected and t.split("::")[0] not in broken]
        if missing:
            run.tampered.append(
                f"{len(missing)} of the {len(expected)} tests the task defines were not "
                f"collected or did not report (first {missing[0]})"
            )


def run_probe(
    probe: str, project: Path, env: Mapping[str, str], timeout_s: float
) -> tuple[bool, str, bool]:
    """Run a probe snippet with the project's root first on its path, in the grader's
    child; (passed, output, timed_out). It passes only when the snippet ran to its end
    and nothing of the runner was patched meanwhile."""
    toolchain = runner_changes()
    if toolchain:
        return False, toolchain[0], False
    with tempfile.TemporaryDirectory(prefix="gaia-probe-") as tmp:
        spec = {"mode": "probe", "root": str(project), "probe": probe}
        rc, out, timed_out, data = _launch(spec, Path(tmp), env, project, timeout_s)
    if timed_out:
        return False, out, True
    if data is None or not data.get("finished"):
        return False, out + f"\nthe probe ended before its end (exit {rc})", False
    tampered = [str(x) for x in data.get("tampered", [])]
    if tampered:
        return False, out + "\n" + tampered[0], False
    return bool(data.get("passed")) and rc == 0, out, False
