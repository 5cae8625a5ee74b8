"""The tasks suite on the engine: a killed replay run resumed equals an uninterrupted one,
shards merged equal the unsharded run, the run-vs-run gate, and the checks a run makes
before its first task (dependencies, credentials, a relative --work-root)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tasks_run_helpers import card, envelope, private_lock

from gaia_eval.cli.main import main
from gaia_eval.core.gate import compare
from gaia_eval.core.results import Envelope
from gaia_eval.core.runloop import read_item_log
from gaia_eval.tasks.suite import TasksSuite

# 21-qa falls in shard 2/2, 02-bugfix in 1/2 (a stable hash of the ids).
TASKS = "21-qa,02-bugfix"
REPLAY = ["--harness", "replay", "--replay", "reference", "--no-judge"]


def _argv(out: Path, work: Path, *extra: str) -> list[str]:
    return [
        "tasks", "run", "--tasks", TASKS, *REPLAY,
        "--out", str(out), "--work-root", str(work), *extra,
    ]  # fmt: skip


def _norm(env: Envelope) -> dict[str, Any]:
    """Per-task results without what a clock decides (wall time, pytest's "in 0.12s")."""
    import re

    out = {}
    for rec in env.items:
        res = dict(rec.result or {}, wall_seconds=None)
        res["checks"] = [
            dict(c, detail=re.sub(r" in [\d.]+s", "", c["detail"])) for c in res["checks"]
        ]
        out[rec.id] = (rec.status, res)
    return out


def _same_summary(a: Envelope, b: Envelope) -> None:
    sa, sb = dict(a.summary), dict(b.summary)
    for s in (sa, sb):
        s["counts"] = dict(s["counts"], wall_seconds=None)
        s["task_ids"] = sorted(s["task_ids"])
        s["cost"] = dict(s["cost"], note=None)
    assert sa == sb


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One uninterrupted run of the three tasks."""
    base = tmp_path_factory.mktemp("straight")
    with private_lock(tmp_path_factory):
        assert main(_argv(base / "run", base / "w")) == 0
    return base / "run"


def test_straight_run_results(straight: Path) -> None:
    results = {t.id: (t.passed, t.verified) for t in card(envelope(straight)).tasks}
    assert results == {"21-qa": (None, False), "02-bugfix": (True, True)}
    env = envelope(straight)
    assert env.header.complete and env.header.filtered
    assert env.header.items_total == 7  # the core suite; this run asked for two of them
    # The run folder: the envelope, the item log, both reports, a folder per task.
    names = sorted(p.name for p in straight.iterdir())
    assert names == [
        "02-bugfix",
        "21-qa",
        "items.jsonl",
        "report.html",
        "report.md",
        "results.json",
    ]
    data = json.loads((straight / "results.json").read_text())
    assert data["kind"] == "gaia-eval/results" and data["summary"]["counts"]["tasks"] == 2


def test_killed_replay_run_resumes_to_the_uninterrupted_result(
    tmp_path: Path, straight: Path
) -> None:
    out, work = tmp_path / "run", tmp_path / "w"
    with (tmp_path / "stderr.txt").open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gaia_eval", *_argv(out, work)],
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        deadline = time.monotonic() + 90
        while not read_item_log(out / "items.jsonl") and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    done = read_item_log(out / "items.jsonl")
    assert [r.id for r in done] == ["21-qa"], (tmp_path / "stderr.txt").read_text()
    first = {r.id: r.ran_at for r in done}
    # `--resume DIR` alone re-runs the recorded command line for the rest.
    assert main(["tasks", "run", "--resume", str(out)]) == 0
    resumed, whole = envelope(out), envelope(straight)
    assert resumed.header.complete and [r.id for r in resumed.items] == [r.id for r in whole.items]
    assert _norm(resumed) == _norm(whole)
    _same_summary(resumed, whole)
    assert all(resumed.records()[i].ran_at == t for i, t in first.items())  # kept, not re-run
    assert compare(TasksSuite, whole, resumed, tolerance=0).passed
    assert (out / "report.md").is_file() and (out / "report.html").is_file()


def test_shards_merged_equal_the_unsharded_run(
    tmp_path: Path, straight: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for i in (1, 2):
        assert main(_argv(tmp_path / f"s{i}", tmp_path / "w", "--shard", f"{i}/2")) == 0
    assert [r.id for r in envelope(tmp_path / "s1").items] == ["02-bugfix"]
    assert [r.id for r in envelope(tmp_path / "s2").items] == ["21-qa"]
    gate = ["--gate", str(straight), "--tolerance", "0"]
    shards = [str(tmp_path / "s1"), str(tmp_path / "s2")]
    assert main(["merge", *shards, "--out", str(tmp_path / "m"), *gate]) == 0
    merged, whole = envelope(tmp_path / "m"), envelope(straight)
    assert merged.header.complete and merged.header.shards == ["1/2", "2/2"]
    assert merged.verdict is not None and merged.verdict.passed
    assert _norm(merged) == _norm(whole)
    _same_summary(merged, whole)
    assert compare(TasksSuite, merged, whole, tolerance=0).passed
    assert "gate passed" in capsys.readouterr().out


def test_run_vs_run_gate_fails_a_coding_task_that_stopped_passing(straight: Path) -> None:
    whole = envelope(straight)
    worse = whole.model_copy(deep=True)
    rec = worse.records()["02-bugfix"]
    assert rec.result is not None
    rec.result.update(passed=False, why="probe: ValueError")
    worse.summary = TasksSuite.summarise(worse).model_dump(mode="json", by_alias=True)
    verdict = compare(TasksSuite, whole, worse)
    assert not verdict.passed
    assert "task 02-bugfix: passed passed in the baseline, fails now" in verdict.failures
    # passed dropped by one: within the one-task headroom, so only the check fails
    assert [m.name for m in verdict.metrics if not m.passed] == []
    assert compare(TasksSuite, worse, whole).passed  # fail -> pass is a note, not a failure


def test_relative_work_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The agent child runs in the task's project folder; a relative --work-root used to
    # point its progress record somewhere else, so every task read back an empty record.
    monkeypatch.chdir(tmp_path)
    argv = ["tasks", "run", "--tasks", "21-qa", *REPLAY, "--out", "run", "--work-root", "w"]
    assert main(argv) == 0
    (res,) = card(envelope(tmp_path / "run")).tasks
    assert res.tool_calls == 1 and res.error is None
    transcript = json.loads((tmp_path / "run" / "21-qa" / "transcript.json").read_text())
    assert transcript["outcome"]["answer"].startswith("dates.py has three duplicated parsers")
    assert os.listdir(tmp_path / "w") == []


def test_everything_missing_is_named_before_the_first_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    if importlib.util.find_spec("anthropic") is None:  # (importing it costs seconds)
        pytest.skip("the anthropic SDK is not installed")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("GAIA_EVAL_CLAUDE_BIN", str(tmp_path / "no-such-claude"))
    argv = ["tasks", "run", "--harness", "claude-code", "--model", "claude-code:opus-x"]
    rc = main([*argv, "--judge-model", "anthropic:claude-x", "--out", str(tmp_path / "run")])
    assert rc == 2
    err = capsys.readouterr().err
    assert "the run cannot start; missing:" in err
    assert "no-such-claude" in err and "--harness claude-code" in err
    assert "ANTHROPIC_API_KEY" in err and "anthropic:claude-x" in err
    assert not (tmp_path / "run").exists()


def test_missing_judge_sdk_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "anthropic" else real(n, *a)
    )
    argv = ["tasks", "run", *REPLAY[:-1], "--judge-model", "anthropic:claude-x"]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    assert "'anthropic>=0.30' (the [anthropic] extra)" in capsys.readouterr().err
    assert main(["tasks", "calibrate", "--judge-model", "anthropic:claude-x"]) == 2
    assert "'anthropic>=0.30' (the [anthropic] extra)" in capsys.readouterr().err
