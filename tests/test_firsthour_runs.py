"""Runs that read right (issue 30): what a first-hour user reads at the end of a run, a
merge, a gate or a refused dataset says what happened, not something that looks like it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from engine_toy import ToySuite

from gaia_eval.core import runloop
from gaia_eval.core.errors import NotComparableError
from gaia_eval.core.merge import merge
from gaia_eval.core.progress import estimate_line
from gaia_eval.core.runloop import RunRequest
from gaia_eval.core.suite import Item


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _toy(tmp_path: Path, out: str, n: int = 4, **kw: object) -> runloop.RunOutcome:
    items = tmp_path / "items.json"
    items.write_text(json.dumps({f"q{i}": {"value": i / 10} for i in range(n)}))
    tier = str(kw.pop("tier", "t1"))
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / out, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items, tier=tier), req)


def test_merge_of_two_suites_names_the_suites_before_any_digest(tmp_path: Path) -> None:
    _toy(tmp_path, "a", tier="t1")
    _toy(tmp_path, "b", tier="t2")
    with pytest.raises(NotComparableError) as err:
        merge([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    text = str(err.value)
    assert text.startswith("cannot merge runs of different suites:")
    assert "toy --suite t2" in text and "toy --suite t1" in text
    assert "definition_digest" not in text


def _cli(*argv: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gaia_eval", *argv],
        capture_output=True, text=True, timeout=300, check=False, cwd=cwd,
        env={**os.environ, **env},
    )  # fmt: skip


def test_a_no_judge_run_says_not_judged_and_how_to_judge_it(tmp_path: Path) -> None:
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"21-qa": [{"answer": "x"}]}))
    out = tmp_path / "run"
    argv = ["tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "replay",
            "--replay", str(replay), "--work-root", str(tmp_path / "w"),
            "--out", str(out)]  # fmt: skip
    proc = _cli(*argv, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    hint = f"gaia-eval tasks judge {out} --judge-model SPEC"
    assert "passed: 0/1" not in proc.stdout
    assert "passed: 0, failed 0 (of 0 decided)" in proc.stdout
    assert f"not judged (1): judge later with `{hint}`" in proc.stdout
    for name in ("report.md", "report.html"):
        text = (out / name).read_text()
        assert "not judged (1)" in text and hint in text, name


def test_a_run_off_a_terminal_logs_plain_progress_lines(tmp_path: Path) -> None:
    """Under `| tee` or in CI (stderr a pipe), a run that takes more than a few seconds
    says how far it is, in plain appended lines."""
    here = Path(__file__).parent
    items = tmp_path / "items.json"
    items.write_text(json.dumps({f"q{i}": {"value": 0.5, "do": "sleep", "seconds": 0.7}
                                 for i in range(10)}))  # fmt: skip
    env = {"PYTHONPATH": str(here) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run(
        [sys.executable, str(here / "engine_toy_process.py"), str(items),
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, **env},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.startswith("toy t1: ")]
    assert "\r" not in proc.stderr and "\x1b[K" not in proc.stderr
    assert 2 <= len(lines) <= 6  # a few lines after the first 5 s, not one per item
    assert lines[-1].startswith("toy t1: 10/10 items (100%)")


class _Timed(ToySuite):
    def item_seconds(self, item: Item) -> float | None:
        return item.payload.get("estimate")  # type: ignore[no-any-return]


def test_a_long_run_says_how_long_before_its_first_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "items.json"
    items.write_text(json.dumps({f"q{i}": {"value": 0.5, "estimate": 45.0} for i in range(4)}))
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / "a")
    runloop.run(_Timed(items), req)
    err = capsys.readouterr().err
    assert "toy t1: 4 items at about 45 s each: expect about 3 min" in err
    # Unknown for one item, or short in all: nothing is claimed.
    items.write_text(json.dumps({"q0": {"value": 0.5, "estimate": 45.0}, "q1": {"value": 0.5}}))
    runloop.run(_Timed(items), RunRequest(command="test", argv=["toy"], out=tmp_path / "b"))
    items.write_text(json.dumps({"q0": {"value": 0.5, "estimate": 5.0}}))
    runloop.run(_Timed(items), RunRequest(command="test", argv=["toy"], out=tmp_path / "c"))
    assert "expect about" not in capsys.readouterr().err


def test_memory_full_on_the_local_model_declares_its_time() -> None:
    from gaia_eval.memory.suite import MemorySuite

    suite = MemorySuite("full", model="local", repeats=3)
    line = estimate_line("memory full", "scenario", [suite.item_seconds(i) for i in suite.items()])
    # 74 chat turns at 38 s, three times over.
    assert line is not None and "18 scenarios at about 8 min each: expect about 2 h 21 min" in line
    assert MemorySuite("pr").item_seconds(MemorySuite("pr").items()[0]) is None
    remote = MemorySuite("full", model="openai:http://127.0.0.1:9/v1#m")
    assert remote.item_seconds(remote.items()[0]) is None


def test_a_missing_git_mirror_is_refused_before_the_run(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-mirror"
    out = tmp_path / "out"
    proc = _cli("retrieval", "--component", "code", "--suite", "pr", "--git-mirror",
                str(missing), "--work-root", str(tmp_path / "w"), "--out", str(out),
                cwd=tmp_path, GAIA_EVAL_LOCK_DIR=str(tmp_path / "lock"))  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"--git-mirror {missing}: does not exist" in proc.stderr
    assert "gate FAILED" not in proc.stdout + proc.stderr and "missing now" not in proc.stdout
    assert not out.exists()  # nothing ran, nothing was written


class _Planned(BaseException):
    """Raised where the run loop has checked everything and would start the suite's set-up."""


def test_every_command_baselines_lists_runs_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each listed command parses, passes preflight, loads its baseline and is comparable
    with it (the run stops there, before any set-up); `tasks gate DIR --expect NAME`
    resolves NAME to expectations of the suite the listing says."""
    import shlex

    from gaia_eval.cli.main import main
    from gaia_eval.core import baselines

    def planned() -> None:
        raise _Planned

    assert main(["baselines"]) == 0
    rows = [line.split("  ") for line in capsys.readouterr().out.splitlines() if "  " in line]
    listed = {cells[0]: next(c for c in cells[1:] if c).strip() for cells in rows}
    assert len(listed) == len(baselines.available()) >= 10
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runloop, "clean_stale_temp", planned)
    for ref, command in listed.items():
        argv = shlex.split(command)
        assert argv[0] == "gaia-eval", command
        if argv[1:3] == ["tasks", "gate"]:
            name = argv[argv.index("--expect") + 1]
            exp = json.loads(baselines.resolve(name, "tasks").read_text())
            assert f"builtin:tasks/{name}" == ref and exp["suite"] in name, command
            continue
        with pytest.raises(_Planned):
            code = main([*argv[1:], "--out", str(tmp_path / ref.replace("/", "_"))])
            pytest.fail(f"{command}: exit {code}: {capsys.readouterr().err}")


def test_a_dataset_with_three_planted_problems_names_all_three_in_one_run(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("The quick brown fox jumps over the lazy dog by the river.\n")
    q = {"doc": "a", "question": "Who?", "answer": "fox", "answer_type": "exact"}
    ds = tmp_path / "ds.json"
    ds.write_text(json.dumps({
        "id": "t",
        "documents": [{"id": "a", "path": "a.txt"}, {"id": "b", "path": "missing.txt"}],
        "questions": [
            {**q, "id": "q1", "answer_type": None,
             "evidence": [{"quote": "The quick brown fox jumps"}]},
            {**q, "id": "q2", "evidence": [{"quote": "this sentence is not in the document"}]},
        ],
    }))  # fmt: skip
    proc = _cli("retrieval", "--component", "rag", "--dataset", str(ds), "--embedder", "hash",
                "--out", str(tmp_path / "o"), cwd=tmp_path,
                GAIA_EVAL_LOCK_DIR=str(tmp_path / "lock"))  # fmt: skip
    assert proc.returncode == 2
    err = proc.stderr
    assert f"{ds}: invalid dataset (3 problems):" in err
    assert "questions[0].answer_type: " in err and "(question 'q1')" in err
    assert "documents[1].path: file not found" in err and "(document 'b')" in err
    assert "questions[1].evidence[0].quote: question q2, document a: evidence quote" in err


def test_a_therock_run_offline_stops_before_anything_saying_so_once(tmp_path: Path) -> None:
    """The repository the tasks clone does not answer: exit 3 before the local model, the
    lock or any task, one line naming it (not a git error per task)."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/ROCm/TheRock"
    out = tmp_path / "run"
    proc = _cli("tasks", "run", "--suite", "therock", "--harness", "replay", "--replay",
                "reference", "--no-judge", "--therock-url", url, "--work-root",
                str(tmp_path / "w"), "--out", str(out), cwd=tmp_path,
                GAIA_EVAL_LOCK_DIR=str(tmp_path / "lock"))  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.count(f"nothing answers at http://127.0.0.1:{port}") == 1
    assert f"--suite therock (clones {url})" in proc.stderr and "nothing was run" in proc.stderr
    assert "git " not in proc.stderr and "when the backend is back" not in proc.stdout
    assert not out.exists()


def test_a_local_therock_url_or_a_filled_cache_needs_no_network(tmp_path: Path) -> None:
    from gaia_eval.tasks.clones import clone_endpoints

    task = type("T", (), {"id": "t", "therock": {"base": "a" * 40, "merge": "b" * 40},
                          "swebench": {}})()  # fmt: skip
    cfg = type("C", (), {"tasks": [task], "only": None, "suite": "therock", "judge_model": None,
                         "work_root": tmp_path, "git_mirror": None})()  # fmt: skip
    cfg.therock_url = str(tmp_path / "mirror")  # type: ignore[attr-defined]
    assert clone_endpoints(cfg) == []
    cfg.therock_url = "https://example.invalid/TheRock"  # type: ignore[attr-defined]
    [ep] = clone_endpoints(cfg)
    assert ep.url == "https://example.invalid" and "clones https://example.invalid" in ep.what
