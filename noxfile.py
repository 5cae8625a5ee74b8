"""nox sessions: one per suite, plus tests, lint, native, bench, sanitize and schema.

Session bodies stay thin: they install the package and call the `gaia-eval` CLI (or
pytest); the logic lives in the package. `nox -l` is the table of contents.
"""

from __future__ import annotations

import os

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


# ---- bench, sanitize, schema ----------------------------------------------------------
