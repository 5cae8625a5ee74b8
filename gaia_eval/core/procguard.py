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
`/proc/<run>/mem` or attach a debugger; its children are dumpable again after their exec.
And the credential values in the start-up environment block (what `/proc/<run>/environ`
shows: the kernel reads that memory, not os.environ, and unsetenv does not clear it) are
overwritten with zeros, after libc's environment got its own copy of each (os.putenv), so
even a reader allowed through (root) finds no key there.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

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


def private_memory(secret: Callable[[str], bool]) -> bool:
    """Make this process non-dumpable and clear the values of the variables `secret`
    names from its start-up environment block (Linux); True when both took effect."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        dumpable_off = int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        dumpable_off = False
    return dumpable_off and _clear_startup_block(secret)


def _clear_startup_block(secret: Callable[[str], bool]) -> bool:
    import ctypes

    try:
        fields = Path("/proc/self/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        # Fields 50 and 51 of proc(5) (env_start, env_end); fields[0] is field 3.
        start, end = int(fields[47]), int(fields[48])
    except (OSError, ValueError, IndexError):
        return False
    if not 0 < start < end or end - start > 1 << 24:
        return False
    block = ctypes.string_at(start, end - start)
    offset = 0
    for entry in block.split(b"\0"):
        name, eq, value = entry.partition(b"=")
        key = name.decode("utf-8", "replace")
        if eq and value and secret(key):
            held = os.environ.get(key)
            if held is not None:
                # libc's environment points into this block: give it a copy first, so
                # getenv() and children started with the inherited environment keep it.
                os.putenv(key, held)
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
        offset += len(entry) + 1
    return True
