"""Whole scenarios over a loopback OpenAI-compatible server: every status of one run, the
scorecard's arithmetic, driver usage, perf flags, and blame kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_fakes import AGENT, FAIL, PASS, World, judgement, serve
from agent_helpers import card, run, scenario, statuses, write


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gaia_eval.agent.driver.BACKOFF_S", 0.0)


def test_every_status_of_a_run(tmp_path: Path, no_backoff: None) -> None:
    scen = write(
        tmp_path / "sc",
        [
            scenario("s_pass", messages=["q pass one", "q pass two"]),
            scenario("s_fail"),
            scenario("s_driver", category="multi_turn"),
            scenario("s_blocked"),
            scenario("s_setup", docs=["documents/empty.txt"]),
            scenario("s_adversarial", category="adversarial", docs=["documents/empty.txt"]),
            scenario("s_skip", docs=["no/such/file.txt"]),
            scenario("s_judge_garbage"),
            scenario("s_agent_crash", messages=["q crash"]),
            scenario("s_clamp"),
            scenario("s_leak", messages=["q leak"]),
        ],
    )
    world = World(
        agent={
            "q crash": {"status": 400, "body": "malformed request from the agent"},
            "q leak": {"text": '{"tool": "query_documents", "args": {}}'},
        },
        judge={
            "s_fail": [FAIL],
            "s_driver": [judgement(2, blame="driver")],
            "s_blocked": [judgement(1, blocked=True, blame="agent")],
            "s_judge_garbage": [{"raw": "I think it was fine, 8/10"}],
            # The judge claims 9.9 overall with a correctness of 3: the pass rule still fails.
            "s_clamp": [judgement(14, correctness=3, overall=9.9)],
            "s_leak": [PASS],
        },
    )
    with serve(world) as url:
        code = run(url, scen, tmp_path / "out")
    assert code == 0
    st = statuses(tmp_path / "out")
    assert st == {
        "s_pass": "PASS",
        "s_fail": "FAIL",
        "s_driver": "FAIL",
        "s_blocked": "BLOCKED",
        "s_setup": "SETUP_ERROR",
        "s_adversarial": "PASS",
        "s_skip": "SKIPPED_NO_DOCUMENT",
        "s_judge_garbage": "ERRORED",
        "s_agent_crash": "ERRORED",
        "s_clamp": "FAIL",
        "s_leak": "FAIL",
    }
    c = card(tmp_path / "out")
    s = c["summary"]
    assert (s["passed"], s["failed"], s["failed_driver_blamed"], s["blocked"]) == (2, 3, 1, 1)
    assert (s["infra_error"], s["setup_error"], s["skipped"], s["errored"]) == (1, 1, 1, 2)
    assert s["pass_rate"] == round(2 / 11, 4)
    # judged = PASS + agent FAIL + BLOCKED; the driver-blamed FAIL is left out
    assert s["judged_pass_rate"] == round(2 / 6, 4)

    res = json.loads((tmp_path / "out" / "results.json").read_text())
    by_id = {r["id"]: r["result"] for r in res["items"]}
    clamp = by_id["s_clamp"]["turns"][0]
    assert clamp["scores"]["personality"] == 10.0
    assert any("clamped" in rule for rule in clamp["rules"])
    assert clamp["judge_overall"] == 9.9
    assert clamp["overall_score"] == pytest.approx(0.25 * 3 + 0.75 * 10)
    assert clamp["pass"] is False  # correctness 3 < 4, though overall 8.25 >= 6
    leak = by_id["s_leak"]["turns"][0]
    assert leak["scores"]["correctness"] == 0.0 and "raw JSON leak" in leak["rules"][0]
    # judged scores: PASS 9, 9; FAIL 3; BLOCKED 1; the clamp FAIL (8.25) capped at 5.99; the
    # leak FAIL; the driver-blamed FAIL is left out
    scores = [9.0, 9.0, 3.0, 1.0, 5.99, leak["overall_score"]]
    assert s["avg_score"] == pytest.approx(round(sum(scores) / len(scores), 3), abs=1e-3)
    assert by_id["s_judge_garbage"]["turns"][0]["judge_error"].startswith("unusable judge reply")
    assert by_id["s_judge_garbage"]["overall_score"] is None
    assert "crashed" in by_id["s_agent_crash"]["reason"]
    assert by_id["s_driver"]["blame"] == "driver"
    # driver usage per scenario and totals; cost unknown without a price
    assert by_id["s_pass"]["driver_usage"]["calls"] == 2
    cost = c["cost"]
    assert cost["driver"]["calls"] == sum(
        (r["driver_usage"] or {}).get("calls", 0) for r in by_id.values()
    )
    assert cost["scenarios_missing"] == sum(1 for r in by_id.values() if r["driver_usage"] is None)
    assert cost["estimated_total_usd"] is None
    # streamed agent replies carry TTFT and the observed model
    turn = by_id["s_pass"]["turns"][0]
    assert turn["performance"]["time_to_first_token"] is not None
    assert turn["agent_model"] == AGENT
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Failures blamed on the driver" in report and "`s_driver`" in report


def test_timeout_and_budget(tmp_path: Path, no_backoff: None) -> None:
    scen = write(
        tmp_path / "sc",
        [scenario("s_slow", messages=["q slow"]), scenario("s_costly"), scenario("s_after")],
    )
    world = World(agent={"q slow": {"sleep": 1.5, "text": "late"}})
    with serve(world) as url:
        code = run(
            url,
            scen,
            tmp_path / "out",
            "--timeout-cap",
            "0.8",
            "--price",
            "1000,1000",
            "--budget",
            "0.1",
        )
    assert code == 0
    st = statuses(tmp_path / "out")
    assert st == {"s_slow": "TIMEOUT", "s_costly": "BUDGET_EXCEEDED", "s_after": "BUDGET_EXCEEDED"}
    c = card(tmp_path / "out")
    assert c["summary"]["timeout"] == 1 and c["summary"]["budget_exceeded"] == 2
    # the killed scenario records no driver usage; the totals say one is missing
    assert c["cost"]["scenarios_missing"] == 1
    assert c["cost"]["estimated_total_usd"] == pytest.approx(2 * (500 + 80) * 1000 / 1e6)
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    slow = next(r["result"] for r in res["items"] if r["id"] == "s_slow")
    assert slow["timeout_s"] == 0.8 and "effective timeout" in slow["reason"]


def test_tools_mode_records_tool_calls_and_loops(tmp_path: Path, no_backoff: None) -> None:
    scen = write(
        tmp_path / "sc",
        [scenario("s_tool", messages=["q tool"]), scenario("s_loop", messages=["q loop"])],
    )
    call = ("query_documents", {"query": "heappop smallest"})
    world = World(
        agent={
            "q tool": {"tool_call": call, "text": "The smallest."},
            "q loop": {"tool_call": call, "loop": True},
        }
    )
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out", "--agent-tools", "tools") == 0
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    by_id = {r["id"]: r["result"]["turns"][0] for r in res["items"]}
    one = by_id["s_tool"]
    assert [t["name"] for t in one["agent_tools"]] == ["query_documents"]
    assert "smallest" in one["agent_tools"][0]["output"]  # the real RAG system answered
    assert one["agent_response"] == "The smallest." and one["pass"] is True
    # a model that asks for the same call on every step: 4 identical calls, then no answer
    loop = by_id["s_loop"]
    assert [t["name"] for t in loop["agent_tools"]] == ["query_documents"] * 4
    assert loop["scores"]["efficiency"] == 0.0
    assert loop["scores"]["correctness"] == 0.0  # no answer at all
    assert loop["pass"] is False


def test_pipeline_mode_retrieves_first(tmp_path: Path, no_backoff: None) -> None:
    scen = write(tmp_path / "sc", [scenario("s_pipe", messages=["Does heappop pop the smallest?"])])
    world = World()
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out", "--agent-tools", "pipeline") == 0
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    turn = res["items"][0]["result"]["turns"][0]
    assert turn["agent_tools"][0]["by"] == "pipeline"
    agent_reqs = [r for r in world.requests if r["model"] == AGENT]
    assert "tools" not in agent_reqs[0]
    assert "smallest" in agent_reqs[0]["messages"][-1]["content"]  # the passages went in


def test_filtered_run_is_labelled(tmp_path: Path, no_backoff: None) -> None:
    scen = write(tmp_path / "sc", [scenario("a1"), scenario("b1", category="honesty")])
    with serve(World()) as url:
        assert run(url, scen, tmp_path / "out", "--category", "honesty") == 0
        assert run(url, scen, tmp_path / "bad", "--scenarios", "nope") == 2
    c = card(tmp_path / "out")
    assert c["config"]["scenario_filter"] == {"scenarios": [], "categories": ["honesty"]}
    assert [r["id"] for r in c["scenarios"]] == ["b1"]
    assert "Filtered run" in (tmp_path / "out" / "report.md").read_text()


def test_driver_writes_messages_and_a_refused_request_is_errored(
    tmp_path: Path, no_backoff: None
) -> None:
    written = scenario("s_written")
    refused = scenario("s_refused")
    for sc in (written, refused):
        del sc["turns"][0]["user_message"]
    scen = write(tmp_path / "sc", [written, refused])
    world = World()
    world.message_errors["s_refused"] = (400, "response_format is not supported")
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out") == 0
    assert statuses(tmp_path / "out") == {"s_written": "PASS", "s_refused": "ERRORED"}
    res = json.loads((tmp_path / "out" / "results.json").read_text())
    by_id = {r["id"]: r["result"] for r in res["items"]}
    assert by_id["s_written"]["turns"][0]["user_message"] == "simulated message 1 for s_written"
    assert by_id["s_written"]["driver_usage"]["calls"] == 2  # the message and the judgement
    assert "could not write a message" in by_id["s_refused"]["reason"]
    sim = [r for r in world.requests if r["messages"][0]["content"].startswith("You play")]
    assert sim and all(r["response_format"]["type"] == "json_schema" for r in sim)
