"""`gaia-eval bench` areas: the explicit registry, helpers kept out, every area runs quick."""

from __future__ import annotations

import importlib
import inspect
import json
import math
import pkgutil
from pathlib import Path

import pytest

import gaia_eval.bench as bench_pkg
from gaia_eval.bench import AREAS, HELPERS
from gaia_eval.cli import bench
from gaia_eval.cli import main as cli
from gaia_eval.core import errors


def _modules() -> set[str]:
    return {info.name for info in pkgutil.iter_modules(bench_pkg.__path__)}


def test_every_module_is_listed_once_as_an_area_or_a_helper() -> None:
    # A new module must be classified: silently running a helper as an area (or never
    # running a new area) is what broke `nox -s bench` before.
    assert not set(AREAS) & set(HELPERS)
    assert len(set(AREAS)) == len(AREAS)
    assert set(AREAS) | set(HELPERS) == _modules()
    assert bench.areas() == list(AREAS)


@pytest.mark.parametrize("area", AREAS)
def test_an_area_defines_a_title_and_run_quick(area: str) -> None:
    mod = bench._module(area)
    assert isinstance(mod.TITLE, str) and mod.TITLE
    assert "quick" in inspect.signature(mod.run).parameters


@pytest.mark.parametrize("helper", HELPERS)
def test_a_helper_is_not_an_area(helper: str, capsys: pytest.CaptureFixture[str]) -> None:
    mod = importlib.import_module(f"gaia_eval.bench.{helper}")
    assert not (hasattr(mod, "TITLE") and hasattr(mod, "run"))
    assert helper not in bench.areas()
    assert cli.main(["bench", "--only", helper]) == errors.EXIT_INVALID
    err = capsys.readouterr().err
    assert f"unknown area {helper}" in err
    assert "choose from embed," in err


@pytest.mark.slow
@pytest.mark.parametrize("area", AREAS)
def test_every_area_runs_in_quick_mode(area: str, tmp_path: Path) -> None:
    """`bench --quick --only AREA` measures something: rows for the area, ours among them
    with a finite median (anchors that are not installed may be skipped with a note)."""
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--only", area, "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["quick"] is True
    assert result["areas"] == [area]
    rows = result["rows"]
    assert rows and {r["area"] for r in rows} == {area}
    measured = [r for r in rows if r["median_s"] is not None]
    assert measured, rows
    assert all(math.isfinite(r["median_s"]) and r["median_s"] >= 0 for r in measured)
    # Ours is the row every ratio is taken against (ratio None).
    assert any(r["ratio"] is None for r in measured), rows
