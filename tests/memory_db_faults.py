"""Memory systems whose database fails mid-run (for `--system` in the suite tests): the
reference system, but before its third chat another connection locks the database, or the
file is overwritten with garbage. Both must be errors of the run, never passes."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import ClassVar

from gaia_eval.systems.memory import ReferenceMemory
from gaia_eval.systems.memory.protocol import Clock, Memory, MemoryTools


class _Faulty(ReferenceMemory):
    opened: ClassVar[dict[str, int]] = {}
    holders: ClassVar[list[sqlite3.Connection]] = []

    def __init__(self) -> None:
        super().__init__(busy_timeout_s=0.2)

    def fault(self, db_path: Path) -> None:
        raise NotImplementedError

    def open(self, db_path: Path, clock: Clock, tools: MemoryTools) -> None:
        n = self.opened.get(str(db_path), 0) + 1
        self.opened[str(db_path)] = n
        if n == 3:
            self.fault(db_path)
        super().open(db_path, clock, tools)


class _Locks(_Faulty):
    def fault(self, db_path: Path) -> None:
        holder = sqlite3.connect(db_path, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # held for the rest of the run
        self.holders.append(holder)


class _Corrupts(_Faulty):
    def fault(self, db_path: Path) -> None:
        for suffix in ("-wal", "-shm"):
            Path(f"{db_path}{suffix}").unlink(missing_ok=True)
        db_path.write_bytes(b"this is not an SQLite database\n" * 64)


class _InterruptsOnce(ReferenceMemory):
    """The reference system, except that the first chat of the third scenario is
    interrupted (as by Ctrl-C) once per process: a run to stop and resume."""

    scenarios: ClassVar[set[str]] = set()
    fired: ClassVar[list[bool]] = []

    def open(self, db_path: Path, clock: Clock, tools: MemoryTools) -> None:
        self.scenarios.add(str(db_path))
        if len(self.scenarios) == 3 and not self.fired:
            self.fired.append(True)
            raise KeyboardInterrupt
        super().open(db_path, clock, tools)


def interrupts_once() -> Memory:
    return _InterruptsOnce()


def locks_the_db() -> Memory:
    return _Locks()


def corrupts_the_db() -> Memory:
    return _Corrupts()


def release() -> None:
    for holder in _Faulty.holders:
        holder.close()
    _Faulty.holders.clear()
    _Faulty.opened.clear()
