"""Integrity round 2 (issue 27), the engine's part: nothing lost, nothing crashes.

A torn item log, an empty shard, edited shards, two runs in one folder, a suspended
process and a full disk, each through a real run (the toy suite as a process where the
case is about a process, the CLI where it is about the CLI)."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaia_eval.core import results_io, runloop
from gaia_eval.core.errors import DiskFullError, InfrastructureError, NotComparableError
from gaia_eval.core.heartbeat import Heartbeat
from gaia_eval.core.merge import merge
from gaia_eval.core.results import load_envelope
from gaia_eval.core.runloop import RunRequest, Shard, read_item_log

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _own_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _items(tmp_path: Path, rows: dict[str, dict[str, object]]) -> Path:
    path = tmp_path / "items.json"
    path.write_text(json.dumps(rows))
    return path


def _run(items: Path, out: Path | None, **kw: object) -> runloop.RunOutcome:
    req = RunRequest(command="test", argv=["toy"], out=out, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items), req)


def _toy(items: Path, *flags: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """The toy suite as a process, through the CLI's run flags (core.launch.run_suite)."""
    path = str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return subprocess.Popen(
        [sys.executable, str(HERE / "engine_toy_process.py"), str(items), *flags],
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out + err


def _wait_for_items(out: Path, n: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(read_item_log(out / "items.jsonl")) >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} items logged in {out}")


def _stopped_run(
    tmp_path: Path, item: str, do: str
) -> tuple[dict[str, dict[str, object]], Path, Path, str]:
    """A toy run of four items that `item` (doing `do`) stopped with exit 3: the rows, the
    items file, the run folder and what the process said."""
    rows: dict[str, dict[str, object]] = {f"q{i}": {"value": i / 10} for i in range(4)}
    rows[item]["do"] = do
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    code, text = _finish(_toy(items, "--out", str(out)))
    assert code == 3, text
    return rows, items, out, text


# ---- 13: a torn last line ---------------------------------------------------------------


def test_resume_drops_a_torn_last_line_and_never_appends_to_it(tmp_path: Path) -> None:
    rows, items, out, _ = _stopped_run(tmp_path, "q3", "infra")
    # kill -9 in the middle of a write leaves half a record with no newline
    log = out / "items.jsonl"
    log.write_bytes(log.read_bytes() + b'{"id": "q9", "status": "o')
    rows["q3"]["do"] = "ok"
    items.write_text(json.dumps(rows))
    code, text = _finish(_toy(items, "--resume", str(out)))
    assert code == 0, text
    assert "its last line was cut off" in text
    # every line of the log is a whole record: the next reader (another resume, a merge)
    # never meets "the log is damaged"
    for line in log.read_bytes().splitlines():
        json.loads(line)
    assert {r.id for r in read_item_log(log)} == set(rows)
    code, text = _finish(_toy(items, "--resume", str(out)))
    assert code == 0, text


# ---- 14: an empty shard ---------------------------------------------------------------------


def _empty_shard(ids: list[str]) -> Shard:
    for count in range(2, 8):
        for index in range(1, count + 1):
            shard = Shard(index, count)
            if not any(shard.holds(i) for i in ids):
                return shard
    raise AssertionError("no empty shard for these ids")


def test_an_empty_shard_is_a_complete_run_that_merges(tmp_path: Path) -> None:
    rows = {f"q{i}": {"value": i / 10} for i in range(5)}
    items = _items(tmp_path, rows)
    empty = _empty_shard(list(rows))
    code, text = _finish(_toy(items, "--shard", str(empty), "--out", str(tmp_path / "empty")))
    assert code == 0, text
    env = load_envelope(tmp_path / "empty")
    assert env.header.complete and env.header.item_ids == [] and env.header.shard == str(empty)
    folders = []
    for index in range(1, empty.count + 1):
        folder = tmp_path / f"s{index}"
        if index == empty.index:
            folder = tmp_path / "empty"
        else:
            _run(items, folder, shard=Shard(index, empty.count))
        folders.append(folder)
    merged, _, _ = merge(folders, tmp_path / "merged")
    whole = _run(items, tmp_path / "whole")
    assert merged.header.complete
    assert merged.summary == whole.envelope.summary


def test_an_empty_item_set_without_a_shard_is_still_refused(tmp_path: Path) -> None:
    from gaia_eval.core.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="nothing to run"):
        _run(_items(tmp_path, {}), tmp_path / "run")


# ---- 15: edited shards ----------------------------------------------------------------------


def _shards(tmp_path: Path) -> list[Path]:
    items = _items(tmp_path, {f"q{i:02d}": {"value": i / 10} for i in range(10)})
    folders = [tmp_path / "s1", tmp_path / "s2"]
    _run(items, folders[0], shard=Shard(1, 2))
    _run(items, folders[1], shard=Shard(2, 2))
    return folders


def _edit(folder: Path, change: object) -> None:
    path = folder / "results.json"
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))


def test_merge_refuses_an_item_the_suite_does_not_define(tmp_path: Path) -> None:
    folders = _shards(tmp_path)

    def add_item(data: dict[str, object]) -> None:
        items = data["items"]
        assert isinstance(items, list)
        items.append({**items[0], "id": "q99-planted"})

    _edit(folders[0], add_item)
    with pytest.raises(NotComparableError, match="'q99-planted'"):
        merge(folders, tmp_path / "merged")


def test_merge_refuses_an_item_listed_in_a_shard_it_does_not_belong_to(tmp_path: Path) -> None:
    folders = _shards(tmp_path)
    other = json.loads((folders[1] / "results.json").read_text())["header"]["item_ids"][0]

    def claim(data: dict[str, object]) -> None:
        header = data["header"]
        assert isinstance(header, dict)
        header["item_ids"].append(other)

    _edit(folders[0], claim)
    with pytest.raises(NotComparableError, match=rf"shard 1/2 lists .*'{other}'"):
        merge(folders, tmp_path / "merged")


def test_merge_refuses_a_zeroed_definition_digest(tmp_path: Path) -> None:
    folders = _shards(tmp_path)
    for folder in folders:  # zeroed in both, so they still agree with each other
        _edit(folder, lambda d: d["header"].update(definition_digest="0" * 64))
    with pytest.raises(NotComparableError, match=r"header\.definition_digest"):
        merge(folders, tmp_path / "merged")


def test_merge_refuses_shards_that_lost_items_in_all(tmp_path: Path) -> None:
    folders = _shards(tmp_path)

    def drop(data: dict[str, object]) -> None:
        header, items = data["header"], data["items"]
        assert isinstance(header, dict) and isinstance(items, list)
        gone = header["item_ids"].pop()
        data["items"] = [r for r in items if r["id"] != gone]

    _edit(folders[0], drop)
    with pytest.raises(NotComparableError, match=r"header\.items_total"):
        merge(folders, tmp_path / "merged")


# ---- 26: one folder, two runs; --resume of a missing folder ---------------------------------


def test_two_resumes_of_one_folder_never_both_run_lock_lifted(tmp_path: Path) -> None:
    # The first run holds its second item until the resume has been refused: a fixed sleep
    # raced the resume's start-up, which takes seconds on a loaded machine.
    gate = tmp_path / "release"
    rows: dict[str, dict[str, object]] = {f"q{i}": {"value": i / 10} for i in range(6)}
    rows["q1"] |= {"do": "sleep", "seconds": 60, "until": str(gate)}
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    nolock = {"GAIA_EVAL_NO_LOCK": "1"}
    first = _toy(items, "--out", str(out), env=nolock)
    try:
        _wait_for_items(out, 1)
        code, text = _finish(_toy(items, "--resume", str(out), env=nolock))
        assert code == 4, text
        assert "another gaia-eval run is writing to this folder" in text
    finally:
        gate.touch()
        code, text = _finish(first)
    assert code == 0, text
    lines = (out / "items.jsonl").read_bytes().splitlines()
    assert len(lines) == len(rows)  # each item ran once


def test_resume_of_a_missing_folder_says_so_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gaia_eval.cli.main import main

    missing = tmp_path / "nonexistent"
    assert main(["retrieval", "--resume", str(missing)]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" not in err
    assert f"--resume {missing}: no results.json there" in err
    assert not missing.exists()


# ---- 23: the heartbeat ----------------------------------------------------------------------


def test_heartbeat_sees_a_gap_with_an_injected_clock() -> None:
    now = [100.0]
    beat = Heartbeat(max_gap_s=60, clock=lambda: now[0])
    now[0] += 5
    beat.beat()
    assert beat.suspended() is None
    now[0] += 61  # no beat for 61 s: the process did not run
    assert beat.suspended() == pytest.approx(61)
    beat.beat()
    now[0] += 1
    assert beat.suspended() == pytest.approx(61)  # a gap once seen stays seen


def test_heartbeat_touches_the_lock_file(tmp_path: Path) -> None:
    lock = tmp_path / "eval.lock"
    lock.write_bytes(b"")
    os.utime(lock, (0, 0))
    beat = Heartbeat(lock, max_gap_s=0.6).start()
    try:
        deadline = time.monotonic() + 30
        while lock.stat().st_mtime == 0 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        beat.stop()
    assert lock.stat().st_mtime > 0


def test_a_suspended_run_stops_with_exit_3_and_resumes(tmp_path: Path) -> None:
    rows = {f"q{i}": {"value": i / 10, "do": "sleep", "seconds": 0.3} for i in range(8)}
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    proc = _toy(items, "--out", str(out), env={"GAIA_EVAL_HEARTBEAT_GAP_S": "1.5"})
    _wait_for_items(out, 1)
    proc.send_signal(signal.SIGSTOP)  # what a sleeping laptop or Ctrl-Z does to a run
    time.sleep(3)
    proc.send_signal(signal.SIGCONT)
    code, text = _finish(proc)
    assert code == 3, text
    assert "the process did not run for" in text
    env = load_envelope(out)
    assert not env.header.complete
    assert any(r.status == "infra_error" for r in env.items)
    for v in rows.values():
        v["seconds"] = 0.0
    items.write_text(json.dumps(rows))
    done = _run(items, None, resume=out)
    assert done.envelope.header.complete and done.exit_code == 0


# ---- 17: a full disk ------------------------------------------------------------------------


def test_a_full_disk_in_an_item_stops_the_run_and_resume_retries_it(tmp_path: Path) -> None:
    rows, items, out, text = _stopped_run(tmp_path, "q1", "disk-full")
    assert "out of disk space" in text
    assert "crashed" not in load_envelope(out).header.model_dump_json()
    rec = load_envelope(out).records()["q1"]
    assert rec.status == "infra_error"
    rows["q1"]["do"] = "ok"
    items.write_text(json.dumps(rows))
    done = _run(items, None, resume=out)
    assert done.envelope.header.complete and done.envelope.records()["q1"].status == "ok"


def _full_for(names: set[str]) -> object:
    real = results_io.atomic_write_bytes

    def write(path: Path, data: bytes) -> None:
        if Path(path).name in names:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, data)

    return write


def test_a_full_disk_at_every_artifact_write_is_one_clear_exit_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _items(tmp_path, {f"q{i}": {"value": i / 10} for i in range(3)})
    monkeypatch.setattr(
        results_io, "atomic_write_bytes", _full_for({"results.json", "report.md", "report.html"})
    )
    with pytest.raises(DiskFullError, match="out of disk space") as info:
        _run(items, tmp_path / "run")
    assert f"--resume {tmp_path / 'run'}" in str(info.value)
    assert isinstance(info.value, InfrastructureError)


def test_a_full_disk_writing_a_transcript_is_an_infra_stop_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gaia_eval.cli.main import main

    monkeypatch.setattr(results_io, "atomic_write_bytes", _full_for({"transcript.json"}))
    out = tmp_path / "run"
    argv = ["tasks", "run", "--harness", "replay", "--replay", "reference", "--no-judge"]
    code = main([*argv, "--out", str(out)])
    text = capsys.readouterr()
    assert code == 3, text
    assert "out of disk space" in text.out + text.err
    assert "crashed in the system under test" not in text.out + text.err
    env = load_envelope(out)
    assert env.header.item_errors == 0 and env.header.infra_errors == 1
    monkeypatch.undo()
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))
    assert main(["tasks", "run", "--resume", str(out)]) in (0, 1)  # measured now
    assert load_envelope(out).header.infra_errors == 0


def test_a_full_disk_in_a_rag_run_is_one_clear_exit_3_not_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_probed_cases import _dataset

    from gaia_eval.cli.main import main

    ds = _dataset(tmp_path)
    monkeypatch.setattr(
        results_io, "atomic_write_bytes", _full_for({"results.json", "report.md", "report.html"})
    )
    out = tmp_path / "run"
    argv = ["retrieval", "--component", "rag", "--dataset", str(ds), "--embedder", "hash"]
    code = main([*argv, "--no-hard-cases", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "out of disk space" in err and "internal error" not in err
    assert f"--resume {out}" in err


def test_a_log_line_nested_too_deeply_is_a_named_error_on_resume(tmp_path: Path) -> None:
    _, items, out, _ = _stopped_run(tmp_path, "q3", "infra")
    log = out / "items.jsonl"
    log.write_bytes(b'{"id": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n" + log.read_bytes())
    code, text = _finish(_toy(items, "--resume", str(out)))
    assert code == 2, text
    assert "line 1" in text and "nested too deeply" in text and "Traceback" not in text
