"""The on-disk chunk cache: one signed JSON entry per (content, embedder, chunk settings).

Layout of a cache folder:
- `cache.key`: 32 random bytes, created once per cache (mode 0600);
- `<key>.json`: extracted text, chunks, split pieces, vectors (base64 float32) and the
  settings they were made with;
- `<key>.sig`: HMAC-SHA256 of the JSON's exact bytes under `cache.key`.

An entry is served only when its signature verifies and its fields match the key it was
asked for. Anything else (truncated, tampered, unsigned, garbage, another schema) is
reported, deleted and rebuilt by the caller, so damaged text is never served. The HMAC
(not a bare checksum) means an edit cannot be hidden by recomputing a digest beside it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.results_io import atomic_write_bytes

SCHEMA = 1
_KEY_FILE = "cache.key"


@dataclass
class Entry:
    """A cached, indexable document."""

    text: str
    status: str
    pages: int
    error: str | None
    notes: list[str]
    chunks: list[str]
    split: set[int]
    vectors: npt.NDArray[np.float32]


def entry_key(content_sha256: str, settings: dict[str, object]) -> str:
    """Cache key: the file's content hash and every setting that shapes chunks or vectors."""
    blob = json.dumps({"content": content_sha256, **settings}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:40]


class ChunkCache:
    """Signed per-document entries in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        # It holds the text of the user's documents: a folder it creates is theirs alone.
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._secret = self._load_secret()

    def _load_secret(self) -> bytes:
        path = self.folder / _KEY_FILE
        try:
            secret = path.read_bytes()
            if len(secret) == 32:
                return secret
        except FileNotFoundError:
            pass
        # A missing or damaged key invalidates every entry signed with it: they are
        # rebuilt on their next use, which is the safe outcome.
        secret = os.urandom(32)
        atomic_write_bytes(path, secret, mode=0o600)
        return secret

    def json_path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def sig_path(self, key: str) -> Path:
        return self.folder / f"{key}.sig"

    def _sign(self, data: bytes) -> str:
        return hmac.new(self._secret, data, hashlib.sha256).hexdigest()

    def load(self, key: str, settings: dict[str, object]) -> tuple[Entry | None, str | None]:
        """(entry, None) when valid; (None, reason) when absent or rejected (then deleted)."""
        jpath, spath = self.json_path(key), self.sig_path(key)
        if not jpath.exists():
            spath.unlink(missing_ok=True)
            return None, None
        reason = None
        entry = None
        try:
            data = jpath.read_bytes()
            sig = spath.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            reason = "unsigned (no .sig)"
        except (OSError, UnicodeDecodeError) as err:
            reason = f"unreadable ({err})"
        else:
            if not hmac.compare_digest(sig, self._sign(data)):
                reason = "signature mismatch (truncated, tampered or foreign)"
            else:
                entry, reason = self._parse(data, key, settings)
        if entry is None:
            self.drop(key)
        return entry, reason

    def _parse(
        self, data: bytes, key: str, settings: dict[str, object]
    ) -> tuple[Entry | None, str | None]:
        try:
            raw: Any = json.loads(data)
            if raw.get("schema") != SCHEMA or raw.get("key") != key:
                return None, "written by another version or for another key"
            if raw.get("settings") != json.loads(json.dumps(settings)):
                return None, "made with other settings"
            dim = int(raw["dim"])
            vectors = np.frombuffer(base64.b64decode(raw["vectors"]), dtype="<f4")
            chunks = [str(c) for c in raw["chunks"]]
            vectors = vectors.reshape(len(chunks), dim).astype(np.float32)
            return (
                Entry(
                    text=str(raw["text"]),
                    status=str(raw["status"]),
                    pages=int(raw["pages"]),
                    error=raw.get("error"),
                    notes=[str(n) for n in raw.get("notes", [])],
                    chunks=chunks,
                    split={int(i) for i in raw["split"]},
                    vectors=vectors,
                ),
                None,
            )
        except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as err:
            return None, f"malformed ({type(err).__name__})"

    def store(self, key: str, settings: dict[str, object], entry: Entry) -> None:
        """Write the JSON, then its signature (a crash in between leaves it unsigned)."""
        payload = {
            "schema": SCHEMA,
            "key": key,
            "settings": settings,
            "status": entry.status,
            "pages": entry.pages,
            "error": entry.error,
            "notes": entry.notes,
            "split": sorted(entry.split),
            "dim": int(entry.vectors.shape[1]),
            "chunks": entry.chunks,
            "text": entry.text,
            "vectors": base64.b64encode(entry.vectors.astype("<f4").tobytes()).decode(),
        }
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.sig_path(key).unlink(missing_ok=True)
        atomic_write_bytes(self.json_path(key), data)
        atomic_write_bytes(self.sig_path(key), self._sign(data).encode("ascii"))

    def drop(self, key: str) -> None:
        self.json_path(key).unlink(missing_ok=True)
        self.sig_path(key).unlink(missing_ok=True)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())
