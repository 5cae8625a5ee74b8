"""The machine-wide eval lock, between real processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from gaia_eval.core import lock
from gaia_eval.core.errors import EXIT_LOCKED, LockHeldError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

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
