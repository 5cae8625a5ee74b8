"""Scenario validation (exit 2 naming file and field), the shipped set and its tiers, the
effective timeout, and gaia_eval's scoring rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from agent_helpers import scenario

from gaia_eval.agent import blame
from gaia_eval.agent.driver import parse_judgement, reset_hint
from gaia_eval.agent.models import DIMENSIONS, ToolUse
from gaia_eval.agent.scenarios import effective_timeout, load_all, load_tiers
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError


def _load_one(tmp_path: Path, data: Any) -> None:
    (tmp_path / "x.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    load_all(tmp_path)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.pop("persona"), "field 'persona' is required"),
        (lambda d: d.update(persona="  "), "'persona' must be a non-empty string"),
        (lambda d: d["setup"].pop("index_documents"), "setup.index_documents"),
        (lambda d: d["turns"][0].update(turn=2), "turns[0].turn is 2"),
        (lambda d: d["turns"][0].pop("ground_truth"), "turns[0] needs a non-empty ground_truth"),
        (
            lambda d: d["turns"][0].update(success_criteria={"a": 1}),
            "success_criteria is a mapping",
        ),
        (lambda d: d["setup"]["index_documents"][0].pop("path"), "index_documents[0].path"),
        (lambda d: d.update(colour="blue"), "colour"),
    ],
)
def test_validation_names_file_and_field(tmp_path: Path, change: Any, words: str) -> None:
    data = scenario("v1")
    change(data)
    with pytest.raises(InvalidInputError) as err:
        _load_one(tmp_path, data)
    assert str(tmp_path / "x.yaml") in str(err.value) and words in str(err.value)


def test_bad_scenario_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = scenario("v2")
    data["turns"][0]["turn"] = 3
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    assert main(["agent", "--list", "--scenarios-dir", str(tmp_path)]) == 2
    assert "bad.yaml" in capsys.readouterr().err


def test_null_expected_answer_is_a_ground_truth(tmp_path: Path) -> None:
    data = scenario("v3")
    data["turns"][0]["ground_truth"] = {"expected_answer": None}
    _load_one(tmp_path, data)  # "not in the documents" is a valid truth


def test_shipped_scenarios_and_tiers() -> None:
    loaded = [s for s in load_all() if s.source.is_relative_to(Path(blame.__file__).parent)]
    tiers = load_tiers()
    assert len(loaded) >= 60
    ids = {s.scenario.id for s in loaded}
    assert ids == set(tiers), "every shipped scenario has a tier and a reason, and only they"
    cats = {s.scenario.category for s in loaded}
    assert {
        "rag_quality",
        "multi_turn",
        "memory",
        "honesty",
        "prompt_injection",
        "refusal",
        "tool_selection",
        "adversarial",
        "error_recovery",
        "personality",
    } <= cats
    assert all(not s.missing for s in loaded), "every shipped document exists"
    smoke = [s for s in loaded if s.tier == "smoke"]
    # The specification's smoke tier: 30 short scenarios, 13 of them security, honesty
    # and prompt injection.
    assert len(smoke) == 30 and all(len(s.scenario.turns) <= 3 for s in smoke)
    security = [s for s in smoke if s.scenario.category in SECURITY]
    assert len(security) == 13
    assert all(s.reason.strip() for s in loaded)
    corpus = [d for s in loaded for d in s.scenario.setup.index_documents if d.corpus_doc]
    assert all(d.path.startswith("corpus/") for d in corpus)


SECURITY = ("honesty", "prompt_injection", "refusal")


def test_tiers_full_backlog_and_leaves_full() -> None:
    """full = smoke + full + the backlog scenarios without leaves_full; backlog alone is
    the weekly lane's; every shipped smoke scenario is in the shipped smoke replay."""
    import json

    from gaia_eval.agent.scenarios import data_dir, in_tier

    loaded = load_all()
    backlog = [s for s in loaded if s.tier == "backlog"]
    assert backlog and any(s.leaves_full for s in backlog)
    assert any(not s.leaves_full for s in backlog), "a backlog scenario still in full"
    for s in backlog:
        assert in_tier(s, "backlog") and in_tier(s, "full") is (not s.leaves_full)
        assert not in_tier(s, "smoke")
    smoke = {s.scenario.id for s in loaded if s.tier == "smoke"}
    assert all(in_tier(s, "full") for s in loaded if s.tier in ("smoke", "full"))
    replay = json.loads((data_dir() / "replays" / "smoke.json").read_text(encoding="utf-8"))
    assert set(replay["scenarios"]) == smoke


def test_tier_verify_runs_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agent", "--tier", "verify", "--list"]) == 2
    assert "gaia-eval lane verify" in capsys.readouterr().err


def test_leaves_full_outside_the_backlog_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from gaia_eval.agent import scenarios as mod

    (tmp_path / "ci_tiers.json").write_text(
        json.dumps({"scenarios": {"a": {"tier": "full", "reason": "r", "leaves_full": True}}}),
        encoding="utf-8",
    )
    monkeypatch.setattr(mod, "data_dir", lambda: tmp_path)
    with pytest.raises(InvalidInputError, match="leaves_full is for backlog scenarios only"):
        load_tiers()


def test_effective_timeout() -> None:
    assert effective_timeout(900, 1, 1) == 900
    assert effective_timeout(100, 3, 5) == 240 + 270 + 1000
    assert effective_timeout(900, 50, 40) == 7200
    assert effective_timeout(900, 1, 1, cap_s=10) == 10


def _judge(**scores: float) -> dict[str, Any]:
    return {"scores": {k: scores.get(k, 8) for k in DIMENSIONS}, "reasked": False}


def test_score_rules() -> None:
    s, overall, ok, rules = blame.score_turn(_judge(), "The smallest item.", [])
    assert overall == 8.0 and ok and not rules
    s, overall, ok, _ = blame.score_turn(_judge(correctness=3.9, personality=10), "x is y.", [])
    assert not ok  # correctness under 4 fails whatever the overall
    s, overall, ok, _ = blame.score_turn(_judge(correctness=-3), "an answer here", [])
    assert s.correctness == 0.0
    j = _judge(context_retention=9)
    j["reasked"] = True
    s, *_ = blame.score_turn(j, "What was your project called again?", [])
    assert s.context_retention == 4.0
    loop = [ToolUse(name="query_documents", arguments="{}")] * 3
    s, *_ = blame.score_turn(_judge(), "The smallest.", loop)
    assert s.efficiency == 0.0
    for bad in ("", "query_documents(query='x')", '{"a": 1}', "The same sentence over again. " * 5):
        s, *_ = blame.score_turn(_judge(), bad, [])
        assert s.correctness == s.completeness == s.tool_selection == 0.0, bad
    assert blame.score_turn(_judge(correctness=6, tool_selection=5), "fine.", [])[2] is True


def test_judge_parsing_and_reset_hint() -> None:
    good = '{"scores": ' + str({k: 7 for k in DIMENSIONS}).replace("'", '"') + "}"
    assert parse_judgement("Sure! " + good)[0] is not None
    data, why = parse_judgement('{"scores": {"correctness": 9}}')
    assert data is None and "lack" in (why or "")
    assert parse_judgement("8/10, looks good")[0] is None
    assert reset_hint("quota exceeded; limit resets at 5pm UTC") == "limit resets at 5pm UTC"
    assert reset_hint("server on fire") is None
