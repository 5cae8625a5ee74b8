"""The machine-wide eval lock.

Two evals on one machine share CPUs and model servers, so both runs' timings and scores
would be wrong. The lock is an OS file lock (flock / msvcrt), which the kernel releases
when the holder dies, plus a holder file {pid, command, started} so a refused run can say
who holds it. GAIA_EVAL_NO_LOCK=1 bypasses it, for runs on separate backends.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from gaia_eval.core.errors import LockHeldError
from gaia_eval.core.runmeta import now_iso


def lock_dir() -> Path:
    """Where the lock lives: $GAIA_EVAL_LOCK_DIR, else a per-user temp folder."""
    env = os.environ.get("GAIA_EVAL_LOCK_DIR")
    if env:
        return Path(env)
    user = os.environ.get("USER") or os.environ.get("USERNAME") or str(os.getuid())
    return Path(tempfile.gettempdir()) / f"gaia-eval-{user}"


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


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) would end the process
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def read_holder(directory: Path | None = None) -> dict[str, Any] | None:
    """The holder record of the current lock, if one is readable."""
    path = (directory or lock_dir()) / "holder.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


@contextmanager
def eval_lock(command: str, directory: Path | None = None) -> Iterator[None]:
    """Hold the machine-wide eval lock for the body, or raise LockHeldError naming the holder."""
    if os.environ.get("GAIA_EVAL_NO_LOCK") == "1":
        yield
        return
    folder = directory or lock_dir()
    folder.mkdir(parents=True, exist_ok=True)
    fh = (folder / "eval.lock").open("ab")
    try:
        if not _try_lock(fh):
            holder = read_holder(folder)
            # A kill -9 leaves the holder file of a dead run behind (the kernel released its
            # lock): name a holder only while its process lives.
            who = (
                f"pid {holder.get('pid')} running `{holder.get('command')}` "
                f"since {holder.get('started')}"
                if holder and _alive(holder.get("pid"))
                else "another process"
            )
            msg = (
                f"another eval holds the machine-wide eval lock ({who}); wait for it to finish, "
                "or set GAIA_EVAL_NO_LOCK=1 if the two runs use separate backends"
            )
            raise LockHeldError(msg)
        holder_path = folder / "holder.json"
        holder_path.write_text(
            json.dumps({"pid": os.getpid(), "command": command, "started": now_iso()}),
            encoding="utf-8",
        )
        try:
            yield
        finally:
            holder_path.unlink(missing_ok=True)
    finally:
        fh.close()  # closing the descriptor releases the lock
