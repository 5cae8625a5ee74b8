# ruff: noqa: E501  (the stand-in CLI script is kept as one readable block)
"""TheRock-style tasks on a repository the test builds (the shipped therock-demo suite):
the sealed checkout at the parent, the mechanical gate, web use from the tool record, the
reference diff fetched only in the judge step, the base checked against its pin, the judge
told the reference is one correct answer; and the shipped four-task suite's data."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tasks_fakes import FakeLLM, serve

from gaia_eval.agents import checkout
from gaia_eval.agents.models import Transcript
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import load_envelope
from gaia_eval.tasks import therock
from gaia_eval.tasks.definitions import data_dir, load_tasks, parse_tasks
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.therock_demo import build
from gaia_eval.tasks.therock_pins import check_pins

DEMO = load_tasks(data_dir() / "therock_demo.json")
NAMES, INDEX = "rock-demo-xnack-name", "rock-demo-empty-index"


@pytest.fixture
def demo(tmp_path: Path) -> dict[str, Any]:
    ids = build(tmp_path / "rockbuild")
    return {"url": (tmp_path / "rockbuild").as_uri(), "ids": ids}


def _replay(tmp_path: Path) -> Path:
    fixed = (
        '"""Names."""\n\n\ndef dist_package_name(family: str) -> str:\n'
        "    return f\"rocm-sdk-device-{family.split(':')[0]}\"\n"
    )
    scripts = {
        NAMES: [
            {
                "tool": "run_shell",
                "args": {"command": "git log --all --format='%H %s'; git remote -v"},
            },
            {"tool": "write_file", "args": {"path": "build_tools/names.py", "content": fixed}},
            {"answer": "Stripped the suffix."},
        ],
        INDEX: [
            {
                "tool": "run_shell",
                "args": {
                    "command": "echo see https://github.com/ROCm/TheRock/pull/7015 >/dev/null"
                },
            },
            {"tool": "write_file", "args": {"path": "README.md", "content": "# changed\n"}},
            {"answer": "Done."},
        ],
    }
    path = tmp_path / "replay.json"
    path.write_text(json.dumps(scripts))
    return path


def _argv(tmp_path: Path, url: str | None, *extra: str) -> list[str]:
    return [
        "tasks",
        "run",
        "--suite",
        "therock-demo",
        *(["--therock-url", url] if url else []),
        "--harness",
        "replay",
        "--replay",
        str(_replay(tmp_path)),
        "--full-access",
        "--work-root",
        str(tmp_path / "work"),
        *extra,
    ]


def _results(out: Path) -> dict[str, TaskResult]:
    env = load_envelope(out / "results.json", suite="tasks")
    return {r.id: TaskResult.model_validate(r.result) for r in env.items}


def test_the_demo_repository_matches_its_pins(demo: dict[str, Any]) -> None:
    ids = demo["ids"]
    pins = {t.id: t.therock for t in DEMO.tasks.values()}
    assert pins[NAMES]["base"] == ids["start"] and pins[NAMES]["merge"] == ids["names_fix"]
    assert pins[INDEX]["base"] == ids["docs"] and pins[INDEX]["merge"] == ids["index_fix"]


def test_run_checks_out_the_parent_sealed_and_gates_on_the_files(
    tmp_path: Path, demo: dict[str, Any]
) -> None:
    out = tmp_path / "run"
    assert main([*_argv(tmp_path, demo["url"], "--no-judge", "--out", str(out))]) == 0
    res = _results(out)
    # Touched the file the fix needs: the judge decides. Touched only README: failed.
    assert res[NAMES].passed is None and res[NAMES].why == "awaiting judge"
    assert res[INDEX].passed is False
    assert res[INDEX].why == "changed README.md, none of the files the fix needs"
    tr = Transcript.model_validate_json((out / NAMES / "transcript.json").read_text())
    seen = tr.outcome.tool_calls[0].result
    # git log --all in the agent's checkout: the base only, no fix, no remote.
    assert demo["ids"]["start"] in seen and demo["ids"]["names_fix"] not in seen
    assert "xnack" not in seen and "origin" not in seen
    # Closed-book web use comes from the tool record.
    assert res[INDEX].web_uses == ["#0 run_shell: url"]
    assert res[NAMES].web_uses == []  # not a closed-book task
    # No judge step, so the last merge was never fetched and no reference was written.
    # (The first fix is in the cache: it is history of the second task's base.)
    bare = checkout.bare_path(tmp_path / "work", therock.cache_key(demo["url"]))
    assert checkout.has_commit(bare, demo["ids"]["docs"])
    assert not checkout.has_commit(bare, demo["ids"]["index_fix"])
    assert not list(out.rglob("reference.diff"))
    env = load_envelope(out / "results.json", suite="tasks")
    assert env.header.settings["therock_url"] == demo["url"]
    from gaia_eval.tasks.results import scorecards

    assert scorecards(env)[0].therock_url == demo["url"]


def _grader(body: dict[str, Any]) -> dict[str, Any]:
    prompt = body["messages"][-1]["content"]
    ids = re.findall(r"^##### ATTEMPT (\S+)", prompt, re.M)
    grade = {
        "solves_problem": True,
        "right_place": True,
        "updated_tests": False,
        "approach": "different but valid",
        "instruction_compliance": 4,
        "work_quality": 4,
        "reasoning": 4,
        "fabrication_free": 5,
        "one_line": "Fixes it another way.",
    }
    return {"content": json.dumps({"grades": {i: grade for i in ids}})}


def test_judge_step_fetches_the_reference_and_is_told_it_is_one_answer(
    tmp_path: Path, demo: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeLLM([_grader])
    out = tmp_path / "run"
    # The URL from the spec's variable this time, not the flag.
    monkeypatch.setenv("GAIA_BENCH_THEROCK_URL", demo["url"])
    with serve(fake) as url:
        argv = _argv(tmp_path, None, "--judge-model", f"openai:{url}/v1#judge")
        assert main([*argv, "--out", str(out)]) == 0
    res = _results(out)
    assert res[NAMES].passed is True and res[NAMES].why == "judge: solves the problem"
    assert res[NAMES].judge is not None and res[NAMES].judge.approach == "different but valid"
    assert res[INDEX].passed is False  # the gate failed it; the judge cannot pass it
    reference = (out / NAMES / "reference.diff").read_text()
    assert "+    return f\"rocm-sdk-device-{family.split(':', 1)[0]}\"" in reference
    env = load_envelope(out / "results.json", suite="tasks")
    assert "--therock-url" in env.header.run.argv  # recorded, so --resume needs no variable
    (request,) = fake.requests
    prompt = request["messages"][-1]["content"]
    assert "ONE correct answer, not the only one" in prompt and reference.strip() in prompt


def test_a_base_that_is_not_the_merges_parent_refuses_the_grade(
    tmp_path: Path, demo: dict[str, Any]
) -> None:
    data = json.loads((data_dir() / "therock_demo.json").read_text())
    data["tasks"][1]["therock"]["base"] = demo["ids"]["start"]  # not index_fix's parent
    task = parse_tasks(data, Path("x.json")).tasks[INDEX]
    with pytest.raises(InvalidInputError, match=r"not\s+the pinned base"):
        therock.reference_diff(task, demo["url"], tmp_path / "work")


def test_shipped_therock_suite_is_four_pinned_tasks_two_closed_book() -> None:
    tf = load_tasks(data_dir() / "therock.json")
    tasks = tf.select("therock")
    assert len(tasks) == 4 and sum(t.closed_book == "instructed" for t in tasks) == 2
    for t in tasks:
        assert re.fullmatch(r"[0-9a-f]{40}", t.therock["base"])
        assert re.fullmatch(r"[0-9a-f]{40}", t.therock["merge"])
        assert t.therock["reference_files"]
    check_pins(tasks, tf.path)
    assert therock.cache_key(therock.DEFAULT_URL) == "ROCm/TheRock"


def test_placeholder_pins_are_refused_clearly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    data = json.loads((data_dir() / "therock.json").read_text())
    data["tasks"][0]["therock"]["merge"] = "TODO"
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(data))
    argv = ["tasks", "run", "--suite", "therock", "--tasks-file", str(path), "--no-judge"]
    assert main([*argv, "--harness", "replay", "--replay", "reference"]) == 2
    err = capsys.readouterr().err
    assert "rock-empty-index" in err and "therock.merge" in err and "placeholder" in err
    data["tasks"][0]["therock"]["merge"] = "--upload-pack=x"
    with pytest.raises(InvalidInputError, match=r"therock\.merge"):
        parse_tasks(data, path)


FAKE_CLAUDE = r"""#!{python}
import json
def emit(ev):
    print(json.dumps(ev), flush=True)
emit({{"type": "system", "subtype": "init"}})
emit({{"type": "assistant", "message": {{"content": [
    {{"type": "tool_use", "id": "t1", "name": "WebFetch", "input": {{"url": "https://github.com/ROCm/TheRock/pull/7015"}}}}]}}}})
emit({{"type": "user", "message": {{"content": [{{"type": "tool_result", "tool_use_id": "t1", "content": "page"}}]}}}})
emit({{"type": "result", "subtype": "success", "is_error": False, "result": "Looked it up.", "num_turns": 2}})
"""


def test_closed_book_web_use_is_reported_for_claude_code_too(
    tmp_path: Path, demo: dict[str, Any]
) -> None:
    import sys

    from tasks_run_helpers import run

    from gaia_eval.agents.harnesses.claude_code import ClaudeCodeHarness
    from gaia_eval.tasks.runner import TasksConfig

    exe = tmp_path / "claude"
    exe.write_text(FAKE_CLAUDE.format(python=sys.executable))
    exe.chmod(0o755)
    cfg = TasksConfig(
        suite="therock-demo",
        tasks=[DEMO.tasks[INDEX]],
        harness=ClaudeCodeHarness("m", executable=str(exe)),
        model="claude-code:m",
        work_root=tmp_path / "work",
        therock_url=demo["url"],
    )
    (rec,) = run(cfg, tmp_path / "run").items
    res = TaskResult.model_validate(rec.result)
    assert res.web_uses == ["#0 WebFetch: web tool"] or (
        len(res.web_uses) == 1 and "WebFetch" in res.web_uses[0]
    )
    assert res.passed is False and res.why == "nothing was changed"
