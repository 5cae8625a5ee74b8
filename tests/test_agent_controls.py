"""The deliberately bad chat agent fails every scenario, as measured (never a setup error)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_eval.cli.main import main


def test_says_nothing_fails_every_smoke_scenario_under_the_replayed_driver(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))
    out = tmp_path / "bad"
    argv = ["agent", "--tier", "smoke", "--system", "gaia_eval.agent.controls:says_nothing",
            "--driver-model", "replay:builtin:smoke", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    rows = json.loads((out / "results.json").read_text())["summary"]["scenarios"]
    assert len(rows) == 30  # the smoke tier
    assert {r["status"] for r in rows} == {"FAIL"}, rows
