"""Result I/O: atomic writes, crash safety, the scrub hook, and versioned reads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from gaia_eval.core import results_io
from gaia_eval.core.errors import InvalidInputError, LeakError


class ResultV3(BaseModel):
    # A field literally named `schema` shadows BaseModel.schema (pydantic warns), so
    # result models call it schema_version and write it as "schema".
    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    schema_version: Literal[3] = Field(default=3, alias="schema")
    name: str
    score: float
    tags: list[str] = []


class Aliased(BaseModel):
    """Without serialize_by_alias: write_json still writes "schema"."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_version: Literal[2] = Field(default=2, alias="schema")
    value: int


MIGRATIONS = {
    # v1 called the score "points"; v2 added tags.
    1: lambda d: {**{k: v for k, v in d.items() if k != "points"}, "score": d["points"]},
    2: lambda d: {**d, "tags": d.get("tags", ["migrated"])},
}


def test_write_json_round_trips_and_leaves_only_the_file(tmp_path: Path) -> None:
    target = tmp_path / "run" / "results.json"
    results_io.write_json(target, ResultV3(name="x", score=0.5))
    assert sorted(p.name for p in target.parent.iterdir()) == ["results.json"]
    text = target.read_text(encoding="utf-8")
    assert text.endswith("\n")
    assert json.loads(text) == {"schema": 3, "name": "x", "score": 0.5, "tags": []}
    assert results_io.read_model(target, ResultV3) == ResultV3(name="x", score=0.5)


def test_write_text_replaces_without_a_trace(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    results_io.write_text(target, "old\n")
    results_io.write_text(target, "new ✓\n")
    assert target.read_text(encoding="utf-8") == "new ✓\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_failed_write_keeps_the_old_file_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "results.json"
    results_io.write_json(target, {"v": 1})

    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="No space left"):
        results_io.write_json(target, {"v": 2})
    assert json.loads(target.read_text()) == {"v": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_process_killed_mid_write_keeps_the_old_file(tmp_path: Path) -> None:
    """A real process dies (SIGKILL) after writing the temp file, before the rename."""
    target = tmp_path / "results.json"
    target.write_text('{"v": 1}\n')
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from gaia_eval.core import results_io
        os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        results_io.write_json(Path({str(target)!r}), {{"v": 2, "pad": "x" * 100000}})
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == -9, proc.stderr.decode()
    assert json.loads(target.read_text()) == {"v": 1}
    # The dead writer's temp file is a hidden sibling, never the artifact itself.
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "results.json"]
    assert leftovers, "the kill should have struck after the temp file was written"
    assert all(name.startswith(".results.json.") and name.endswith(".tmp") for name in leftovers)


def test_scrub_hook_runs_first_and_a_leak_writes_nothing(tmp_path: Path) -> None:
    results_io.scrub_text("")  # let a real scrubber, if installed, register first
    target = tmp_path / "report.md"
    results_io.write_text(target, "clean\n")

    def hook(text: str) -> str:
        if "NEVER" in text:
            raise LeakError("a secret of kind test-token survived scrubbing")
        return text.replace("tok_123", "[REDACTED]")

    previous = results_io.set_scrub_hook(hook)
    try:
        results_io.write_text(target, "key tok_123\n")
        assert target.read_text() == "key [REDACTED]\n"
        with pytest.raises(LeakError):
            results_io.write_json(target, {"k": "NEVER"})
        assert target.read_text() == "key [REDACTED]\n"
    finally:
        assert results_io.set_scrub_hook(previous) is hook


def test_dumps_json_refuses_nan() -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        results_io.dumps_json({"x": float("nan")})


# ---- reading -------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "1e999", "-1E+400"])
def test_reading_refuses_non_finite_numbers(tmp_path: Path, bad: str) -> None:
    """A NaN score compares false with every threshold; it must not reach a gate (issue 12)."""
    path = tmp_path / "scorecard.json"
    path.write_text(f'{{"wall_seconds": 1.5, "score": {bad}}}', encoding="utf-8")
    with pytest.raises(InvalidInputError, match=rf"scorecard.json: holds {re.escape(bad)}, "):
        results_io.read_json(path)


def test_reading_keeps_large_and_tiny_finite_numbers() -> None:
    assert results_io.loads_json("[1e308, 1E-999, 2.5e+10, -0.0]", "x") == [1e308, 0.0, 2.5e10, 0.0]


def write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_read_model_migrates_every_step_in_order(tmp_path: Path) -> None:
    path = write(tmp_path / "r.json", {"schema": 1, "name": "old", "points": 2.0})
    got = results_io.read_model(path, ResultV3, migrations=MIGRATIONS)
    assert got == ResultV3(name="old", score=2.0, tags=["migrated"])
    path = write(tmp_path / "r2.json", {"schema": 2, "name": "mid", "score": 1.0, "tags": []})
    assert results_io.read_model(path, ResultV3, migrations=MIGRATIONS).tags == []


def test_read_model_refuses_a_newer_schema_naming_file_and_versions(tmp_path: Path) -> None:
    path = write(tmp_path / "future.json", {"schema": 4, "name": "x", "score": 1.0})
    with pytest.raises(InvalidInputError, match=r"future\.json: schema 4 is newer .*\(3\)"):
        results_io.read_model(path, ResultV3)


def test_read_model_without_a_migration_path(tmp_path: Path) -> None:
    path = write(tmp_path / "ancient.json", {"schema": 1, "name": "x", "points": 1.0})
    with pytest.raises(InvalidInputError, match=r"ancient\.json: schema 1 cannot be migrated to 3"):
        results_io.read_model(path, ResultV3)


@pytest.mark.parametrize(
    ("content", "pattern"),
    [
        ({"name": "x"}, r"bad\.json: field 'schema' is missing or not an integer.*ResultV3"),
        ({"schema": "3"}, r"bad\.json: field 'schema' is missing"),
        ([1, 2], r"bad\.json: expected a JSON object at the top level, got list"),
        ({"schema": 3, "name": "x", "score": "high"}, r"bad\.json: field 'score': .*1 problem"),
        ({"schema": 3, "name": "x", "score": 1, "extra": 1}, r"bad\.json: field 'extra'"),
    ],
)
def test_read_model_errors_name_file_and_field(tmp_path: Path, content: Any, pattern: str) -> None:
    with pytest.raises(InvalidInputError, match=pattern):
        results_io.read_model(write(tmp_path / "bad.json", content), ResultV3)


def test_read_json_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"missing\.json: file not found"):
        results_io.read_json(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": 1,\n  oops}')
    with pytest.raises(InvalidInputError, match=r"broken\.json: not valid JSON at line 2 column 3"):
        results_io.read_json(broken)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InvalidInputError, match=r"binary\.json: not UTF-8 text \(byte 0xff"):
        results_io.read_json(binary)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidInputError, match=r"deep\.json: JSON nested too deeply"):
        results_io.read_json(deep)


def test_aliased_schema_field_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    results_io.write_json(path, Aliased(value=5))
    assert json.loads(path.read_text()) == {"schema": 2, "value": 5}
    assert results_io.read_model(path, Aliased) == Aliased(value=5)
    write(path, {"schema": 3, "value": 5})
    with pytest.raises(InvalidInputError, match=r"schema 3 is newer .*\(2\)"):
        results_io.read_model(path, Aliased)


def test_model_without_a_version_field_is_a_programming_error(tmp_path: Path) -> None:
    class Plain(BaseModel):
        value: int

    with pytest.raises(TypeError, match="Plain has no integer 'schema' field"):
        results_io.read_model(write(tmp_path / "p.json", {"schema": 1, "value": 1}), Plain)


def test_scrub_hook_fails_closed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """When the scrubber cannot load, nothing is written (the identity hook would leak)."""
    import importlib

    previous = results_io.set_scrub_hook(results_io._identity)
    real = importlib.import_module

    def broken(name: str, *a: object) -> object:
        if name == "gaia_eval.scrub":
            raise ImportError("the native core is missing")
        return real(name, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(results_io.importlib, "import_module", broken)
    try:
        with pytest.raises(LeakError, match="could not load"):
            results_io.write_text(tmp_path / "a.md", "hello")
        assert not (tmp_path / "a.md").exists()
    finally:
        results_io.set_scrub_hook(previous)
