"""nox sessions: one per suite, plus tests, lint, native, bench, sanitize and schema.

Session bodies stay thin: they install the package and call the `gaia-eval` CLI (or
pytest); the logic lives in the package. `nox -l` is the table of contents.
"""

from __future__ import annotations

import os
import shutil

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


# ---- code retrieval -------------------------------------------------------------------


# ---- tasks ----------------------------------------------------------------------------


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
