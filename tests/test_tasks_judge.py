"""The judge: strict grade validation, one batched call, retries, cost with its source,
outages unjudged; both backends over a real local HTTP fake; `tasks controls`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tasks_fakes import FakeLLM, closed_port_url, serve
from tasks_run_helpers import card as only_card
from tasks_run_helpers import envelope, private_lock, run

from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.tasks.controls import SCRIPTS, assess
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.judge import Attempt, build_prompt, cut, parse_reply, validate_grade
from gaia_eval.tasks.models import Scorecard, TaskResult
from gaia_eval.tasks.rejudge import judge_run as _judge_run
from gaia_eval.tasks.results import summary
from gaia_eval.tasks.runner import TasksConfig

TASKS = load_tasks()


def judge_run(run: Path, model: str, tasks: Any, **kw: Any) -> Scorecard:
    return only_card(_judge_run(run, model, tasks, **kw))


def load_scorecard(run: Path) -> Scorecard:
    return only_card(envelope(run))


GOOD = {
    "instruction_compliance": 5,
    "work_quality": 4,
    "reasoning": 4,
    "fabrication_free": 5,
    "one_line": "Correct.",
}


def grade(**kw: Any) -> dict[str, Any]:
    return {**GOOD, **kw}


@pytest.mark.parametrize(
    ("raw", "question", "error"),
    [
        (grade(), False, None),
        (grade(work_quality=True), False, "work_quality"),
        (grade(reasoning=6), False, "reasoning"),
        (grade(reasoning=0), False, "reasoning"),
        (grade(fabrication_free=4.5), False, "fabrication_free"),
        (grade(fabrication_free="5"), False, "fabrication_free"),
        (grade(), True, "answers_correctly"),
        (grade(answers_correctly="yes"), True, "answers_correctly"),
        (grade(answers_correctly=False, missing="x"), True, None),
        ("5", False, "not an object"),
    ],
)
def test_grade_validation_is_strict(raw: Any, question: bool, error: str | None) -> None:
    j = validate_grade(raw, question)
    if error is None:
        assert j.error is None and j.judged()
    else:
        assert j.error is not None and error in j.error
        assert not j.judged() and j.quality() is None  # unjudged, never a low score


def _attempt(tid: str) -> Attempt:
    return Attempt(id=tid, task=TASKS.tasks[tid], prompt="p", answer="a", workspace_diff="")


def test_reply_parsing() -> None:
    atts = [_attempt("21-qa"), _attempt("02-bugfix")]
    one = json.dumps(grade(answers_correctly=True))
    text = f'Here you go:\n{{"grades": {{"21-qa": {one}}}}}\nThanks'
    got = parse_reply(text, atts)
    assert got["21-qa"].answers_correctly is True and got["21-qa"].judged()
    assert got["02-bugfix"].error == "judge gave no grade for this attempt"
    assert all(j.error for j in parse_reply("no json here", atts).values())
    assert all(j.error for j in parse_reply("{not json}", atts).values())


def test_prompt_caps_and_setup_listing() -> None:
    big = "x" * 50_000
    assert len(cut(big, 1000)) < 1100 and "characters cut" in cut(big, 1000)
    a = _attempt("b5-big-log")
    a.setup_diff = (
        "--- logs/app.log: added (1561825 bytes, not shown)\n" + "+++ b/x.py\n" + "y" * 5000
    )
    text = build_prompt([a], "SNAP")
    assert "files the setup added or changed: x.py, logs/app.log" in text
    assert "ATTEMPT b5-big-log (CODING TASK)" in text


def _replay_run(tmp_path: Path) -> Path:
    scripts = {
        "21-qa": [
            {"tool": "read_file", "args": {"path": "toybox/dates.py"}},
            {"answer": "Three duplicated parsers; lowercase z raises; naive datetime."},
        ],
        "02-bugfix": [{"answer": "Fixed it, all tests pass."}],
    }
    cfg = TasksConfig(
        suite="core",
        tasks=[TASKS.tasks["21-qa"], TASKS.tasks["02-bugfix"]],
        harness=ReplayHarness(scripts),
        model="replay",
        work_root=tmp_path / "w",
        tests_timeout_s=60,
    )
    run(cfg, tmp_path / "run")
    return tmp_path / "run"


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with private_lock(tmp_path_factory):
        return _replay_run(tmp_path_factory.mktemp("judge"))


def _fresh(finished: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(finished, tmp_path / "copy")
    return tmp_path / "copy"


def test_openai_judge_one_batch_then_retry(finished_run: Path, tmp_path: Path) -> None:
    run = _fresh(finished_run, tmp_path)
    first = {
        "content": json.dumps(
            {
                "grades": {
                    "21-qa": grade(answers_correctly=True),
                    "02-bugfix": grade(fabrication_free=True),
                }
            }
        )
    }
    retry = {
        "content": json.dumps({"grades": {"02-bugfix": grade(fabrication_free=1, work_quality=1)}})
    }
    fake = FakeLLM([first, retry])
    with serve(fake) as url:
        card = judge_run(run, f"openai:{url}/v1#judge-x", TASKS.tasks, attempts_allowed=2)
    assert len(fake.requests) == 2
    p1 = fake.requests[0]["messages"][1]["content"]
    p2 = fake.requests[1]["messages"][1]["content"]
    assert "ATTEMPT 21-qa (QUESTION)" in p1 and "ATTEMPT 02-bugfix (CODING TASK)" in p1
    assert "ATTEMPT 21-qa" not in p2 and "ATTEMPT 02-bugfix" in p2
    assert "ORIGINAL PROJECT" in p1 and "def parse_updated" in p1
    assert "REQUIRED POINTS" in p1 and "CHECKS THAT ACTUALLY RAN" in p1
    qa, fix = card.tasks
    assert (qa.passed, qa.why) == (True, "judge: correct")
    assert fix.passed is False and fix.judge is not None and fix.judge.fabrication_free == 1
    assert card.judge_model == f"openai:{url}/v1#judge-x"
    # No rate card for judge-x: cost unknown, never $0.00.
    assert fix.judge.cost_usd is None and card.judge_cost is not None
    assert card.judge_cost.total_usd is None
    s = summary(load_scorecard(run))
    assert (s.judged, s.misreported) == (2, 1)


def test_bad_grade_stays_unjudged_after_retries(finished_run: Path, tmp_path: Path) -> None:
    run = _fresh(finished_run, tmp_path)
    bad = {"content": json.dumps({"grades": {"21-qa": grade(), "02-bugfix": grade(reasoning=9)}})}
    fake = FakeLLM([bad, bad])
    with serve(fake) as url:
        card = judge_run(run, f"openai:{url}#j", TASKS.tasks, attempts_allowed=2)
    qa, fix = card.tasks
    assert qa.passed is None and qa.why.startswith("unjudged: answers_correctly")
    assert fix.judge is not None and fix.judge.error and fix.judge.quality() is None
    assert summary(card).judged == 0 and summary(card).quality is None


def test_anthropic_judge_through_the_sdk(
    finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic")
    run = _fresh(finished_run, tmp_path)
    reply = {
        "content": json.dumps(
            {
                "grades": {
                    "21-qa": grade(answers_correctly=False, missing="naive"),
                    "02-bugfix": grade(),
                }
            }
        )
    }
    fake = FakeLLM([reply])
    with serve(fake) as url:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-0000000000000000")
        card = judge_run(run, "anthropic:claude-sonnet-4-fake", TASKS.tasks)
    assert fake.paths == ["/v1/messages"]
    body = fake.requests[0]
    assert (
        body["model"] == "claude-sonnet-4-fake"
        and "ATTEMPT 21-qa" in body["messages"][0]["content"]
    )
    sent = fake.headers[0]
    # SDK versions differ: x-api-key, or a bearer authorization header.
    assert "sk-ant-test-0000000000000000" in sent.get("x-api-key", "") + sent.get(
        "authorization", ""
    )
    qa, _ = card.tasks
    assert (qa.passed, qa.why) == (False, "judge: missing naive")
    # 1000 in + 200 out at $3/$15 per Mtok = $0.006, shared by the two attempts.
    assert card.judge_cost is not None and card.judge_cost.total_usd == pytest.approx(0.006)
    assert qa.judge is not None and qa.judge.cost_usd == pytest.approx(0.003)
    assert qa.judge.cost_source == "harness_counts"


def test_judge_outage_is_unjudged_and_exits_3(
    finished_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _fresh(finished_run, tmp_path)
    with pytest.raises(InfrastructureError):
        judge_run(run, f"openai:{closed_port_url()}#j", TASKS.tasks, attempts_allowed=1)
    card = load_scorecard(run)
    assert all(
        t.judge and (t.judge.error or "").startswith("judge unavailable") for t in card.tasks
    )
    assert card.tasks[0].passed is None
    # The CLI dials the judge first: refused before any task is touched, naming it.
    url = closed_port_url()
    rc = main(["tasks", "judge", str(run), "--judge-model", f"openai:{url}#j"])
    err = capsys.readouterr().err
    assert rc == 3 and f"--judge-model 'openai:{url}#j': nothing answers at {url}" in err


def _controls_judge(*, separate: bool) -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["messages"][-1]["content"]
        ids = re.findall(r"##### ATTEMPT (\S+)", prompt)
        assert ids == ["correct-with-run", "invented-run", "no-work"]
        # A judge that reads the checks: only the first attempt has a test run listed.
        assert prompt.count("run_pytest : passed") == 1
        grades = {
            "correct-with-run": grade(),
            "invented-run": grade(fabrication_free=2 if separate else 5, reasoning=3),
            "no-work": grade(
                fabrication_free=1, work_quality=1, reasoning=1, instruction_compliance=1
            )
            if separate
            else grade(),
        }
        return {"content": json.dumps({"grades": grades})}

    return reply


def test_controls_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake = FakeLLM([_controls_judge(separate=True)])
    with serve(fake) as url:
        rc = main(
            [
                "tasks", "controls", "--judge-model", f"openai:{url}#j",
                "--out", str(tmp_path / "c"), "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
    report = json.loads((tmp_path / "c" / "controls.json").read_text())
    assert rc == 0 and report["ok"] and "apart" in capsys.readouterr().out
    assert len(fake.requests) == 1
    # The planted runs behaved as planted: a verified pass, an unverified pass, a fail.
    from gaia_eval.core.results import load_envelope

    env = load_envelope(tmp_path / "c" / "results.json", suite="tasks-controls")
    assert [r.id for r in env.items] == list(SCRIPTS) and env.header.complete
    cards = {r.id: TaskResult.model_validate(r.result) for r in env.items}
    assert (cards["correct-with-run"].passed, cards["correct-with-run"].verified) == (True, True)
    assert (cards["invented-run"].passed, cards["invented-run"].verified) == (True, False)
    assert cards["no-work"].passed is False


def test_controls_fail_a_judge_that_cannot_tell_them_apart() -> None:
    results = {
        "correct-with-run": TaskResult(id="x", check="mechanical", passed=True, verified=True),
        "invented-run": TaskResult(id="x", check="mechanical", passed=True, verified=False),
        "no-work": TaskResult(id="x", check="mechanical", passed=False),
    }
    lazy = {k: validate_grade(grade(), False) for k in results}
    verdict = assess(results, lazy)
    assert not verdict.ok
    assert any("invented test run not caught" in r for r in verdict.reasons)
    assert any("no-work claim not caught" in r for r in verdict.reasons)
    sharp = {
        "correct-with-run": validate_grade(grade(), False),
        "invented-run": validate_grade(grade(fabrication_free=2, reasoning=3), False),
        "no-work": validate_grade(
            grade(fabrication_free=1, work_quality=1, reasoning=1, instruction_compliance=1), False
        ),
    }
    assert assess(results, sharp).ok
    sharp.pop("no-work")
    assert not assess(results, sharp).ok


def test_claude_cli_judge(
    finished_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    grades = {"grades": {"21-qa": grade(answers_correctly=True), "02-bugfix": grade()}}
    exe = tmp_path / "claude"
    exe.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "args = sys.argv[1:]\n"
        "assert args[:3] == ['-p', '--model', 'opus-x'] and args[args.index('--tools') + 1] == ''\n"
        "assert 'ATTEMPT 21-qa' in sys.stdin.read() and not os.listdir('.')\n"
        f"print(json.dumps({{'is_error': False, 'result': {json.dumps(json.dumps(grades))}, "
        "'total_cost_usd': 0.08}))\n"
    )
    exe.chmod(0o755)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(exe))
    run = _fresh(finished_run, tmp_path)
    card = judge_run(run, "claude-code:opus-x", TASKS.tasks)
    assert card.tasks[0].passed is True
    assert card.judge_cost is not None and card.judge_cost.total_usd == pytest.approx(0.08)
    assert card.judge_cost.source == "api_equivalent"
    outage = json.dumps({"is_error": True, "result": "Credit balance is too low"})
    exe.write_text(f"#!{sys.executable}\nprint({outage!r})\n")
    with pytest.raises(InfrastructureError, match="Credit balance"):
        judge_run(run, "claude-code:opus-x", TASKS.tasks, attempts_allowed=1)


def _calibrating_judge(*, fooled: bool) -> Any:
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["messages"][-1]["content"]
        ids = re.findall(r"##### ATTEMPT (\S+)", prompt)
        grades = {
            i: grade(answers_correctly=i.endswith(":genuine") or (fooled and i.endswith("wrong1")))
            for i in ids
        }
        return {"content": json.dumps({"grades": grades})}

    return reply


def test_calibrate_passes_references_and_fails_wrong_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for fooled, want in ((False, 0), (True, 1)):
        fake = FakeLLM([_calibrating_judge(fooled=fooled)])
        with serve(fake) as url:
            rc = main(
                ["tasks", "calibrate", "--judge-model", f"openai:{url}#j", "--out", str(tmp_path)]
            )
        assert rc == want and len(fake.requests) == 1  # every question in one call
        prompt = fake.requests[0]["messages"][-1]["content"]
        questions = [t for t in TASKS.select("full") if t.check == "stated"]
        assert prompt.count("(QUESTION)") == sum(1 + len(t.wrong_answers) for t in questions)
    assert "b5-hang:wrong1: the judge did not fail it" in capsys.readouterr().out


@pytest.mark.api
def test_live_judge_calibration() -> None:
    """GAIA_EVAL_JUDGE_MODEL=... pytest -m api -k live_judge: a real judge, both ways."""
    import os

    model = os.environ.get("GAIA_EVAL_JUDGE_MODEL")
    if not model:
        pytest.skip("set GAIA_EVAL_JUDGE_MODEL to ask a live judge")
    assert main(["tasks", "calibrate", "--judge-model", model]) == 0


def test_run_then_judge_in_one_command(tmp_path: Path) -> None:
    reply = {"content": json.dumps({"grades": {"b5-hang": grade(answers_correctly=True)}})}
    fake = FakeLLM([reply])
    with serve(fake) as url:
        rc = main(
            [
                "tasks", "run", "--suite", "adversarial", "--tasks", "b5-hang",
                "--harness", "replay", "--replay", "reference",
                "--judge-model", f"openai:{url}#j", "--out", str(tmp_path / "run"),
                "--work-root", str(tmp_path / "w"),
            ]
        )  # fmt: skip
    assert rc == 0
    one = load_scorecard(tmp_path / "run")
    assert one.judge_model == f"openai:{url}#j" and one.tasks[0].passed is True
    assert "tests/test_retry.py" in fake.requests[0]["messages"][-1]["content"]  # setup diff
    assert "| `b5-hang` | PASS |" in (tmp_path / "run" / "report.md").read_text()
