"""The eval lock's heartbeat: notices that the run was suspended.

A machine that slept, or a process stopped with SIGSTOP (Ctrl-Z, a debugger, a frozen
VM), makes every timing measured across the pause wrong: the item in flight reads as many
seconds slower. A thread beats every few seconds (touching the lock file, so another
process can see the holder is alive); a gap between beats, or since the last beat, over
`max_gap_s` (60 s, or $GAIA_EVAL_HEARTBEAT_GAP_S) means the process did not run for that
long. The run loop asks `suspended()` after every item and stops the run (exit 3,
resumable) with the item in flight left unmeasured.

The clock is CLOCK_BOOTTIME where the platform has it (it counts a suspended machine,
which CLOCK_MONOTONIC does not), else the wall clock.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_GAP_S = 60.0
GAP_ENV = "GAIA_EVAL_HEARTBEAT_GAP_S"


def _clock() -> float:
    boottime = getattr(time, "CLOCK_BOOTTIME", None)
    if boottime is not None:
        return time.clock_gettime(boottime)
    return time.time()


def max_gap_from_env() -> float:
    """The longest gap tolerated: $GAIA_EVAL_HEARTBEAT_GAP_S when it is a positive number."""
    raw = os.environ.get(GAP_ENV)
    if raw is None:
        return DEFAULT_GAP_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        from gaia_eval.core.errors import InvalidInputError

        msg = f"${GAP_ENV}={raw!r}: expected a positive number of seconds"
        raise InvalidInputError(msg)
    return value


class Heartbeat:
    """A daemon thread beating every `max_gap_s / 12` (5 s for the default 60 s)."""

    def __init__(
        self,
        touch: Path | None = None,
        *,
        max_gap_s: float = DEFAULT_GAP_S,
        clock: Callable[[], float] = _clock,
    ) -> None:
        self.touch = touch
        self.max_gap_s = max_gap_s
        self.every_s = max_gap_s / 12
        self.clock = clock
        self.last = clock()
        self.worst = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gaia-eval-heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def beat(self) -> None:
        now = self.clock()
        self.worst = max(self.worst, now - self.last)
        self.last = now
        if self.touch is not None:
            # The lock file's time is a note for others; never stop the run for it.
            with contextlib.suppress(OSError):
                os.utime(self.touch)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.beat()

    def suspended(self) -> float | None:
        """The longest pause seen so far, in seconds, when it is over the bound; else None."""
        gap = max(self.worst, self.clock() - self.last)
        return gap if gap > self.max_gap_s else None
