"""A run stopped before anything was measured shows "– (nothing measured)", never a
0.000, a 0/0 or a 0 % that reads as a score: the agent, tasks and sessions suites, each
through the real CLI with a backend that fails the first item (the run stops, exit 3),
in the terminal summary and in report.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from agent_fakes import World
from agent_fakes import serve as serve_agent_world
from agent_helpers import run as run_agent_suite
from agent_helpers import scenario, statuses, write
from tasks_fakes import FakeLLM, hang_up
from tasks_fakes import serve as serve_llm

from gaia_eval.cli.main import main
from gaia_eval.core.report import NOTHING_MEASURED
from tests import sessions_fixture

# What reads as a score of nothing: a zero mean, a share of nothing, a zero percentage.
_ZERO_SCORE = re.compile(r"(?<![\d.])0\.0+(?![\d])|(?<!\d)0/0(?!\d)|(?<![\d.])0(\.0+)? ?%")


def _headline_lines(out: str) -> list[str]:
    """The terminal summary's metric lines (`  label: value`)."""
    return [line for line in out.splitlines() if line.startswith("  ") and ": " in line]


def _headline_rows(report: str) -> str:
    """report.md's headline table (up to the next heading)."""
    start = report.index("| ")
    end = report.find("\n## ", start)
    return report[start : end if end != -1 else None]


def _assert_nothing_reads_as_a_score(out: str, report: str) -> None:
    summary = "\n".join(_headline_lines(out))
    assert NOTHING_MEASURED in summary, out
    assert NOTHING_MEASURED in report
    for text in (summary, _headline_rows(report)):
        assert not _ZERO_SCORE.search(text), text


def test_tasks_stopped_at_the_first_outage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with hang_up() as url:
        code = main(
            [
                "tasks", "run", "--tasks", "21-qa,02-bugfix", "--no-judge",
                "--model", f"openai:{url}#m", "--out", str(tmp_path / "run"),
                "--work-root", str(tmp_path / "w"), "--jobs", "1",
            ]
        )  # fmt: skip
    assert code == 3
    out = capsys.readouterr().out
    report = (tmp_path / "run" / "report.md").read_text(encoding="utf-8")
    _assert_nothing_reads_as_a_score(out, report)
    assert "  passed: – (nothing measured)" in out
    assert "Tokens 0" not in report and "Nothing measured: no task finished" in report
    (row,) = [line for line in report.splitlines() if line.startswith("| `21-qa`")]
    assert row.endswith("| – | – | – | – |"), row  # steps, tokens, wall s, cost


def test_agent_stopped_at_the_first_outage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.llm.openai_compat import OpenAIChat

    kw = OpenAIChat.__init__.__kwdefaults__
    assert kw is not None
    monkeypatch.setitem(kw, "backoff_s", 0.0)
    scen = write(tmp_path / "sc", [scenario("c1"), scenario("c2")])
    world = World(judge={"c1": [{"status": 400, "body": "invalid x-api-key"}]})
    with serve_agent_world(world) as url:
        assert run_agent_suite(url, scen, tmp_path / "out", "--jobs", "1") == 3
    assert statuses(tmp_path / "out") == {"c1": "INFRA_ERROR", "c2": "NOT_RUN"}
    out = capsys.readouterr().out
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    _assert_nothing_reads_as_a_score(out, report)
    assert "  pass rate: – (nothing measured)" in out
    assert "| agent input tokens | – |" in report
    spent = report.split("## What the driver spent", 1)[1].split("\n## ", 1)[0]
    assert NOTHING_MEASURED in spent and "| all |" not in spent


def test_sessions_stopped_at_the_first_outage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.sessions import judge as judge_mod

    monkeypatch.setattr(judge_mod, "BACKOFF_S", (0.0, 0.0))
    down = {"status": 503, "body": {"error": {"message": "overloaded"}}}
    out_dir = tmp_path / "run"
    with serve_llm(FakeLLM([down] * 10)) as url:
        code = main(
            [
                "sessions", "--claude-dir", str(sessions_fixture.FIXTURE), "--harness",
                "replay", "--replay", "reference", "--judge-model", f"openai:{url}/v1#judge",
                "--out", str(out_dir), "--jobs", "1",
            ]
        )  # fmt: skip
    assert code == 3
    out = capsys.readouterr().out
    report = (out_dir / "report.md").read_text(encoding="utf-8")
    _assert_nothing_reads_as_a_score(out, report)
    assert "  mean score (0-5): – (nothing measured)" in out
    assert "passed (>= 3.5)" not in out


def test_a_metric_with_no_eligible_items_is_a_dash() -> None:
    """A run of question tasks only has no coding task to verify: `–`, not `0/0`; a
    sessions tag with nothing scored has no pass count either."""
    from gaia_eval.sessions.report import sections
    from gaia_eval.sessions.results import Scorecard as SessionsCard
    from gaia_eval.sessions.results import TagStats
    from gaia_eval.tasks.models import Scorecard, TaskResult
    from gaia_eval.tasks.report import headline
    from gaia_eval.tasks.results import cards_envelope
    from gaia_eval.tasks.suite import TasksSuite

    qa = TaskResult(id="21-qa", check="stated", passed=True, why="judge: correct")
    card = Scorecard(
        suite="core", model="openai:http://127.0.0.1:9/v1#m", harness="builtin",
        run_timeout_s=60, tasks=[qa], task_ids=["21-qa"], revision="a" * 40,
    )  # fmt: skip
    env = cards_envelope([card])
    rows = dict(headline(TasksSuite.summarise(env)))
    assert rows["verified (coding tasks)"] == "–"
    assert rows["passed"] == "1/1 [0.21, 1.00]"  # Wilson interval of 1 of 1

    empty = SessionsCard(
        cases=1, scored=0, errors=1, mean_score=None, median_score=None, passed=0,
        pass_rate=None, matched_or_exceeded=0, dishonest=0, no_repo=0,
        per_tag={"explain": TagStats(cases=1, scored=0, mean_score=None, passed=0)},
    )  # fmt: skip
    env.items, env.summary = [], empty.model_dump(mode="json")
    by_tag = next(s for s in sections(env) if s.title == "By tag")
    assert by_tag.blocks[0].rows == [["explain", "1", "0", "–", "–"]]  # type: ignore[attr-defined]
