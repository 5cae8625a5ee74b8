"""The content-addressed embedding cache: one SQLite file shared by every suite and process.

A vector is stored under sha256(space, sha256(text)). The *space* digest names everything
that shapes a vector: the embedder spec, the weights' and tokenizer's sha256, the token
limit, the dimension, the recipe, the runtime version and the CPU's kernel family (a BLAS
kernel picked for another instruction set sums in another order, so bits could differ).
Two texts in one space never share a key, and nothing else can reach a row.

Exactness: a row holds the vector's float32 bytes exactly as computed plus a digest of
(key, bytes), checked on every read; a row that fails is deleted, counted as `rejected`
and recomputed. Serving is only sound for embedders whose vector is a function of the
text alone (not of its batch): they opt in by offering `cache_space()`; the onnx embedder
runs each text on its own, so this holds by construction (tested bit for bit).

Concurrency: WAL journal (readers never block the writer), every write in a
`BEGIN IMMEDIATE` transaction, a 60 s busy timeout; two processes filling the same cache
at once each see the other's rows or compute them again, never a torn row.

Size: at most `max_bytes` (default 1 GiB, `GAIA_EVAL_EMBED_CACHE_MB`); past it the least
recently used rows go (down to 90 %, so eviction is not paid on every write) and the file
gives the freed pages back. A hit refreshes its row's use time at most once a minute.

Location: `$GAIA_EVAL_CACHE/embeddings/vectors.sqlite3`, else
`~/.cache/gaia-eval/embeddings/vectors.sqlite3`; `GAIA_EVAL_NO_EMBED_CACHE=1` (the CLI's
`--no-cache`) turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gaia_eval.core.cachedir import cache_root

SCHEMA = 1
DEFAULT_MAX_MB = 1024
_DISABLE_ENV = "GAIA_EVAL_NO_EMBED_CACHE"
_SIZE_ENV = "GAIA_EVAL_EMBED_CACHE_MB"
_FILE = "vectors.sqlite3"
_PARAMS = 500  # keys per SELECT (well under SQLite's bound-parameter limit)
_TOUCH_NS = 60 * 10**9  # LRU precision: rewriting use times more often buys nothing
_LOW_WATER = 0.9


def default_path() -> Path:
    return cache_root() / "embeddings" / _FILE


def enabled() -> bool:
    """False when `GAIA_EVAL_NO_EMBED_CACHE=1` (the `--no-cache` flag) is set."""
    return os.environ.get(_DISABLE_ENV, "") != "1"


@contextlib.contextmanager
def disabled(off: bool = True) -> Iterator[None]:
    """Turn the cache off for embedders built inside the block (`--no-cache`)."""
    old = os.environ.get(_DISABLE_ENV)
    if off:
        os.environ[_DISABLE_ENV] = "1"
    try:
        yield
    finally:
        if off:
            if old is None:
                os.environ.pop(_DISABLE_ENV, None)
            else:
                os.environ[_DISABLE_ENV] = old


def max_bytes_from_env() -> int:
    raw = os.environ.get(_SIZE_ENV, "")
    try:
        mb = float(raw) if raw else float(DEFAULT_MAX_MB)
    except ValueError:
        mb = -1.0
    if mb <= 0:
        from gaia_eval.core.errors import InvalidInputError

        msg = f"{_SIZE_ENV}={raw!r}: expected a positive number of megabytes (default 1024)"
        raise InvalidInputError(msg)
    return int(mb * 1e6)


def isa() -> str:
    """The CPU kernel family a BLAS picks at run time (part of every space)."""
    flags: set[str] = set()
    try:
        with Path("/proc/cpuinfo").open(encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.partition(":")[2].split())
                    break
    except OSError:
        pass
    level = next(
        (
            name
            for name, need in (
                ("avx512vnni", {"avx512f", "avx512bw", "avx512_vnni"}),
                ("avx512", {"avx512f", "avx512bw"}),
                ("avxvnni", {"avx2", "fma", "avx_vnni"}),
                ("avx2", {"avx2", "fma"}),
            )
            if need <= flags
        ),
        "",
    )
    return f"{platform.machine()}:{level}" if level else platform.machine()


def space_digest(fields: dict[str, object]) -> bytes:
    """The space a set of identity fields names (schema version and ISA included)."""
    blob = json.dumps({"schema": SCHEMA, "isa": isa(), **fields}, sort_keys=True)
    return hashlib.sha256(blob.encode()).digest()


@dataclass
class CacheStats:
    """What the cache did for one embedder since it was built (counts of texts)."""

    enabled: bool
    path: str
    hits: int = 0
    """Vectors served from the cache."""
    misses: int = 0
    """Vectors computed (not in the cache, or rejected)."""
    stored: int = 0
    evicted: int = 0
    """Rows this process deleted to stay under the size bound."""
    rejected: int = 0
    """Rows that failed their digest (deleted and recomputed)."""
    error: str | None = None
    """Why the cache was turned off mid-run (then every vector is computed)."""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def _check(key: bytes, vector: bytes) -> bytes:
    return hashlib.blake2b(key + vector, digest_size=16).digest()


class VectorStore:
    """The SQLite file: rows of (key, vector bytes, check digest, last use)."""

    def __init__(self, path: Path, max_bytes: int, *, touch_every_ns: int = _TOUCH_NS) -> None:
        self.path = Path(path)
        self.max_bytes = max_bytes
        self.touch_every_ns = touch_every_ns
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as err:
            if not _is_corrupt(err):
                raise
            # A cache file that is not a database is rebuilt: it holds nothing we cannot
            # recompute, and keeping it would turn the cache off for good.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA busy_timeout = 60000")
            # auto_vacuum only takes effect before the first table exists.
            db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            db.execute("PRAGMA journal_mode = WAL").fetchone()
            db.execute("PRAGMA synchronous = NORMAL")
            with self._write(db):
                db.execute(
                    "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
                )
                db.execute(
                    "CREATE TABLE IF NOT EXISTS spaces "
                    "(space BLOB PRIMARY KEY, description TEXT NOT NULL)"
                )
                db.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (id INTEGER PRIMARY KEY, "
                    "key BLOB NOT NULL UNIQUE, space BLOB NOT NULL, vector BLOB NOT NULL, "
                    "digest BLOB NOT NULL, used INTEGER NOT NULL)"
                )
                db.execute("CREATE INDEX IF NOT EXISTS vectors_by_use ON vectors (used, id)")
                row = db.execute("SELECT value FROM meta WHERE name = 'schema'").fetchone()
                if row is None:
                    db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
                elif row[0] != str(SCHEMA):
                    # Another layout: its rows are unreachable (keys include the schema),
                    # so drop them rather than carry dead weight.
                    db.execute("DELETE FROM vectors")
                    db.execute("DELETE FROM spaces")
                    db.execute("UPDATE meta SET value = ? WHERE name = 'schema'", (str(SCHEMA),))
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    @contextlib.contextmanager
    def _write(db: sqlite3.Connection) -> Iterator[None]:
        # IMMEDIATE takes the write lock up front, so two writers queue on the busy
        # timeout instead of one failing when it upgrades a read lock.
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def register(self, space: bytes, description: dict[str, object]) -> None:
        """Record what a space is (for people inspecting the file; keys do not need it)."""
        with self._lock, self._write(self._db):
            self._db.execute(
                "INSERT OR IGNORE INTO spaces VALUES (?, ?)",
                (space, json.dumps(description, sort_keys=True)),
            )

    def get(self, keys: Sequence[bytes], nbytes: int) -> tuple[dict[bytes, bytes], int]:
        """The stored bytes of every key present and sound; the number of rows rejected."""
        found: dict[bytes, bytes] = {}
        stale: list[int] = []
        bad: list[int] = []
        now = time.time_ns()
        with self._lock:
            for s in range(0, len(keys), _PARAMS):
                part = keys[s : s + _PARAMS]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT id, key, vector, digest, used FROM vectors WHERE key IN ({marks})",
                    part,
                ).fetchall()
                for rid, key, vec, digest, used in rows:
                    if len(vec) != nbytes or digest != _check(key, vec):
                        bad.append(rid)
                        continue
                    found[key] = vec
                    if now - used >= self.touch_every_ns:
                        stale.append(rid)
            if stale or bad:
                with self._write(self._db):
                    self._db.executemany(
                        "UPDATE vectors SET used = ? WHERE id = ?", [(now, r) for r in stale]
                    )
                    self._db.executemany("DELETE FROM vectors WHERE id = ?", [(r,) for r in bad])
        return found, len(bad)

    def put(self, space: bytes, items: Sequence[tuple[bytes, bytes]]) -> tuple[int, int]:
        """Store (key, vector bytes) rows; returns (rows added, rows evicted)."""
        if not items:
            return 0, 0
        now = time.time_ns()
        with self._lock, self._write(self._db):
            before = self._db.total_changes
            self._db.executemany(
                "INSERT OR IGNORE INTO vectors (key, space, vector, digest, used) "
                "VALUES (?, ?, ?, ?, ?)",
                [(k, space, v, _check(k, v), now) for k, v in items],
            )
            added = self._db.total_changes - before
            evicted = self._evict()
        if evicted:
            with self._lock:
                self._db.execute("PRAGMA incremental_vacuum")
        return added, evicted

    def _evict(self) -> int:
        used = self.used_bytes()
        if used <= self.max_bytes:
            return 0
        (count,) = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()
        if not count:
            return 0
        per_row = used / int(count)
        drop = min(int(count), int((used - _LOW_WATER * self.max_bytes) / per_row) + 1)
        self._db.execute(
            "DELETE FROM vectors WHERE id IN (SELECT id FROM vectors ORDER BY used, id LIMIT ?)",
            (drop,),
        )
        return drop

    def used_bytes(self) -> int:
        """Bytes of the file's pages in use (free pages left by eviction not counted)."""
        (pages,) = self._db.execute("PRAGMA page_count").fetchone()
        (free,) = self._db.execute("PRAGMA freelist_count").fetchone()
        (size,) = self._db.execute("PRAGMA page_size").fetchone()
        return int((pages - free) * size)

    def count(self) -> int:
        with self._lock:
            (n,) = self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()
        return int(n)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _is_corrupt(err: sqlite3.DatabaseError) -> bool:
    text = str(err).lower()
    return "not a database" in text or "malformed" in text


class EmbeddingCache:
    """One embedder's view of the store: texts in, vectors out, counts kept. Without a
    store (turned off, or it could not be opened) every vector is computed."""

    def __init__(
        self, store: VectorStore | None, space: bytes, dim: int, error: str | None = None
    ) -> None:
        self.store = store
        self.space = space
        self.dim = dim
        self.stats = CacheStats(
            enabled=store is not None, path=str(store.path) if store else "", error=error
        )

    @classmethod
    def open(cls, fields: dict[str, object], dim: int) -> EmbeddingCache:
        """The shared cache for an embedder identity (off under `--no-cache`)."""
        if not enabled():
            return cls(None, b"", dim)
        path, max_bytes = default_path(), max_bytes_from_env()
        try:
            return cls.at(VectorStore(path, max_bytes), fields, dim)
        except (sqlite3.Error, OSError) as err:
            off = cls(None, b"", dim, error=f"{path}: {err}")
            _note_off(off.stats.error or "")
            return off

    @classmethod
    def at(cls, store: VectorStore, fields: dict[str, object], dim: int) -> EmbeddingCache:
        """An embedder identity's view of `store`."""
        space = space_digest(fields)
        store.register(space, fields)
        return cls(store, space, dim)

    def key(self, text: str) -> bytes:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
        return hashlib.sha256(self.space + digest).digest()

    def embed(
        self,
        texts: list[str],
        compute: Callable[[list[str]], npt.NDArray[np.float32]],
    ) -> npt.NDArray[np.float32]:
        """Vectors of `texts` (all non-empty): cached rows as stored, the rest computed
        by `compute` (each distinct text once) and stored."""
        store = self.store
        if store is None:
            self.stats.misses += len(texts)
            return compute(texts)
        keys = [self.key(t) for t in texts]
        try:
            found, rejected = store.get(list(dict.fromkeys(keys)), self.dim * 4)
        except sqlite3.Error as err:
            self._turn_off(err)
            self.stats.misses += len(texts)
            return compute(texts)
        self.stats.rejected += rejected
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        todo: dict[bytes, list[int]] = {}
        for row, key in enumerate(keys):
            vec = found.get(key)
            if vec is None:
                todo.setdefault(key, []).append(row)
            else:
                out[row] = np.frombuffer(vec, dtype="<f4")
        missed = sum(len(rows) for rows in todo.values())
        self.stats.hits += len(texts) - missed
        self.stats.misses += missed
        if not todo:
            return out
        firsts = [rows[0] for rows in todo.values()]
        fresh = np.ascontiguousarray(compute([texts[r] for r in firsts]), dtype="<f4")
        items: list[tuple[bytes, bytes]] = []
        for (key, rows), vec in zip(todo.items(), fresh, strict=True):
            out[rows] = vec
            items.append((key, vec.tobytes()))
        try:
            added, evicted = store.put(self.space, items)
        except sqlite3.Error as err:
            self._turn_off(err)
            return out
        self.stats.stored += added
        self.stats.evicted += evicted
        return out

    def _turn_off(self, err: sqlite3.Error) -> None:
        # A cache that cannot be read or written (disk full, a lock held past the
        # timeout) must not fail the run: every vector is computed from here on, and
        # the reason is recorded with the run's stats.
        assert self.store is not None
        self.stats.error = f"{self.store.path}: {err}"
        self.store = None
        _note_off(self.stats.error)


def _note_off(reason: str) -> None:
    from gaia_eval.core.progress import note

    note(f"embedding cache off for this run: {reason}")
