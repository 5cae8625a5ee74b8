"""The reference memory's SQLite store (WAL): items, forget tombstones and chats.

One file per scenario, shared by every chat's agent. Ids are sequential (`m0001`), so two
runs of the same scenario produce the same database row for row. Times are ISO-8601 UTC
strings, so they sort as text.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS items (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT UNIQUE,
  kind TEXT NOT NULL,
  subject TEXT NOT NULL,
  attribute TEXT NOT NULL,
  value TEXT,
  skey TEXT NOT NULL,
  source TEXT NOT NULL,
  chat_id TEXT,
  created TEXT NOT NULL,
  valid_from TEXT NOT NULL,
  last_seen TEXT NOT NULL,
  mentions INTEGER NOT NULL DEFAULT 1,
  superseded_by TEXT,
  superseded_at TEXT,
  forgotten_at TEXT,
  confidence REAL NOT NULL,
  embedding BLOB,
  scope TEXT,
  due TEXT,
  window_s INTEGER,
  status TEXT
);
CREATE INDEX IF NOT EXISTS items_key ON items (kind, skey) WHERE superseded_by IS NULL;
CREATE TABLE IF NOT EXISTS tombstones (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  pattern TEXT NOT NULL,
  created TEXT NOT NULL,
  chat_id TEXT
);
CREATE TABLE IF NOT EXISTS chats (chat_id TEXT PRIMARY KEY, started TEXT NOT NULL);
"""


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else dt.isoformat(timespec="seconds")


def parse_iso(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass
class Item:
    """One stored item, as the reference system works with it."""

    id: str
    kind: str
    subject: str
    attribute: str
    value: str | None
    skey: str
    source: str
    chat_id: str | None
    created: str
    valid_from: str
    last_seen: str
    mentions: int
    superseded_by: str | None
    superseded_at: str | None
    forgotten_at: str | None
    confidence: float
    embedding: bytes | None
    scope: str | None
    due: str | None
    window_s: int | None
    status: str | None

    @property
    def current(self) -> bool:
        return self.superseded_by is None and self.forgotten_at is None

    def vector(self) -> npt.NDArray[np.float32] | None:
        if self.embedding is None:
            return None
        return np.frombuffer(self.embedding, dtype=np.float32)


_COLUMNS = [f.name for f in fields(Item)]


@dataclass(frozen=True)
class Tombstone:
    pattern: str
    created: str
    chat_id: str | None


class Store:
    """Data access for one database file; every write commits at once (a chat may die)."""

    def __init__(self, path: Path, busy_timeout_s: float = 5.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: autocommit, with explicit transactions where several
        # writes must land together.
        self._db = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
        mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            msg = f"{self.path}: SQLite refused WAL mode (got {mode!r})"
            raise sqlite3.OperationalError(msg)
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.executescript(_SCHEMA)
        self._db.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
        )

    # ---- transactions ---------------------------------------------------------------

    def begin(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def rollback(self) -> None:
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")

    # ---- items ----------------------------------------------------------------------

    def insert(self, **values: Any) -> str:
        """Insert an item; its id is derived from the row's sequence number."""
        values = {k: v for k, v in values.items() if k != "id"}
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        cur = self._db.execute(
            f"INSERT INTO items ({cols}) VALUES ({marks})", list(values.values())
        )
        item_id = f"m{cur.lastrowid:04d}"
        self._db.execute("UPDATE items SET id = ? WHERE seq = ?", (item_id, cur.lastrowid))
        return item_id

    def set(self, item_id: str, **values: Any) -> None:
        assign = ", ".join(f"{k} = ?" for k in values)
        self._db.execute(f"UPDATE items SET {assign} WHERE id = ?", [*values.values(), item_id])

    def delete(self, item_id: str) -> None:
        self._db.execute("DELETE FROM items WHERE id = ?", (item_id,))

    def get(self, item_id: str) -> Item | None:
        rows = self._select("WHERE id = ?", (item_id,))
        return rows[0] if rows else None

    def current(self, kind: str | None = None) -> list[Item]:
        if kind is None:
            return self._select("WHERE superseded_by IS NULL AND forgotten_at IS NULL", ())
        return self._select(
            "WHERE superseded_by IS NULL AND forgotten_at IS NULL AND kind = ?", (kind,)
        )

    def current_by_key(self, kind: str, skey: str) -> list[Item]:
        return self._select(
            "WHERE superseded_by IS NULL AND forgotten_at IS NULL AND kind = ? AND skey = ?",
            (kind, skey),
        )

    def all_items(self) -> list[Item]:
        return self._select("", ())

    def _select(self, where: str, params: tuple[Any, ...]) -> list[Item]:
        cols = ", ".join(_COLUMNS)
        cur = self._db.execute(f"SELECT {cols} FROM items {where} ORDER BY seq", params)
        return [Item(*row) for row in cur.fetchall()]

    # ---- tombstones and chats -------------------------------------------------------

    def add_tombstone(self, pattern: str, created: str, chat_id: str | None) -> None:
        self._db.execute(
            "INSERT INTO tombstones (pattern, created, chat_id) VALUES (?, ?, ?)",
            (pattern, created, chat_id),
        )

    def tombstones(self) -> list[Tombstone]:
        cur = self._db.execute("SELECT pattern, created, chat_id FROM tombstones ORDER BY seq")
        return [Tombstone(*row) for row in cur.fetchall()]

    def chat_started(self, chat_id: str, now: str) -> str:
        """When `chat_id` first appeared (recording `now` the first time)."""
        self._db.execute(
            "INSERT OR IGNORE INTO chats (chat_id, started) VALUES (?, ?)", (chat_id, now)
        )
        row = self._db.execute("SELECT started FROM chats WHERE chat_id = ?", (chat_id,)).fetchone()
        return str(row[0])

    def close(self) -> None:
        """Fold the WAL into the main file, so the file's size is the store's size."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._db.close()
