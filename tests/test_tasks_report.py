"""The tasks report: report.md pinned by a golden file (regenerate with
GAIA_EVAL_UPDATE_GOLDEN=1), and report.html self-contained with its chart."""

from __future__ import annotations

import os
from pathlib import Path

from gaia_eval.agents.models import CheckRecord
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import Envelope, ItemRecord
from gaia_eval.core.runmeta import Machine
from gaia_eval.tasks.gate import gate_cards, propose
from gaia_eval.tasks.models import Judgement, Scorecard, TaskResult
from gaia_eval.tasks.results import cards_envelope, scorecards
from gaia_eval.tasks.suite import TasksSuite

GOLDEN = Path(__file__).parent / "golden" / "tasks_report.md"


def _grade(q: int, fab: int = 5, **kw: object) -> Judgement:
    return Judgement(
        instruction_compliance=q, work_quality=q, reasoning=q, fabrication_free=fab, **kw
    )


def _envelope() -> Envelope:
    tasks = [
        TaskResult(
            id="02-bugfix", check="mechanical", passed=True, verified=True,
            why="all checks passed", steps=6, tool_calls=5, input_tokens=4000,
            output_tokens=300, wall_seconds=41.5, judge=_grade(4),
            checks=[CheckRecord(kind="tests_pass", passed=True, detail="4 passed")],
        ),
        TaskResult(
            id="b5-flaky", check="mechanical", passed=False, verified=False,
            why="probe: AssertionError | cold cache", steps=9, tool_calls=8,
            input_tokens=9000, output_tokens=700, wall_seconds=77.0, judge=_grade(3, fab=2),
        ),
        TaskResult(
            id="21-qa", check="stated", passed=True, why="judge: correct", steps=2,
            tool_calls=1, input_tokens=1500, output_tokens=200, wall_seconds=9.25,
            judge=_grade(5, answers_correctly=True),
        ),
    ]  # fmt: skip
    card = Scorecard(
        suite="core", model="openai:http://127.0.0.1:8000/v1#qwen3", harness="builtin",
        run_timeout_s=1800, tasks=tasks, judge_model="anthropic:claude-j",
        task_ids=["02-bugfix", "b5-flaky", "21-qa", "b5-hang"], revision="a" * 40,
        meta={"package_version": "0.1.0", "started": "2026-12-01T08:00:00+00:00",
              "duration_s": 130.0, "machine": Machine(cpu="Test CPU", logical_cpus=2,
              ram_gb=8.0, os="Linux 6", python="CPython 3.11").model_dump()},
    )  # fmt: skip
    env = cards_envelope([card])
    # The fourth task hit an outage: unmeasured, named first.
    env.items.append(
        ItemRecord(
            id="b5-hang",
            status="infra_error",
            error="the model backend was unavailable: http://127.0.0.1:8000/v1/chat/completions "
            "unreachable: ConnectError: [Errno 111] Connection refused",
            ran_at="2026-12-01T08:02:10+00:00",
        )
    )
    env.header.infra_errors, env.header.complete = 1, False
    env.summary = TasksSuite.summarise(env).model_dump(mode="json", by_alias=True)
    exp = propose([card.model_copy(update={"task_ids": card.task_ids[:3]})])
    env.verdict = gate_cards(scorecards(env), exp, label="core-expectations.json")
    return env


def test_report_matches_golden_file() -> None:
    text = render_markdown(TasksSuite, _envelope())
    if os.environ.get("GAIA_EVAL_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_report_order_and_html() -> None:
    env = _envelope()
    md = render_markdown(TasksSuite, env)
    # Unmeasured first, then the verdict (the unmeasured task misses "measured"), then numbers.
    assert (
        md.index("## Infrastructure and unmeasured") < md.index("## Gate") < md.index("## Headline")
    )
    assert "`b5-hang`: the model backend was unavailable" in md
    assert "| `b5-hang` | NOT MEASURED |" in md
    assert "measured is 3, outside every task measured (= 4)" in md
    html = render_html(TasksSuite, env)
    assert "<script" not in html and html.count("<svg") == 1
    assert "agent wall seconds per task" in html


def test_report_html_opens_without_console_errors(tmp_path: Path) -> None:
    from test_core_report_html import console_messages

    page = tmp_path / "report.html"
    page.write_text(render_html(TasksSuite, _envelope()), encoding="utf-8")
    assert console_messages(page) == []
