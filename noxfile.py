"""nox sessions: one per suite, plus tests, lint, native, bench, sanitize and schema.

Session bodies stay thin: they install the package and call the `gaia-eval` CLI (or
pytest); the logic lives in the package. `nox -l` is the table of contents.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import nox

nox.needs_version = ">=2024.3.2"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "tests"]

PYPROJECT = nox.project.load_toml("pyproject.toml")


def _group(name: str) -> list[str]:
    return list(nox.project.dependency_groups(PYPROJECT, name))


def _install_package(session: nox.Session, *extras: str) -> None:
    """Editable install (scikit-build-core redirect mode), rebuilding the extension."""
    target = f".[{','.join(extras)}]" if extras else "."
    if session.venv_backend == "uv":
        session.install("--reinstall-package", "gaia-eval", "-e", target)
    else:
        session.install("-e", target)


# ---- development ----------------------------------------------------------------------


@nox.session
def tests(session: nox.Session) -> None:
    """Rebuild the extension and run the test suite (pytest args pass through)."""
    session.install(*_group("test"))
    _install_package(session, "onnx")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check + format check, mypy strict on the package, clang-format check."""
    session.install(*_group("lint"))
    _install_package(session)
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


@nox.session(default=False, venv_backend="none")
def native(session: nox.Session) -> None:
    """Editable rebuild of the extension into the current environment (fast C++ loop)."""
    session.run("python", "-m", "pip", "install", "--no-build-isolation", "-e", ".")


# ---- suites ---------------------------------------------------------------------------


# ---- retrieval (rag) ------------------------------------------------------------------

# The committed baseline ships in the wheel (gaia_eval/baselines/), so installed users can
# gate too; it is an unedited results.json of a real `--suite pr` run.
RAG_PR_BASELINE = "gaia_eval/baselines/retrieval/pr.json"


@nox.session(default=False)
def retrieval_pr(session: nox.Session) -> None:
    """Offline RAG retrieval suite (repo_docs, ONNX MiniLM, PR hard cases), gated."""
    _install_package(session, "onnx", "pdf")
    session.run(
        "gaia-eval",
        "retrieval",
        "--component",
        "rag",
        "--suite",
        "pr",
        "--gate",
        RAG_PR_BASELINE,
        *session.posargs,
    )


# ---- code retrieval -------------------------------------------------------------------

_CODE_BASELINES = "gaia_eval/baselines/code-retrieval"


@nox.session(default=False)
def code_retrieval_offline(session: nox.Session) -> None:
    """Code retrieval on the generated offline repo (hash embedder), gated (CI)."""
    _install_package(session)
    session.run(
        "gaia-eval", "retrieval", "--component", "code", "--suite", "offline",
        "--gate", f"{_CODE_BASELINES}/offline.json", *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def code_retrieval_pr(session: nox.Session) -> None:
    """Code retrieval pr suite (11 SWE-bench instances, replay, robustness), gated."""
    # The gate refuses runs of different embedders: pr.json is an onnx run (about 20 min on
    # 2 cores), pr-hash.json a hash run (about 2 min) for a quick check: `-- --embedder hash
    # --gate gaia_eval/baselines/code-retrieval/pr-hash.json`.
    _install_package(session, "onnx")
    session.run(
        "gaia-eval", "retrieval", "--component", "code", "--suite", "pr",
        "--embedder", "onnx:all-MiniLM-L6-v2-int8",
        "--gate", f"{_CODE_BASELINES}/pr.json", *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def code_retrieval_nightly(session: nox.Session) -> None:
    """Code retrieval nightly suite (sampled instances; needs network or --git-mirror)."""
    _install_package(session, "onnx")
    session.run(
        "gaia-eval", "retrieval", "--component", "code", "--suite", "nightly",
        "--embedder", "onnx:all-MiniLM-L6-v2-int8", *session.posargs,
    )  # fmt: skip


@nox.session(default=False)
def code_retrieval_scale(session: nox.Session) -> None:
    """Code retrieval scale suite: fresh-index cost of pinned repositories (not gated)."""
    _install_package(session, "onnx")
    session.run(
        "gaia-eval", "retrieval", "--component", "code", "--suite", "scale",
        "--embedder", "onnx:all-MiniLM-L6-v2-int8", *session.posargs,
    )  # fmt: skip


# ---- tasks ----------------------------------------------------------------------------


@nox.session(default=False)
def tasks(session: nox.Session) -> None:
    """Flagship agent tasks: `nox -s tasks -- --suite core --model M --judge-model J`."""
    _install_package(session, "tasks")
    session.run("gaia-eval", "tasks", "run", *session.posargs)


@nox.session(default=False)
def tasks_controls(session: nox.Session) -> None:
    """Check the tasks judge on three planted attempts (`-- --judge-model J`)."""
    _install_package(session, "tasks")
    session.run("gaia-eval", "tasks", "controls", *session.posargs)


# ---- scrub ----------------------------------------------------------------------------


@nox.session(default=False)
def fuzz_scrub(session: nox.Session) -> None:
    """Fuzz the scrub kernel (atheris on the binding; libFuzzer+ASan/UBSan with clang)."""
    seconds = session.posargs[0] if session.posargs else "60"
    session.install(*_group("fuzz"))
    _install_package(session)
    tmp = session.create_tmp()
    common = [f"-max_total_time={seconds}", "-dict=tests/fuzz/scrub.dict", "-len_control=0"]
    # Python surface: seeds the corpus folder first (the harness fills an empty one).
    session.run("python", "tests/fuzz/fuzz_scrub.py", f"{tmp}/corpus", *common, "-max_len=65536")
    clang = shutil.which("clang++")
    if clang is None:
        session.error("clang++ not found: install clang to run the coverage-guided C++ target")
    binary = f"{tmp}/fuzz_scrub"
    flags = ["-std=c++17", "-O1", "-g", "-fsanitize=fuzzer,address,undefined"]
    flags += ["-fno-sanitize-recover=undefined", "-Icsrc/core"]
    sources = ["csrc/fuzz/fuzz_scrub.cpp", "csrc/core/scrub.cpp", "csrc/core/scrub_rules.cpp"]
    session.run(clang, *flags, *sources, "-o", binary, external=True)
    session.run(binary, *common, "-max_len=100000", f"{tmp}/corpus", external=True)


@nox.session(default=False)
def bench_scrub(session: nox.Session) -> None:
    """Scrub throughput and recall vs re, hyperscan, detect-secrets (`--quick`: 5 MB)."""
    session.install(*_group("bench"))
    _install_package(session)
    session.run("python", "-m", "gaia_eval.bench.scrub", *session.posargs)


# ---- bench, sanitize, schema ----------------------------------------------------------


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Time the native core against numpy, pytrec_eval and ranx (args: --only, --quick, --json)."""
    session.install(*_group("bench"))
    _install_package(session, "onnx", "pdf")  # the embed areas run the onnx pr suite
    session.run("gaia-eval", "bench", *session.posargs, env={"NUMBA_NUM_THREADS": "1"})


@nox.session(default=False)
def sanitize(session: nox.Session) -> None:
    """Build the core with ASan + UBSan (own build dir) and run tests/native under them."""
    if sys.platform != "linux":
        session.skip("the sanitizer session preloads gcc's libasan: Linux only")
    session.install(*_group("test"))
    # A separate build dir, so the instrumented objects never mix with the normal build.
    session.install(
        "--reinstall-package" if session.venv_backend == "uv" else "--force-reinstall",
        "gaia-eval",
        "-e",
        ".",
        "-Ccmake.define.GAIA_SANITIZE=ON",
        "-Cbuild-dir=build/sanitize",
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


@nox.session(default=False)
def schema(session: nox.Session) -> None:
    """Regenerate schemas/ from the result models; `nox -s schema -- --check` fails on drift."""
    _install_package(session)
    check = ["--check"] if "--check" in session.posargs else []
    session.run("gaia-eval", "schema", "--out", "schemas", *check)


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
    session.run(
        str(bindir / "python"),
        "-c",
        "import gaia_eval, gaia_eval._native as n; "
        "assert 'site-packages' in gaia_eval.__file__, gaia_eval.__file__; "
        "print(n.normalize_whitespace(' wheel  ok ')[0], gaia_eval.__file__)",
        external=True,
    )
    shutil.rmtree(tmp, ignore_errors=True)  # kept for inspection when a step failed
