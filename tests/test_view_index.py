"""The view's run index is a cache of the run folders: incremental equals rebuilt, a
damaged file is rebuilt, a broken run folder is listed with its reason, and a finished
run adds itself."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import engine_toy  # noqa: F401  (registers the toy suite)
import engine_toy_process  # noqa: F401  (the toy's options: `gaia-eval run toy`)
from view_runs import toy

from gaia_eval.cli.main import main
from gaia_eval.view.catalog import Catalog
from gaia_eval.view.digest import wilson
from gaia_eval.view.index import INDEX_NAME, RunIndex, open_index


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "results"
    root.mkdir()
    toy(tmp_path, {"a": 0.9, "b": 0.2, "c": 0.7}, root / "one")
    toy(tmp_path, {"a": 0.9, "b": 0.8, "c": 0.1}, root / "two", "--gate", str(root / "one"))
    return root


def test_the_incremental_index_equals_a_rebuild(root: Path, tmp_path: Path) -> None:
    index = open_index(root)
    first = index.dump()
    assert len(index.runs()) == 2
    # A third run, one rewritten and one removed: the update reads only those.
    toy(tmp_path, {"a": 0.1, "b": 0.1, "c": 0.1}, root / "nested" / "three")
    results = root / "two" / "results.json"
    data = json.loads(results.read_text())
    data["header"]["tier"] = "t2"
    results.write_text(json.dumps(data))
    (root / "one" / "results.json").unlink()
    assert index.update() == 2
    incremental = index.dump()
    assert incremental != first
    assert index.update() == 0  # nothing changed since
    assert index.reindex() == 2
    assert index.dump() == incremental
    assert {r.path for r in index.runs()} == {"two", "nested/three"}
    assert {r.row.tier for r in index.runs()} == {"t1", "t2"}


def test_what_the_index_holds(root: Path) -> None:
    runs = {r.path: r for r in open_index(root).runs()}
    two = runs["two"].row
    assert (runs["one"].row.verdict, two.verdict) == ("not gated", "fail")
    assert (two.passed, two.measured) == (2, 3)
    assert (two.low, two.high) == pytest.approx(wilson(2, 3))
    assert two.headline == "mean 0.600"
    assert two.failures == "item c: passed passed in the baseline, fails now"
    assert [(i.id, i.outcome) for i in open_index(root).items("two")] == [
        ("a", "pass"), ("b", "pass"), ("c", "fail"),
    ]  # fmt: skip


def test_wilson_matches_the_textbook_value() -> None:
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_a_damaged_index_is_rebuilt(root: Path, damage: str) -> None:
    index = open_index(root)
    expected = index.dump()
    index.close()
    file = root / INDEX_NAME
    if damage == "garbage":
        file.write_bytes(b"not a database at all" * 100)
    elif damage == "truncated":
        file.write_bytes(file.read_bytes()[:1500])
    else:  # a valid SQLite file that is not our index
        file.unlink()
        db = sqlite3.connect(file)
        db.execute("CREATE TABLE other (x)")
        db.commit()
        db.close()
    assert open_index(root).dump() == expected


def test_a_broken_run_folder_is_listed_with_its_reason(root: Path) -> None:
    (root / "broken").mkdir()
    (root / "broken" / "results.json").write_text("{not json")
    rows = {r.path: r.row for r in Catalog([root]).runs()}
    assert rows["broken"].verdict == "unreadable"
    assert "results.json" in rows["broken"].error


def _run_toy(tmp_path: Path, out: Path) -> None:
    items = tmp_path / "items.json"
    items.write_text(json.dumps({"a": {"value": 0.9}}))
    assert main(["run", "toy", str(items), "--out", str(out)]) == 0


def test_a_finished_run_adds_itself_to_an_existing_index(root: Path, tmp_path: Path) -> None:
    index = RunIndex(root)  # an index that has not read the folders yet
    index.close()
    _run_toy(tmp_path, root / "later")
    db = sqlite3.connect(root / INDEX_NAME)
    assert db.execute("SELECT path FROM runs").fetchall() == [("later",)]


def test_a_run_elsewhere_leaves_no_index(tmp_path: Path) -> None:
    _run_toy(tmp_path, tmp_path / "somewhere" / "run")
    assert (tmp_path / "somewhere" / "run" / "results.json").is_file()
    assert not (tmp_path / "somewhere" / INDEX_NAME).exists()


def test_a_finished_run_beside_a_damaged_index_rebuilds_it(root: Path, tmp_path: Path) -> None:
    RunIndex(root).close()
    (root / INDEX_NAME).write_bytes(b"junk" * 1000)
    _run_toy(tmp_path, root / "later")
    assert [r.path for r in RunIndex(root).runs()] == ["later"]  # the view's update adds the rest
