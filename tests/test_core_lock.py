"""The machine-wide eval lock, between real processes."""

from __future__ import annotations

import argparse
import ast
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gaia_eval.core import lock, lock_holder
from gaia_eval.core.errors import EXIT_LOCKED, LockHeldError

# Serial (`nox -s tests`): holders are real processes killed with signals, and the waiting
# tests bound how long a wait took; the lock folder is per test, so they share nothing else.
pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"),
    pytest.mark.serial,
]

HOLDER = textwrap.dedent(
    """
    import sys, time
    from gaia_eval.core.lock import eval_lock
    with eval_lock("gaia-eval retrieval --component rag --suite pr"):
        print("locked", flush=True)
        time.sleep(120)
    """
)


@pytest.fixture(autouse=True)
def _lock_enforced(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's GAIA_EVAL_NO_LOCK=1 must not turn these tests into no-ops.
    monkeypatch.delenv("GAIA_EVAL_NO_LOCK", raising=False)


@pytest.fixture
def holder() -> Iterator[subprocess.Popen[str]]:
    """A child process that holds the lock until killed (GAIA_EVAL_LOCK_DIR is per test)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def test_second_eval_refuses_naming_the_holder(holder: subprocess.Popen[str]) -> None:
    with pytest.raises(LockHeldError) as info, lock.eval_lock("gaia-eval bench"):
        pytest.fail("entered a lock another process holds")
    msg = str(info.value)
    assert f"pid {holder.pid}" in msg
    assert "`gaia-eval retrieval --component rag --suite pr`" in msg
    assert "GAIA_EVAL_NO_LOCK=1" in msg
    record = lock.read_holder()
    assert record is not None
    assert record["pid"] == holder.pid


def test_second_cli_eval_exits_with_the_lock_code(holder: subprocess.Popen[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "bench", "--quick", "--only", "metrics"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == EXIT_LOCKED == 4
    assert f"gaia-eval: error: another eval holds the machine-wide eval lock (pid {holder.pid}" in (
        proc.stderr
    )
    assert proc.stdout == ""


def test_lock_is_released_when_the_holder_is_killed(holder: subprocess.Popen[str]) -> None:
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    # The dead holder could not remove its record; the kernel released the lock anyway.
    assert lock.read_holder() is not None
    with lock.eval_lock("after the kill"):
        record = lock.read_holder()
        assert record is not None
        assert record["pid"] == os.getpid()
        assert record["command"] == "after the kill"
    assert lock.read_holder() is None


def test_no_lock_env_bypasses(
    holder: subprocess.Popen[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_NO_LOCK", "1")
    entered = False
    with lock.eval_lock("side by side"):
        entered = True
    assert entered
    record = lock.read_holder()
    assert record is not None
    assert record["pid"] == holder.pid  # the bypass left the holder's record alone


def test_lock_is_reentrant_after_release_in_one_process(tmp_path: Path) -> None:
    for n in range(2):
        with lock.eval_lock(f"run {n}", directory=tmp_path):
            data = json.loads((tmp_path / "holder.json").read_text())
            assert data["command"] == f"run {n}"
            assert data["started"]
    assert not (tmp_path / "holder.json").exists()


def test_lock_dir_defaults_per_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GAIA_EVAL_LOCK_DIR")
    monkeypatch.setenv("USER", "alice")
    assert lock.lock_dir().name == "gaia-eval-alice"


def test_refusal_names_only_a_live_holder(holder: subprocess.Popen[str]) -> None:
    # A kill -9 leaves the record of a dead run behind; the live holder (who has not
    # written its own record yet) must not be reported as that dead process.
    code = "import os; print(os.getpid())"
    dead = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    record = {"pid": int(dead.stdout), "command": "gaia-eval killed", "started": "earlier"}
    (lock.lock_dir() / "holder.json").write_text(json.dumps(record))
    with pytest.raises(LockHeldError) as info, lock.eval_lock("gaia-eval bench"):
        pytest.fail("entered a lock another process holds")
    assert "another process" in str(info.value)
    assert "gaia-eval killed" not in str(info.value)


# ---- waiting for the lock, and stale holder records -------------------------------------

TIMED_HOLDER = textwrap.dedent(
    """
    import sys, time
    from gaia_eval.core.lock import eval_lock
    with eval_lock("gaia-eval tasks run --suite core"):
        print("locked", flush=True)
        time.sleep(float(sys.argv[1]))
    """
)

# Takes the kernel lock without writing a holder record (like a holder killed between the
# two steps, or one in another pid namespace).
BARE_HOLDER = textwrap.dedent(
    """
    import fcntl, os, sys, time
    fh = open(os.path.join(os.environ["GAIA_EVAL_LOCK_DIR"], "eval.lock"), "ab")
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(120)
    """
)


@contextmanager
def _started(script: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """A child that prints "locked" once it holds the lock; killed and reaped after."""
    proc = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return int(proc.stdout)


def test_waiting_run_takes_the_lock_once_the_holder_finishes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with _started(TIMED_HOLDER, "1.5") as proc:
        start = time.monotonic()
        with lock.eval_lock("gaia-eval bench", wait=60):
            waited = time.monotonic() - start
            record = lock.read_holder()
            assert record is not None
            assert record["pid"] == os.getpid()
        assert proc.wait(timeout=30) == 0
    assert 0.5 < waited < 30
    err = capsys.readouterr().err
    assert "waiting up to 60 s for the machine-wide eval lock" in err
    assert f"pid {proc.pid} running `gaia-eval tasks run --suite core`" in err


def test_waiting_gives_up_after_the_limit_naming_the_holder(
    holder: subprocess.Popen[str],
) -> None:
    start = time.monotonic()
    with lock.waiting(1.0), pytest.raises(LockHeldError) as info, lock.eval_lock("x"):
        pytest.fail("entered a held lock")
    assert 0.9 < time.monotonic() - start < 20
    msg = str(info.value)
    assert "still holds the machine-wide eval lock after 1 s" in msg
    assert f"pid {holder.pid} running `gaia-eval retrieval --component rag --suite pr`" in msg


def test_a_stale_record_is_not_named_as_the_holder(tmp_path: Path) -> None:
    dead = _dead_pid()
    folder = lock.lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "holder.json").write_text(
        json.dumps({"pid": dead, "command": "gaia-eval old run", "started": "yesterday"})
    )
    assert lock.read_holder() is not None
    assert lock_holder.live_holder() is None  # what the nox sessions check before installing
    with _started(BARE_HOLDER), pytest.raises(LockHeldError) as info, lock.eval_lock("x"):
        pytest.fail("entered a held lock")
    msg = str(info.value)
    assert "gaia-eval old run" not in msg
    assert f"names pid {dead}, gone" in msg
    # Free again: the stale record does not block, and is replaced by the new holder's.
    with lock.eval_lock("fresh"):
        record = lock_holder.live_holder()
        assert record is not None
        assert record["command"] == "fresh"


def test_a_reused_pid_is_not_the_holder() -> None:
    me = lock_holder.holder_record("me", "now")
    assert lock_holder.holder_is_live(me)
    if me["pid_start"] is None:
        pytest.skip("no /proc here: start times are unknown, the pid alone decides")
    assert not lock_holder.holder_is_live({**me, "pid_start": "1"})
    assert not lock_holder.holder_is_live({**me, "pid": _dead_pid()})
    assert not lock_holder.holder_is_live({"pid": "12"})


def test_lock_holder_loads_by_path_without_gaia_eval(tmp_path: Path) -> None:
    """The nox sessions load the file by path before the package is installed."""
    path = Path(lock_holder.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported
    code = textwrap.dedent(
        f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("lh", {str(path)!r})
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        assert not any(m.startswith("gaia_eval") for m in sys.modules), sorted(sys.modules)
        print(mod.describe(mod.live_holder()))
        """
    )
    proc = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "another process (no live holder record)"


def test_cli_wait_lock_flag(holder: subprocess.Popen[str]) -> None:
    from gaia_eval.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["bench", "--wait-lock"]).wait_lock == float("inf")
    assert parser.parse_args(["bench", "--wait-lock=2.5"]).wait_lock == 2.5
    assert parser.parse_args(["bench"]).wait_lock is None
    bad = subprocess.run([sys.executable, "-m", "gaia_eval", "bench", "--wait-lock=-1"],
                         capture_output=True, text=True, check=False, timeout=60)  # fmt: skip
    assert bad.returncode == 2
    assert "--wait-lock: must be >= 0 seconds" in bad.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "bench", "--quick", "--only", "metrics",
         "--wait-lock=1"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == EXIT_LOCKED
    assert "gaia-eval: waiting up to 1 s for the machine-wide eval lock" in proc.stderr
    assert f"after 1 s (pid {holder.pid} running" in proc.stderr


def test_engine_runs_wait_for_the_lock_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shared run flags carry --wait-lock to the engine's run loop."""
    sys.path.insert(0, str(Path(__file__).parent))
    from engine_toy import ToySuite

    from gaia_eval.core import runloop
    from gaia_eval.core.launch import request
    from gaia_eval.core.options import RUN

    items = tmp_path / "items.json"
    items.write_text(json.dumps({"q1": {"value": 0.5}}))
    parser = argparse.ArgumentParser()
    RUN.add_to(parser)
    with _started(TIMED_HOLDER, "1.5") as proc:
        refused = request(parser.parse_args(["--out", str(tmp_path / "a")]), ["toy"])
        assert isinstance(refused, runloop.RunRequest)
        with pytest.raises(LockHeldError):
            runloop.run(ToySuite(items, knob="a"), refused)
        args = parser.parse_args(["--out", str(tmp_path / "b"), "--wait-lock=60"])
        req = request(args, ["toy"])
        assert isinstance(req, runloop.RunRequest)
        assert req.wait_lock == 60
        assert runloop.run(ToySuite(items, knob="a"), req).exit_code == 0
    assert f"held by pid {proc.pid}" in capsys.readouterr().err
