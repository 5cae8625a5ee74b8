"""docs/architecture.md is kept current: every package, core module and registered suite
is named in it, and every path it names exists."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
# Code spans that look like repository paths: gaia_eval/..., csrc/..., core/x.py, foo/.
CODE = re.findall(r"`([^`\s]+)`", DOC)
PATH = re.compile(r"^(gaia_eval|csrc|schemas|tests|core)/[\w./<>{},*-]*$")


def _packages() -> list[str]:
    return sorted(
        p.name
        for p in (ROOT / "gaia_eval").iterdir()
        if p.is_dir() and not p.name.startswith((".", "_")) and any(p.glob("*.py"))
    )


@pytest.mark.parametrize("package", _packages())
def test_every_package_is_named(package: str) -> None:
    assert f"`gaia_eval/{package}/`" in DOC or f"`{package}/`" in DOC, (
        f"docs/architecture.md does not say what gaia_eval/{package}/ owns"
    )


@pytest.mark.parametrize(
    "module",
    sorted(
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "gaia_eval" / "core").iterdir()
        if p.suffix in (".py", ".toml") and p.stem != "__init__"
    ),
)
def test_every_core_module_is_named(module: str) -> None:
    assert f"`{module}`" in DOC or f"`core/{module}" in DOC, (
        f"docs/architecture.md does not name gaia_eval/core/{module}"
    )


def test_every_registered_suite_is_named() -> None:
    registry = tomllib.loads((ROOT / "gaia_eval" / "core" / "suites.toml").read_text("utf-8"))
    for name in registry["suite"]:
        assert f"`{name}`" in DOC, f"docs/architecture.md does not name the suite {name}"


def test_every_path_it_names_exists() -> None:
    named = [c for c in CODE if PATH.match(c) and "<" not in c and "{" not in c]
    assert len(named) > 10
    for path in named:
        candidates = [ROOT / path, ROOT / "gaia_eval" / path, ROOT / "gaia_eval" / f"{path}.py"]
        assert any(c.exists() for c in candidates), f"docs/architecture.md names {path}"
