"""Who holds the machine-wide eval lock: where it lives, the holder record, is it live.

Standard library only, and no gaia_eval imports: the nox sessions load this file by its
path, with nox's own interpreter, to check the lock before they install anything (the
package is not installed at that point). `gaia_eval.core.lock` builds the lock on it.

The lock itself is an OS file lock, which the kernel releases when the holder dies; the
holder record `holder.json` is only a note for humans, so it can outlive a killed holder.
A record counts only while its process runs: same pid and, where /proc tells, the same
process start time (so a pid reused by an unrelated process is not mistaken for it).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

LOCK_FILE = "eval.lock"
HOLDER_FILE = "holder.json"


def lock_dir() -> Path:
    """Where the lock lives: $GAIA_EVAL_LOCK_DIR, else a per-user temp folder."""
    env = os.environ.get("GAIA_EVAL_LOCK_DIR")
    if env:
        return Path(env)
    user = os.environ.get("USER") or os.environ.get("USERNAME") or str(os.getuid())
    return Path(tempfile.gettempdir()) / f"gaia-eval-{user}"


def process_start(pid: int) -> str | None:
    """The kernel's start time of a process (Linux /proc), or None where it is unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # Field 2 (the command name) may hold spaces and parentheses: count after the last ')'.
    # What follows starts at field 3; starttime is field 22.
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 probes without delivering)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":  # pragma: no cover - os.kill would terminate it there
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, but belongs to another user
    except OSError:
        return False
    return True


def holder_record(command: str, started: str) -> dict[str, Any]:
    """The record a new holder writes: who it is, what it runs, since when."""
    pid = os.getpid()
    return {"pid": pid, "pid_start": process_start(pid), "command": command, "started": started}


def read_holder(directory: Path | None = None) -> dict[str, Any] | None:
    """The holder record in the lock folder, if one is readable (live or not)."""
    path = (directory or lock_dir()) / HOLDER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def holder_is_live(holder: dict[str, Any]) -> bool:
    """Whether the record's process still runs (a killed holder leaves a stale record)."""
    pid = holder.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or not pid_alive(pid):
        return False
    recorded = holder.get("pid_start")
    if isinstance(recorded, str):
        current = process_start(pid)
        if current is not None and current != recorded:
            return False  # the pid now belongs to another process
    return True


def live_holder(directory: Path | None = None) -> dict[str, Any] | None:
    """The holder record if its process still runs; a stale record reads as None."""
    holder = read_holder(directory)
    return holder if holder is not None and holder_is_live(holder) else None


def describe(holder: dict[str, Any] | None) -> str:
    """One phrase naming the holder, for messages."""
    if holder is None:
        return "another process (no live holder record)"
    return (
        f"pid {holder.get('pid')} running `{holder.get('command')}` since {holder.get('started')}"
    )
