"""The machine-wide eval lock.

Two evals on one machine share CPUs and model servers, so both runs' timings and scores
would be wrong. The lock is an OS file lock (flock / msvcrt), which the kernel releases
when the holder dies, plus a holder file {pid, command, started} so a refused or waiting
run can say who holds it (`lock_holder`, which the nox sessions also read before they
install). GAIA_EVAL_NO_LOCK=1 bypasses it, for runs on separate backends. While held, a
heartbeat thread touches the lock file and notices a suspended process (core/heartbeat.py).

By default a held lock is refused at once (exit 4). `--wait-lock[=SECONDS]` on the suite
commands (`waiting()` here) waits for it instead, saying who holds it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO

from gaia_eval.core import lock_holder
from gaia_eval.core.errors import LockHeldError
from gaia_eval.core.heartbeat import Heartbeat, max_gap_from_env

lock_dir = lock_holder.lock_dir
read_holder = lock_holder.read_holder

POLL_S = 0.5
"""How often a waiting run retries the lock."""

_WAIT: ContextVar[float] = ContextVar("gaia_eval_lock_wait", default=0.0)


def _try_lock(fh: IO[bytes]) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder_phrase(folder: Path) -> str:
    holder = read_holder(folder)
    if holder is None:
        return "another process"
    if not lock_holder.holder_is_live(holder):
        # The record outlived a killed holder; whoever holds the lock now has not
        # written its own record yet (or runs in another pid namespace).
        return f"another process (the record in {folder} names pid {holder.get('pid')}, gone)"
    return lock_holder.describe(holder)


def _seconds(wait: float) -> str:
    return "until it is free" if math.isinf(wait) else f"up to {wait:g} s"


def _acquire(fh: IO[bytes], folder: Path, wait: float) -> None:
    if _try_lock(fh):
        return
    if wait <= 0:
        msg = (
            f"another eval holds the machine-wide eval lock ({_holder_phrase(folder)}); wait "
            "for it to finish (--wait-lock[=SECONDS] waits for you), or set "
            "GAIA_EVAL_NO_LOCK=1 if the two runs use separate backends"
        )
        raise LockHeldError(msg)
    deadline = time.monotonic() + wait
    said = ""
    while True:
        who = _holder_phrase(folder)
        if who != said:
            print(
                f"gaia-eval: waiting {_seconds(wait)} for the machine-wide eval lock, held by "
                f"{who} (lock folder {folder})",
                file=sys.stderr,
                flush=True,
            )
            said = who
        time.sleep(min(POLL_S, max(0.0, deadline - time.monotonic())))
        if _try_lock(fh):
            return
        if time.monotonic() >= deadline:
            msg = (
                f"another eval still holds the machine-wide eval lock after {wait:g} s "
                f"({_holder_phrase(folder)}); wait longer (--wait-lock with more seconds, or "
                "no value to wait until it is free), or set GAIA_EVAL_NO_LOCK=1 if the two "
                "runs use separate backends"
            )
            raise LockHeldError(msg)


@contextmanager
def eval_lock(
    command: str, directory: Path | None = None, *, wait: float | None = None
) -> Iterator[Heartbeat]:
    """Hold the machine-wide eval lock for the body; yields the lock's heartbeat, which
    tells whether the process was suspended meanwhile (see core/heartbeat.py).

    A held lock raises LockHeldError naming the holder, or, with `wait` seconds (default:
    the innermost `waiting()`; math.inf waits until it is free), is waited for first.
    """
    gap = max_gap_from_env()
    if os.environ.get("GAIA_EVAL_NO_LOCK") == "1":
        # No lock, but the run is still timed: a suspension is noticed all the same.
        with _beating(Heartbeat(max_gap_s=gap)) as beat:
            yield beat
        return
    from gaia_eval.core.runmeta import now_iso  # pydantic: kept out of `--help`

    folder = directory or lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fh = (folder / lock_holder.LOCK_FILE).open("ab")
    try:
        _acquire(fh, folder, _WAIT.get() if wait is None else wait)
        holder_path = folder / lock_holder.HOLDER_FILE
        record = lock_holder.holder_record(command, now_iso())
        holder_path.write_text(json.dumps(record), encoding="utf-8")
        try:
            with _beating(Heartbeat(folder / lock_holder.LOCK_FILE, max_gap_s=gap)) as beat:
                yield beat
        finally:
            holder_path.unlink(missing_ok=True)
    finally:
        fh.close()  # closing the descriptor releases the lock


@contextmanager
def _beating(beat: Heartbeat) -> Iterator[Heartbeat]:
    beat.start()
    try:
        yield beat
    finally:
        beat.stop()


@contextmanager
def waiting(seconds: float | None) -> Iterator[None]:
    """Every eval_lock in the body waits this long for a held lock (None: refuse at once)."""
    token = _WAIT.set(0.0 if seconds is None else seconds)
    try:
        yield
    finally:
        _WAIT.reset(token)


def wait_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        msg = f"expected a number of seconds, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if not value >= 0:
        msg = f"must be >= 0 seconds, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value
