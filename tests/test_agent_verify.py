"""`VERIFY VIA MCP:` memory verification, as in the original GAIA memory scenarios: on a
turn with the token the judge is shown the agent's memory as read after the turn and
scores correctness from it; a failed or impossible verification sets correctness to 0,
whatever the judge's scores. Both drivers: a model judge (the memory is in its prompt)
and the replay (`memory_matches`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_fakes import AGENT, DIMS, DRIVER, World, judgement, serve
from agent_helpers import run, scenario, write

from gaia_eval.cli.main import main

CRITERIA = "Acknowledges. VERIFY VIA MCP: a current memory holds the timezone CET"
STORES = {
    "tool_call": ("remember", {"attribute": "timezone", "value": "CET"}),
    "text": "Noted: CET.",
}
CLAIMS = {"text": "Noted, I will remember CET."}  # says so, stores nothing


def _scenario(folder: Path, sid: str = "v_tz", message: str = "remember my timezone") -> Path:
    sc = scenario(sid, messages=[message])
    sc["setup"]["index_documents"] = []
    sc["turns"][0].pop("ground_truth")
    sc["turns"][0]["success_criteria"] = CRITERIA
    return write(folder, [sc])


def _turn(out: Path) -> dict[str, Any]:
    env = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (item,) = env["items"]
    (turn,) = item["result"]["turns"]
    assert isinstance(turn, dict)
    return turn


def _judge_prompts(world: World) -> list[str]:
    return [
        r["messages"][-1]["content"]
        for r in world.requests
        if r["model"] == DRIVER and not r["messages"][0]["content"].startswith("You play")
    ]


def test_model_judge_sees_the_memory_and_verifies(tmp_path: Path) -> None:
    world = World(
        agent={"remember my timezone": STORES},
        judge={"v_tz": [judgement(9, verified=True)]},
    )
    with serve(world) as url:
        assert run(url, _scenario(tmp_path / "sc"), tmp_path / "out") == 0
    t = _turn(tmp_path / "out")
    assert t["verified"] is True and t["pass"] is True
    assert "[current] timezone: CET" in t["memory_shown"]
    (prompt,) = _judge_prompts(world)
    assert "MEMORY AFTER THE TURN" in prompt and "[current] timezone: CET" in prompt


@pytest.mark.parametrize(
    ("verdict", "words"),
    [
        (judgement(9, verified=False), "VERIFY VIA MCP: failed from the memory"),
        (judgement(9), "VERIFY VIA MCP: not confirmed by the judge"),
    ],
)
def test_a_failed_verification_sets_correctness_to_0(
    tmp_path: Path, verdict: dict[str, Any], words: str
) -> None:
    """The judge's 9s (a pass by the scores) cannot stand when it did not verify."""
    world = World(agent={"remember my timezone": CLAIMS}, judge={"v_tz": [verdict]})
    with serve(world) as url:
        assert run(url, _scenario(tmp_path / "sc"), tmp_path / "out") == 0
    t = _turn(tmp_path / "out")
    assert t["verified"] is False and t["pass"] is False
    assert t["scores"]["correctness"] == 0.0
    assert any(words in r for r in t["rules"])
    assert t["memory_shown"] == "(no memories)"


def test_an_agent_without_memory_makes_verification_impossible(tmp_path: Path) -> None:
    """A --system agent with no state(): nothing to read, so correctness 0, and the judge
    is not shown a memory it would have to take on trust."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    folder = _scenario(tmp_path / "sc", message="note my timezone PST")
    world = World(judge={"v_tz": [judgement(9, verified=True)]})
    with serve(world) as url:
        code = main(
            [
                "agent", "--tier", "custom", "--scenarios-dir", str(folder),
                "--system", "test_agent_checks:make_nostate",
                "--driver-model", f"openai:{url}#{DRIVER}", "--out", str(tmp_path / "out"),
            ]
        )  # fmt: skip
    assert code == 0
    t = _turn(tmp_path / "out")
    assert t["verified"] is False and t["scores"]["correctness"] == 0.0
    assert t["memory_shown"] is None
    assert any("impossible (the agent has no state() to read)" in r for r in t["rules"])
    (prompt,) = _judge_prompts(world)
    assert "MEMORY AFTER THE TURN" not in prompt


def _replay(path: Path, memory_matches: str) -> Path:
    scores = dict.fromkeys(DIMS, 9)
    good = {"scores": scores, "pass": True, "verified": True, "reasoning": "stored"}
    bad = {**good, "pass": False, "verified": False, "reasoning": "not stored"}
    turn = {"turn": 1, "memory_matches": memory_matches, "verdict": good, "otherwise": bad}
    path.write_text(json.dumps({"scenarios": {"v_tz": {"turns": [turn]}}}), encoding="utf-8")
    return path


@pytest.mark.parametrize(("agent", "ok"), [(STORES, True), (CLAIMS, False)])
def test_replay_verdict_follows_the_memory(tmp_path: Path, agent: dict[str, Any], ok: bool) -> None:
    rp = _replay(tmp_path / "r.json", r"\bCET\b")
    folder = _scenario(tmp_path / "sc")
    with serve(World(agent={"remember my timezone": agent})) as url:
        code = main(
            [
                "agent", "--tier", "custom", "--scenarios-dir", str(folder),
                "--model", f"openai:{url}#{AGENT}", "--driver-model", f"replay:{rp}",
                "--out", str(tmp_path / "out"),
            ]
        )  # fmt: skip
    assert code == 0
    t = _turn(tmp_path / "out")
    # The reply "I will remember CET" matches nothing: only the stored memory does.
    assert t["verified"] is ok and t["pass"] is ok
    assert (t["scores"]["correctness"] == 0.0) is not ok


def test_replay_memory_matches_must_be_a_regular_expression(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rp = _replay(tmp_path / "r.json", "(")  # not a regular expression
    folder = _scenario(tmp_path / "sc")
    with serve(World()) as url:
        code = main(
            [
                "agent", "--tier", "custom", "--scenarios-dir", str(folder),
                "--model", f"openai:{url}#{AGENT}", "--driver-model", f"replay:{rp}",
                "--out", str(tmp_path / "out"),
            ]
        )  # fmt: skip
    assert code == 2
    assert "memory_matches is not a regular expression" in capsys.readouterr().err
