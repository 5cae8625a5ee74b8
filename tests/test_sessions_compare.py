"""`gaia-eval compare` on two session-replay runs: the sessions gate declares per-case
metrics (judge score, pass, the agent's seconds and tokens), so the comparison tests
something real. Both runs share one scripted judge over a real loopback socket (the judge
is what is measured; a different one would refuse the comparison)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.sessions import judge as judge_mod
from tests import sessions_fixture
from tests.tasks_fakes import FakeLLM, serve

IDS = ["5e55f1c7-000", "5e55f1c7-001", "5e55f1c7-002"]


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(judge_mod, "BACKOFF_S", (0.0, 0.0))
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _grader(body: dict[str, Any]) -> dict[str, Any]:
    """The reference verbatim scores 5, anything else 1."""
    text = body["messages"][-1]["content"]
    answer = text.split("ANSWER TO GRADE:\n", 1)[1]
    reference = text.split("REFERENCE ANSWER:\n", 1)[1].split("\n\nANSWER TO GRADE:", 1)[0]
    score = 5 if answer == reference else 1
    return {"content": json.dumps({"score": score, "verdict": f"v{score}", "rationale": "r"})}


def _run(url: str, out: Path, replay: str) -> None:
    judge = f"openai:{url}/v1#judge"
    argv = ["sessions", "--claude-dir", str(sessions_fixture.FIXTURE), "--harness", "replay",
            "--replay", replay, "--judge-model", judge, "--out", str(out)]  # fmt: skip
    assert main(argv) == 0


def test_compare_two_session_runs_tests_scores_and_passes(tmp_path: Path) -> None:
    claude = str(sessions_fixture.FIXTURE)
    assert (
        main(["sessions", "--claude-dir", claude, "--dataset-only", "--out", str(tmp_path / "ds")])
        == 0
    )
    refs = {
        c["id"]: c["reference"]
        for c in json.loads((tmp_path / "ds" / "dataset.json").read_text())["cases"]
    }
    # The worse agent answers the first case right and the other two wrong.
    scripts = tmp_path / "scripts.json"
    scripts.write_text(
        json.dumps(
            {
                IDS[0]: [{"answer": refs[IDS[0]]}],
                IDS[1]: [{"answer": "no"}],
                IDS[2]: [{"answer": "no"}],
            }
        )
    )
    with serve(FakeLLM([_grader] * 20)) as url:
        _run(url, tmp_path / "good", "reference")
        _run(url, tmp_path / "bad", str(scripts))
    code = main(
        [
            "compare",
            str(tmp_path / "good"),
            str(tmp_path / "bad"),
            "--out",
            str(tmp_path / "cmp"),
            "--resamples",
            "2000",
        ]
    )
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    by_name = {m["name"]: m for m in data["metrics"]}
    assert set(by_name) == {
        "judge score",
        "passed (score >= 3.5)",
        "agent seconds",
        "agent output tokens",
    }
    score = by_name["judge score"]
    assert (score["n"], score["baseline"], score["current"]) == (3, 5.0, pytest.approx(7 / 3))
    assert score["delta"] == pytest.approx(-8 / 3) and score["gated"]
    passed = by_name["passed (score >= 3.5)"]
    assert (passed["baseline"], passed["current"], passed["gated"]) == (
        1.0,
        pytest.approx(1 / 3),
        True,
    )
    assert (
        not by_name["agent seconds"]["higher_is_better"] and not by_name["agent seconds"]["gated"]
    )
    # Three cases: too few for any test to mean something, and the comparison says so.
    assert all(m["p_value"] is None and m["call"] == "inconclusive" for m in data["metrics"])
    assert code == 0 and data["worse"] == []
    assert any("no power" in n for n in data["notes"])
    # The two cases that stopped passing are listed, linked to each run's record.
    flipped = sorted(f["item"] for f in data["flips"] if f["metric"] == "passed (score >= 3.5)")
    assert flipped == IDS[1:]
    assert {
        "field": "system",
        "baseline": "replay:reference",
        "current": "replay:scripts.json",
    } in data["changed"]
