"""A full session replay: the `replay` harness as the agent, a scripted judge served over a
real loopback socket, the engine's run folder, an outage that stops the run, and resume."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.sessions import judge as judge_mod
from gaia_eval.sessions.judge import parse_reply
from gaia_eval.sessions.workspace import prepare
from tests import sessions_fixture
from tests.tasks_fakes import FakeLLM, serve

IDS = ["5e55f1c7-000", "5e55f1c7-001", "5e55f1c7-002"]


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge_mod, "BACKOFF_S", (0.0, 0.0))


def _grader(body: dict[str, Any]) -> dict[str, Any]:
    """Scores by what the answer says: the reference verbatim 5, 'wrong' 1, nothing: no JSON."""
    text = body["messages"][-1]["content"]
    answer = text.split("ANSWER TO GRADE:\n", 1)[1]
    reference = text.split("REFERENCE ANSWER:\n", 1)[1].split("\n\nANSWER TO GRADE:", 1)[0]
    if answer == "(no answer)":
        return {"content": "I can't grade an empty answer."}
    score = 5 if answer == reference else 1
    return {"content": f'Sure. {{"score": {score}, "verdict": "v{score}", "rationale": "r"}}'}


def _scripts(tmp_path: Path) -> Path:
    data = json.loads((tmp_path / "ds" / "dataset.json").read_text())
    refs = {c["id"]: c["reference"] for c in data["cases"]}
    scripts = {
        IDS[0]: [{"answer": refs[IDS[0]]}],
        IDS[1]: [{"answer": "wrong"}],
        IDS[2]: [],
    }
    path = tmp_path / "scripts.json"
    path.write_text(json.dumps(scripts))
    return path


def test_committed_fixture_is_what_the_generator_writes(tmp_path: Path):
    fresh = sessions_fixture.write(tmp_path)
    name = "-fixture-proj/5e55f1c7-0000.jsonl"
    assert (fresh / name).read_text() == (sessions_fixture.FIXTURE / name).read_text()


def test_full_replay_with_scripted_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    claude = str(sessions_fixture.FIXTURE)
    ds = ["sessions", "--claude-dir", claude, "--dataset-only", "--out", str(tmp_path / "ds")]
    assert main(ds) == 0
    scripts = _scripts(tmp_path)
    fake = FakeLLM([_grader] * 20)
    out = tmp_path / "run"
    with serve(fake) as url:
        code = main(
            ["sessions", "--claude-dir", claude, "--harness", "replay", "--replay", str(scripts),
             "--judge-model", f"openai:{url}/v1#judge", "--out", str(out)]
        )  # fmt: skip
    assert code == 0, capsys.readouterr()
    # 1 call each for the two JSON replies, 3 tries for the reply without JSON.
    assert len(fake.requests) == 5
    card = json.loads((out / "scorecard.json").read_text())
    assert (card["cases"], card["scored"], card["errors"]) == (3, 2, 1)
    assert (card["mean_score"], card["median_score"]) == (3.0, 3.0)
    assert (card["passed"], card["pass_rate"], card["matched_or_exceeded"]) == (1, 50, 1)
    assert card["dishonest"] == 0 and card["no_repo"] == 3
    assert card["per_tag"]["explain"]["scored"] >= 1
    results = json.loads((out / "results.json").read_text())
    by_id = {r["id"]: r["result"] for r in results["items"]}
    assert by_id[IDS[0]]["score"] == 5.0 and by_id[IDS[1]]["score"] == 1.0
    assert by_id[IDS[2]]["score"] is None
    assert "no JSON" in by_id[IDS[2]]["judge_error"]
    assert by_id[IDS[2]]["judge_attempts"] == 3
    # The replay harness holds conversations: a follow-up's context is its own turn.
    assert [by_id[i]["context_replay"] for i in IDS] == [None, "turn", "turn"]
    assert results["header"]["judge"] == f"openai:{url}/v1#judge"
    assert (out / "dataset.json").is_file()
    report = (out / "report.md").read_text()
    assert "mean score" in report
    worst = report.index("Cases, worst first")
    assert report.index(IDS[2], worst) < report.index(IDS[1], worst) < report.index(IDS[0], worst)
    # The judge saw the truncated request and the reference, with the rubric.
    first = fake.requests[0]["messages"]
    assert "claims work it did not do" in first[0]["content"]


def test_judge_outage_stops_the_run_and_resume_finishes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    claude = str(sessions_fixture.FIXTURE)
    out = tmp_path / "run"
    down = {"status": 503, "body": {"error": {"message": "overloaded"}}}
    fake = FakeLLM([_grader, down, down, down])
    with serve(fake) as url:
        judge = f"openai:{url}/v1#judge"
        argv = ["sessions", "--claude-dir", claude, "--harness", "replay", "--replay",
                "reference", "--judge-model", judge, "--out", str(out), "--jobs", "1"]  # fmt: skip
        assert main(argv) == 3
        err = capsys.readouterr()
        assert "--resume" in err.out + err.err
        items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
        assert [i["status"] for i in items] == ["ok", "infra_error"]
        fake.replies = [_grader] * 10
        assert main(["sessions", "--resume", str(out)]) == 0
    card = json.loads((out / "scorecard.json").read_text())
    assert (card["cases"], card["scored"], card["mean_score"]) == (3, 3, 5.0)


def test_parse_reply_needs_a_score_in_range():
    assert parse_reply('x {"score": 4, "verdict": "ok", "rationale": "fine"} y') == (
        4.0, "ok", "fine"
    )  # fmt: skip
    assert parse_reply("score: 4") is None
    assert parse_reply('{"score": 7}') is None
    assert parse_reply('{"verdict": "no score"}') is None
    assert parse_reply('{"score": true}') is None


def test_workspace_is_a_clone_at_the_recorded_branch(tmp_path: Path):
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "sub" / "a.txt").write_text("main\n")
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "m"], check=True)
    subprocess.run([*git, "checkout", "-qb", "feature"], check=True)
    (repo / "sub" / "a.txt").write_text("feature\n")
    subprocess.run([*git, "commit", "-qam", "f"], check=True)
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    work, kind = prepare(str(repo / "sub"), "feature", tmp_path / "w1")
    assert kind == "git" and (work / "a.txt").read_text() == "feature\n"
    work, kind = prepare(str(repo / "sub"), "gone-branch", tmp_path / "w2")
    assert kind == "git" and (work / "a.txt").read_text() == "main\n"
    work, kind = prepare("/nonexistent/x", "main", tmp_path / "w3")
    assert kind == "no_repo" and work.is_dir() and not any(work.iterdir())


def _control_grader(body: dict[str, Any]) -> dict[str, Any]:
    answer = body["messages"][-1]["content"].split("ANSWER TO GRADE:\n", 1)[1]
    from gaia_eval.sessions.controls import PLANTED

    score = {"reference": 5, "thinner": 3, "wrong": 1, "false_claim": 0}
    kind = next(k for k, v in PLANTED.items() if v == answer)
    return {"content": json.dumps({"score": score[kind], "verdict": kind, "rationale": "r"})}


@pytest.mark.parametrize(
    ("grader", "code"),
    [(_control_grader, 0), (lambda body: {"content": '{"score": 3, "verdict": "meh"}'}, 1)],
)
def test_controls_require_the_judge_to_order_planted_answers(
    tmp_path: Path, grader: Any, code: int, capsys: pytest.CaptureFixture[str]
):
    fake = FakeLLM([grader] * 8)
    out = tmp_path / "controls"
    with serve(fake) as url:
        argv = ["sessions", "controls", "--judge-model", f"openai:{url}/v1#j", "--out", str(out)]
        assert main(argv) == code
    summary = json.loads((out / "results.json").read_text())["summary"]
    assert summary["ordered"] is (code == 0)
    if code:
        assert "reference (3) not above thinner (3)" in capsys.readouterr().err
    else:
        assert summary["scores"] == {"reference": 5, "thinner": 3, "wrong": 1, "false_claim": 0}


def test_repeats_judge_each_case_k_times_and_report_the_spread(tmp_path: Path):
    scores = iter([5, 3, 4, 4])

    def grader(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": json.dumps({"score": next(scores), "verdict": "v", "rationale": "r"})}

    fake = FakeLLM([grader] * 4)
    out = tmp_path / "run"
    with serve(fake) as url:
        argv = [
            "sessions",
            "--claude-dir",
            str(sessions_fixture.FIXTURE),
            "--limit",
            "2",
            "--repeats",
            "2",
            "--harness",
            "replay",
            "--replay",
            "reference",
            "--judge-model",
            f"openai:{url}/v1#judge",
            "--out",
            str(out),
            "--jobs",
            "1",
        ]  # fmt: skip  (the judge's scores are scripted in request order)
        assert main(argv) == 0
    card = json.loads((out / "scorecard.json").read_text())
    assert card["cases"] == 4
    spread = {k: v["scores"] for k, v in card["spread"].items()}
    assert spread == {IDS[0]: [5.0, 3.0], IDS[1]: [4.0, 4.0]}
    assert sorted(s["stdev"] for s in card["spread"].values()) == [0.0, 1.0]
    assert "Judge spread over repeats" in (out / "report.md").read_text()


def _agent(body: dict[str, Any]) -> dict[str, Any]:
    """The agent's model: acknowledges a context turn, answers a question in one reply."""
    from gaia_eval.sessions.dataset import ACK_REQUEST

    if body["messages"][-1]["content"].endswith(ACK_REQUEST):
        return {"content": "Noted."}
    return {"content": "My answer."}


def test_builtin_agent_gets_a_follow_ups_context_as_its_own_turn(tmp_path: Path):
    from gaia_eval.sessions.dataset import ACK_REQUEST

    claude = str(sessions_fixture.FIXTURE)
    agent, grader = FakeLLM([_agent] * 10), FakeLLM([_grader] * 10)
    out = tmp_path / "run"
    with serve(agent) as agent_url, serve(grader) as judge_url:
        argv = ["sessions", "--claude-dir", claude, "--model", f"openai:{agent_url}/v1#agent",
                "--judge-model", f"openai:{judge_url}/v1#judge", "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
    cases = {c["id"]: c for c in json.loads((out / "dataset.json").read_text())["cases"]}
    assert cases[IDS[0]]["context"] is None
    assert cases[IDS[1]]["context"] and cases[IDS[2]]["context"]
    # One request for the case without context, an acknowledgement and a question for each
    # follow-up: the context is a user turn of its own, answered before the question.
    assert len(agent.requests) == 5
    questions = [r for r in agent.requests if "tools" in r]
    acks = [r for r in agent.requests if "tools" not in r]
    assert len(questions) == 3 and len(acks) == 2
    for ack in acks:
        roles = [m["role"] for m in ack["messages"]]
        assert roles == ["system", "user"] and ack["max_tokens"] == 48
    by_prompt = {r["messages"][-1]["content"]: r["messages"] for r in questions}
    for cid in IDS[1:]:
        case = cases[cid]
        messages = by_prompt[case["prompt"]]
        assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
        assert messages[1]["content"] == f"{case['context']}\n\n{ACK_REQUEST}"
        assert messages[1]["content"].startswith("Earlier in this session you were asked: ")
        assert messages[2]["content"] == "Noted."
    assert [m["role"] for m in by_prompt[cases[IDS[0]]["prompt"]]] == ["system", "user"]
    results = json.loads((out / "results.json").read_text())
    got = {r["id"]: r["result"]["context_replay"] for r in results["items"]}
    assert got == {IDS[0]: None, IDS[1]: "turn", IDS[2]: "turn"}
    assert {r["result"]["answer"] for r in results["items"]} == {"My answer."}
    # The judge asks for its reply's JSON shape where the backend takes a response_format.
    formats = [r.get("response_format") for r in grader.requests]
    assert all(f and f["type"] == "json_schema" for f in formats)
    assert formats[0]["json_schema"]["schema"]["required"] == ["score", "verdict", "rationale"]


def test_one_shot_command_harness_gets_the_context_folded_before_the_prompt(tmp_path: Path):
    import shlex
    import sys

    claude = str(sessions_fixture.FIXTURE)
    echo = f"{shlex.quote(sys.executable)} -c 'import sys; print(sys.argv[1])' {{prompt}}"
    grader = FakeLLM([_grader] * 10)
    out = tmp_path / "run"
    with serve(grader) as url:
        argv = ["sessions", "--claude-dir", claude, "--harness", "command",
                "--command-template", echo, "--judge-model", f"openai:{url}/v1#judge",
                "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
    cases = {c["id"]: c for c in json.loads((out / "dataset.json").read_text())["cases"]}
    items = json.loads((out / "results.json").read_text())["items"]
    results = {r["id"]: r["result"] for r in items}
    assert results[IDS[0]]["context_replay"] is None
    assert results[IDS[0]]["answer"] == cases[IDS[0]]["prompt"]
    for cid in IDS[1:]:
        assert results[cid]["context_replay"] == "folded"
        assert results[cid]["answer"] == f"{cases[cid]['context']}\n\n{cases[cid]['prompt']}"


def test_replay_harness_acknowledges_earlier_turns_before_its_script(tmp_path: Path):
    from gaia_eval.agents.harnesses.record import read_outcome
    from gaia_eval.agents.harnesses.replay import ReplayHarness

    (tmp_path / "w").mkdir()
    harness = ReplayHarness({"t": [{"ack": "Got it."}, {"answer": "A"}], "u": [{"answer": "B"}]})
    for task, ack in (("t", "Got it."), ("u", "Understood.")):
        run = tmp_path / task
        plan = harness.launch_turns(task, ["context", "question"], tmp_path / "w", run, 5)
        subprocess.run(plan.argv, input=plan.stdin, check=True)
        lines = (run / "progress.jsonl").read_text().splitlines()
        events = [(e["type"], e.get("prompt"), e.get("reply")) for e in map(json.loads, lines)]
        assert events[0] == ("turn", "context", ack)
        assert read_outcome(run).answer == ("A" if task == "t" else "B")


def test_a_local_model_run_records_the_server_and_says_it_is_a_plumbing_model(
    tmp_path: Path, recorded_local_server: Any
):
    from gaia_eval.llm.local_server import LOCAL_NOTE

    # What the CLI starts for a `local` spec; the judge here is a loopback fake.
    info, asked = recorded_local_server.info, recorded_local_server.asked
    fake = FakeLLM([_grader] * 5)
    out = tmp_path / "run"
    with serve(fake) as url:
        argv = ["sessions", "--claude-dir", str(sessions_fixture.FIXTURE), "--limit", "1",
                "--harness", "replay", "--replay", "reference",
                "--judge-model", f"openai:{url}/v1#judge", "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
    assert asked[0] is None and asked[1].text == f"openai:{url}/v1#judge"
    results = json.loads((out / "results.json").read_text())
    assert results["header"]["settings"]["local_model"] == info.comparable()
    assert results["setup"]["local_model"]["note"] == LOCAL_NOTE
    report = (out / "report.md").read_text()
    assert "## Model" in report and report.index(LOCAL_NOTE) < report.index("## Headline")


def test_jobs_4_equals_jobs_1_case_for_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    claude = str(sessions_fixture.FIXTURE)
    ds = ["sessions", "--claude-dir", claude, "--dataset-only", "--out", str(tmp_path / "ds")]
    assert main(ds) == 0
    scripts = _scripts(tmp_path)
    runs = {}
    with serve(FakeLLM(answer=_grader)) as url:
        for jobs in ("1", "4"):
            out = tmp_path / f"run{jobs}"
            code = main(
                ["sessions", "--claude-dir", claude, "--harness", "replay", "--replay",
                 str(scripts), "--judge-model", f"openai:{url}/v1#judge", "--out", str(out),
                 "--jobs", jobs, "--repeats", "2"]
            )  # fmt: skip
            assert code == 0, capsys.readouterr()
            runs[jobs] = json.loads((out / "results.json").read_text())

    def stable(results: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        timeless = ("agent_seconds",)
        return [
            (r["id"], r["status"], {k: v for k, v in r["result"].items() if k not in timeless})
            for r in results["items"]
        ]

    assert stable(runs["4"]) == stable(runs["1"]) and len(runs["1"]["items"]) == 6
    assert runs["4"]["header"]["concurrency"]["jobs"] == 4
    assert runs["1"]["summary"] == runs["4"]["summary"]
