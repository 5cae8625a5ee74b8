"""The run index: an SQLite cache (WAL) of every run folder under a results root.

The run folders are the source of truth; this file is only a cache of what `digest` reads
from them. It is updated incrementally (a run folder whose results.json changed mtime or
size is read again, a vanished one is dropped), rebuilt on demand (`--reindex`), and a
damaged index (not a database, a failed integrity check, another schema) is deleted and
rebuilt, never trusted.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.view.digest import ItemRow, RunRow, digest, envelope, unreadable

INDEX_NAME = ".gaia-eval-view.sqlite"
SCHEMA = 1
RESULTS = "results.json"

_RUN_FIELDS = [f.name for f in dataclasses.fields(RunRow)]
# Quoted: `commit` is an SQL keyword.
_COLS = ", ".join(f'"{name}"' for name in _RUN_FIELDS)
_DDL = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
    path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL,
    {_COLS}
);
CREATE TABLE items (
    run TEXT NOT NULL REFERENCES runs(path) ON DELETE CASCADE,
    seq INTEGER NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, outcome TEXT NOT NULL,
    PRIMARY KEY (run, seq)
);
CREATE INDEX items_id ON items (id);
CREATE INDEX runs_suite ON runs (suite, started);
"""


@dataclass(frozen=True)
class IndexedRun:
    """A run row with where its folder is."""

    root: Path
    path: str
    """The run folder relative to the root (posix)."""
    row: RunRow

    @property
    def folder(self) -> Path:
        return self.root / self.path

    @property
    def key(self) -> str:
        """A stable, URL-safe id of this run across every root the view shows."""
        import hashlib

        return hashlib.sha256(f"{self.root.resolve()}\0{self.path}".encode()).hexdigest()[:12]


def run_folders(root: Path) -> Iterator[Path]:
    """Every folder under `root` holding a results.json (lane outputs nest them)."""
    for path in sorted(root.rglob(RESULTS)):
        if path.is_file():
            yield path.parent


class RunIndex:
    """The index of one results root."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            msg = f"{self.root}: no such results folder; give the folder runs write into (default eval/results)"  # noqa: E501
            raise InvalidInputError(msg)
        self.file = self.root / INDEX_NAME
        self.db = self._open()

    # ---- opening, and rebuilding what cannot be trusted ---------------------------------

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.file, timeout=30, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def _trusted(self, db: sqlite3.Connection) -> bool:
        ok = db.execute("PRAGMA integrity_check").fetchone()
        if not ok or ok[0] != "ok":
            return False
        row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        return row is not None and row[0] == str(SCHEMA)

    def _open(self) -> sqlite3.Connection:
        if self.file.exists():
            db: sqlite3.Connection | None = None
            try:
                db = self._connect()
                if self._trusted(db):
                    return db
            except sqlite3.DatabaseError:
                pass
            if db is not None:
                db.close()
            self._delete()
        return self._create()

    def _delete(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.file}{suffix}").unlink()

    def _create(self) -> sqlite3.Connection:
        db = self._connect()
        db.executescript(f"BEGIN;{_DDL}COMMIT;")
        db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
        return db

    def close(self) -> None:
        self.db.close()

    def reindex(self) -> int:
        """Throw the cache away and read every run folder again; the runs indexed."""
        self.db.close()
        self._delete()
        self.db = self._create()
        return self.update()

    # ---- keeping it current ----------------------------------------------------------

    def update(self) -> int:
        """Read the run folders whose results.json is new or changed and drop vanished
        ones; the number of runs (re)read."""
        known = {
            path: (mtime, size)
            for path, mtime, size in self.db.execute("SELECT path, mtime_ns, size FROM runs")
        }
        seen: set[str] = set()
        changed = 0
        self.db.execute("BEGIN")
        try:
            for folder in run_folders(self.root):
                rel = folder.relative_to(self.root).as_posix()
                seen.add(rel)
                if self._add(folder, rel, known.get(rel)):
                    changed += 1
            gone = [(p,) for p in known if p not in seen]
            self.db.executemany("DELETE FROM runs WHERE path=?", gone)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        return changed

    def add_run(self, folder: Path) -> None:
        """Index one run folder now (the run loop's hook after a run finishes)."""
        rel = Path(folder).resolve().relative_to(self.root.resolve()).as_posix()
        self.db.execute("BEGIN")
        try:
            self._add(Path(folder), rel, None)
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _add(self, folder: Path, rel: str, known: tuple[int, int] | None) -> bool:
        try:
            st = (folder / RESULTS).stat()
        except OSError:
            return False
        stamp = (st.st_mtime_ns, st.st_size)
        if known == stamp:
            return False
        try:
            row, items = digest(envelope(folder / RESULTS))
        except (InvalidInputError, OSError, ValueError) as err:
            row, items = unreadable(folder, err), []
        except Exception as err:  # one odd folder must not hide every other run
            row, items = unreadable(folder, RuntimeError(f"{type(err).__name__}: {err}")), []
        self.db.execute("DELETE FROM runs WHERE path=?", (rel,))
        values = [getattr(row, name) for name in _RUN_FIELDS]
        marks = ", ".join("?" * (3 + len(values)))
        self.db.execute(f"INSERT INTO runs VALUES ({marks})", (rel, *stamp, *values))
        self.db.executemany(
            "INSERT INTO items VALUES (?, ?, ?, ?, ?)",
            [(rel, seq, it.id, it.status, it.outcome) for seq, it in enumerate(items)],
        )
        return True

    # ---- reading ---------------------------------------------------------------------

    def runs(self, suite: str | None = None) -> list[IndexedRun]:
        sql = f"SELECT path, {_COLS} FROM runs"
        args: tuple[str, ...] = ()
        if suite is not None:
            sql, args = sql + " WHERE suite=?", (suite,)
        out = []
        for path, *values in self.db.execute(sql + " ORDER BY started, path", args):
            row = RunRow(**dict(zip(_RUN_FIELDS, values, strict=True)))
            row = dataclasses.replace(row, complete=bool(row.complete))
            out.append(IndexedRun(self.root, path, row))
        return out

    def items(self, path: str) -> list[ItemRow]:
        return [
            ItemRow(*r)
            for r in self.db.execute(
                "SELECT id, status, outcome FROM items WHERE run=? ORDER BY seq", (path,)
            )
        ]

    def dump(self) -> list[tuple[object, ...]]:
        """Every run and item row, in a stable order (what a rebuild must reproduce)."""
        runs = list(self.db.execute(f"SELECT path, {_COLS} FROM runs ORDER BY path"))
        items = list(self.db.execute("SELECT * FROM items ORDER BY run, seq"))
        return [*runs, *items]


def open_index(root: Path, *, reindex: bool = False) -> RunIndex:
    """The index of `root`, current with its run folders."""
    index = RunIndex(root)
    if reindex:
        index.reindex()
    else:
        index.update()
    return index


def index_finished_run(folder: Path, root: Path | None = None) -> None:
    """Best effort, after a run: add its folder to the index of the results root it is in
    (the folder's parent unless given). Never fails the run: a view that cannot index now
    catches up on its next update."""
    try:
        base = Path(root) if root is not None else Path(folder).parent
        if not (Path(folder) / RESULTS).is_file():
            return
        # Only a root that is one already (the default results folder, or one a view has
        # indexed): a run written to some --out folder leaves no file beside it.
        from gaia_eval.core.rundir import RESULTS_ROOT

        if root is None and not (
            (base / INDEX_NAME).exists() or base.resolve() == RESULTS_ROOT.resolve()
        ):
            return
        index = RunIndex(base)
        try:
            index.add_run(Path(folder))
        finally:
            index.close()
    except Exception:
        pass
