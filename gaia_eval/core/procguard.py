"""What keeps a run's children in their place: they die with the run, and they cannot read
the run's own memory or environment.

`Lifeline`: a process group (an agent and everything it started) is killed when the run
that started it dies, also by `kill -9`. A parent-death signal reaches only a direct
child (the agent's shell, not the program it started), so a small watchdog holds the read
end of a pipe whose write end only the run holds: when the run dies the kernel closes it,
the watchdog reads end-of-file and kills the whole group. A run that ends the group itself
first says "done" and the watchdog leaves quietly.

`private_memory()`: the run becomes non-dumpable (Linux `prctl(PR_SET_DUMPABLE, 0)`), so
a process of the same user that is not its ancestor cannot open `/proc/<run>/environ`,
`/proc/<run>/mem` or attach a debugger: the credentials the run read from its start-up
environment stay in it. Its children are dumpable again after their exec.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

PR_SET_DUMPABLE = 4
_DONE = b"done"
# Reads until end-of-file; anything but "done" (the run died) kills the group.
_WATCHDOG = (
    "import os, signal, sys\n"
    "pg = int(sys.argv[1])\n"
    "data = sys.stdin.buffer.read()\n"
    "if not data.endswith(b'done'):\n"
    "    try:\n"
    "        os.killpg(pg, signal.SIGKILL)\n"
    "    except OSError:\n"
    "        pass\n"
)


class Lifeline:
    """Kills process group `pgid` if this process dies before `release()`."""

    def __init__(self, pgid: int) -> None:
        self.proc: subprocess.Popen[bytes] | None
        if os.name != "posix":
            self.proc = None
            return
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(pgid)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: a Ctrl-C to the run's group does not stop it early.
            start_new_session=True,
        )

    def release(self) -> None:
        """The group is ended (or about to be) by the run itself: the watchdog goes."""
        if self.proc is None or self.proc.stdin is None:
            return
        with contextlib.suppress(OSError):
            self.proc.stdin.write(_DONE)
            self.proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self.proc = None


def private_memory() -> bool:
    """Make this process non-dumpable (Linux); True when it took effect."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
