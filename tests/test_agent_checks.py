"""State checks (tau2-bench's state-based evaluation): a turn's declared checks on tool
calls, memories and files, verified by gaia_eval beside the judge's scores, pass and fail;
the reference agent's real memory store and notes folder end to end; the report shows the
judge's status and the state's verdict side by side."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agent_fakes import World, serve
from agent_helpers import run, scenario, write

from gaia_eval.agent.checks import run_checks, verdict
from gaia_eval.agent.models import StateCheck, ToolUse
from gaia_eval.agent.protocol import AgentState, MemoryRecord
from gaia_eval.cli.main import main


def _check(**kw: Any) -> StateCheck:
    return StateCheck.model_validate(kw)


def _one(check: StateCheck, tools: list[ToolUse] | None = None, state: Any = None) -> Any:
    (res,) = run_checks(1, [check], tools or [], state)
    return res


REMEMBER = ToolUse(name="remember", arguments=json.dumps({"attribute": "tz", "value": "CET"}))
MEMS = AgentState(
    memories=[
        MemoryRecord("opening", "9 am", state="superseded", id="a", superseded_by="b"),
        MemoryRecord("opening", "8 am", id="b"),
        MemoryRecord("dentist", None, state="forgotten", id="c"),
    ]
)


def test_tool_checks_pass_and_fail() -> None:
    assert _one(_check(tool_called="remember"), [REMEMBER]).passed is True
    assert _one(_check(tool_called="remember", arguments={"value": "cet"}), [REMEMBER]).passed
    assert _one(_check(tool_called="remember", arguments={"*": "CET"}), [REMEMBER]).passed
    wrong = _one(_check(tool_called="remember", arguments={"value": "PST"}), [REMEMBER])
    assert wrong.passed is False and "remember(" in wrong.evidence
    assert (
        _one(_check(tool_called="remember", arguments={"attribute": "CET"}), [REMEMBER]).passed
        is False
    )
    assert _one(_check(tool_called="recall"), [REMEMBER]).passed is False
    assert _one(_check(tool_not_called="remember"), [REMEMBER]).passed is False
    assert _one(_check(tool_not_called="remember", arguments={"*": "IBAN"}), [REMEMBER]).passed
    assert _one(_check(tool_not_called="remember"), []).passed is True


def test_memory_checks_see_only_current_memories() -> None:
    assert _one(_check(memory_has="8 AM"), state=MEMS).passed is True
    assert _one(_check(memory_has="opening"), state=MEMS).passed is True  # the key counts
    # The superseded 9 am and the forgotten dentist are not current.
    assert _one(_check(memory_lacks="9 am"), state=MEMS).passed is True
    assert _one(_check(memory_has="9 am"), state=MEMS).passed is False
    lacks = _one(_check(memory_lacks="8"), state=MEMS)
    assert lacks.passed is False and "8 am" in lacks.evidence


def test_no_state_is_unverified_never_a_pass() -> None:
    res = _one(_check(memory_has="x"), state=None)
    assert res.passed is None and "no state()" in res.evidence
    assert _one(_check(memory_has="x"), state=AgentState()).passed is None
    assert _one(_check(file_has="a.md"), state=AgentState(memories=[])).passed is None
    assert verdict(run_checks(1, [_check(memory_has="x")], [], None)) is None
    both = run_checks(1, [_check(tool_not_called="x"), _check(memory_has="y")], [], None)
    assert verdict(both) is None  # one pass and one unverified: not a pass
    assert verdict([]) is None


def test_file_checks(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shopping.md").write_text("milk, eggs, flour", encoding="utf-8")
    state = AgentState(workspace=ws)
    assert _one(_check(file_has="shopping.md", contains="EGGS"), state=state).passed is True
    assert _one(_check(file_has="shopping.md", contains="butter"), state=state).passed is False
    gone = _one(_check(file_has="todo.md"), state=state)
    assert gone.passed is False and "shopping.md" in gone.evidence
    assert _one(_check(file_absent="todo.md"), state=state).passed is True
    assert _one(_check(file_absent="shopping.md"), state=state).passed is False
    secret = tmp_path / "secret.txt"
    secret.write_text("eggs", encoding="utf-8")
    os.symlink(secret, ws / "link.md")
    out = _one(_check(file_has="link.md", contains="eggs"), state=state)
    assert out.passed is False and "outside the workspace" in out.evidence


@pytest.mark.parametrize(
    ("check", "words"),
    [
        ({"memory_has": "a", "memory_lacks": "b"}, "exactly one of"),
        ({}, "exactly one of"),
        ({"memory_has": "a", "arguments": {"x": "y"}}, "arguments goes with tool_called"),
        ({"tool_called": "a", "contains": "y"}, "contains goes with file_has"),
        ({"file_has": "../x.md"}, "without '..'"),
        ({"file_absent": "/etc/passwd"}, "without '..'"),
        ({"memory_has": "  "}, "memory_has is empty"),
        ({"tool_called": "remember", "colour": "x"}, "colour"),
    ],
)
def test_a_bad_check_is_exit_2_naming_the_file_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], check: dict[str, Any], words: str
) -> None:
    data = scenario("chk")
    data["turns"][0]["checks"] = [check]
    write(tmp_path, [data])
    assert main(["agent", "--list", "--tier", "custom", "--scenarios-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "chk.yaml" in err and "turns[0].checks[0]" in err and words in err


def _scenarios(folder: Path) -> Path:
    tz = scenario("tz_kept", messages=["remember my timezone CET"])
    tz["turns"][0]["checks"] = [
        {"tool_called": "remember", "arguments": {"*": "CET"}},
        {"memory_has": "CET"},
    ]
    said = scenario("tz_only_said", messages=["note my timezone PST"])
    said["turns"][0]["checks"] = [{"memory_has": "PST"}]
    note = scenario("note_saved", messages=["save a shopping note"])
    note["turns"][0]["checks"] = [{"file_has": "shopping.md", "contains": "eggs"}]
    for s in (tz, said, note):
        s["setup"]["index_documents"] = []
    return write(folder, [tz, said, note])


def test_end_to_end_state_beside_the_judge(tmp_path: Path) -> None:
    """The reference agent's real memory store and notes folder: a remembered fact and a
    written note pass their checks; a reply that only claims to have noted a fact passes
    the judge but fails its state check, and the report shows both."""
    world = World(
        agent={
            "remember my timezone CET": {
                "tool_call": ("remember", {"attribute": "timezone", "value": "CET"}),
                "text": "Noted: CET.",
            },
            "note my timezone PST": {"text": "Noted, your timezone is PST."},
            "save a shopping note": {
                "tool_call": ("save_note", {"name": "shopping.md", "text": "milk, eggs"}),
                "text": "Saved shopping.md.",
            },
        }
    )
    with serve(world) as url:
        assert run(url, _scenarios(tmp_path / "sc"), tmp_path / "out") == 0
    env = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    res = {i["id"]: i["result"] for i in env["items"]}
    assert {k: v["status"] for k, v in res.items()} == dict.fromkeys(res, "PASS")
    assert res["tz_kept"]["state_passed"] is True
    assert [c["passed"] for c in res["tz_kept"]["turns"][0]["checks"]] == [True, True]
    assert res["note_saved"]["state_passed"] is True
    said = res["tz_only_said"]
    assert said["state_passed"] is False  # the judge passed it; the store has nothing
    (chk,) = said["turns"][0]["checks"]
    assert chk["passed"] is False and chk["evidence"] == "(no memories)"
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "## State checks" in report
    row = next(line for line in report.splitlines() if "`tz_only_said`" in line and "FAIL" in line)
    assert "PASS" in row and "yes" in row  # judge PASS, state FAIL: they disagree
    assert "state checks" in report and "disagree on 1 scenario run(s)" in report


class _NoState:
    """A --system agent without state(): its memory checks stay unverified."""

    def info(self) -> Any:
        from gaia_eval.agent.protocol import AgentInfo

        return AgentInfo(name="nostate", model="m")

    def reset(self, documents: list[Path]) -> int:
        return 0

    def send(self, message: str) -> Any:
        from gaia_eval.agent.protocol import AgentReply

        return AgentReply(text="Noted, your timezone is PST.", model="m")

    def close(self) -> None:
        return None


def make_nostate() -> _NoState:
    return _NoState()


def test_an_agent_without_state_leaves_checks_unverified(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    sc = scenario("tz_unverified", messages=["note my timezone PST"])
    sc["setup"]["index_documents"] = []
    sc["turns"][0]["checks"] = [{"memory_has": "PST"}, {"tool_not_called": "remember"}]
    folder = write(tmp_path / "sc", [sc])
    with serve(World()) as url:
        from agent_fakes import DRIVER

        code = main(
            [
                "agent", "--tier", "custom", "--scenarios-dir", str(folder),
                "--system", "test_agent_checks:make_nostate",
                "--driver-model", f"openai:{url}#{DRIVER}", "--out", str(tmp_path / "out"),
            ]
        )  # fmt: skip
    assert code == 0
    env = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    res = env["items"][0]["result"]
    assert [c["passed"] for c in res["turns"][0]["checks"]] == [None, True]
    assert res["state_passed"] is None and res["status"] == "PASS"
    assert "no state() to read" in res["turns"][0]["checks"][0]["evidence"]


def test_shipped_checks_are_valid_and_where_the_outcome_is_a_state() -> None:
    from gaia_eval.agent.scenarios import load_all

    with_checks = {
        s.scenario.id: [c.kind() for t in s.scenario.turns for c in t.checks]
        for s in load_all()
        if any(t.checks for t in s.scenario.turns)
    }
    assert {"memory_update_fact", "memory_forget_request", "outcomes_save_note"} <= set(with_checks)
    kinds = {k for ks in with_checks.values() for k in ks}
    assert {"tool_called", "tool_not_called", "memory_has", "memory_lacks", "file_has"} <= kinds
