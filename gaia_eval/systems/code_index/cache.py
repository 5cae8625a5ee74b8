"""The on-disk cache of one indexed tree: `metadata.json` + `index.faiss`.

Layout: `<cache_dir>/<sha256(resolved root)[:16]>/`. `index.faiss` is a FAISS `IndexFlatL2`
of float32 vectors; vector i belongs to `chunks[i]` of `metadata.json`, which also holds the
schema version, the embedder spec and dimension, the sha256 of every indexed file's decoded
text, and `index_sha256`, the digest of the exact `index.faiss` bytes it was saved with.

Save: write `index.tmp.faiss` and `metadata.tmp.json`, then rename the index first and the
metadata second. A crash between the two renames leaves a new index beside old metadata; the
original caught that only when the chunk count changed. Here the metadata names the digest
of its index, so the pair is checked on every load whatever the counts.

Load never guesses: it returns the cache, or raises `CacheDamagedError` saying what is wrong.
The index decides what to do with that (search raises; index() rebuilds).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import GaiaEvalError
from gaia_eval.systems.code_index.protocol import Chunk

CACHE_VERSION = 3
METADATA = "metadata.json"
INDEX = "index.faiss"
TMP_METADATA = "metadata.tmp.json"
TMP_INDEX = "index.tmp.faiss"


class CacheDamagedError(GaiaEvalError):
    """The cache exists but cannot be trusted; `kind` says why (for callers that rebuild)."""

    exit_code = 3

    def __init__(self, directory: Path, kind: str, detail: str) -> None:
        self.kind = kind
        super().__init__(
            f"code index cache {directory}: {detail}; re-index to rebuild it "
            f"(or delete {directory})"
        )


class CacheMissingError(GaiaEvalError):
    """There is no cache for this tree yet."""

    exit_code = 3


@dataclass
class Cache:
    embedding_model: str
    embedding_dim: int
    file_hashes: dict[str, str]
    chunks: list[Chunk]
    vectors: npt.NDArray[np.float32]
    created_at: float = 0.0


def cache_path(cache_dir: Path, root: Path) -> Path:
    digest = hashlib.sha256(str(Path(root).resolve()).encode("utf-8")).hexdigest()[:16]
    return Path(cache_dir) / digest


def _faiss_bytes(vectors: npt.NDArray[np.float32], dim: int) -> bytes:
    import faiss

    index = faiss.IndexFlatL2(dim)
    if len(vectors):
        index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return bytes(faiss.serialize_index(index).tobytes())


def _fsync_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def save(directory: Path, cache: Cache, *, crash_between_renames: bool = False) -> None:
    """Atomically (two renames, index first) write the cache.

    `crash_between_renames` stops after the first rename, as a killed process would; only
    the robustness benchmark and tests use it.
    """
    directory.mkdir(parents=True, exist_ok=True)
    index_bytes = _faiss_bytes(cache.vectors, cache.embedding_dim)
    meta = {
        "version": CACHE_VERSION,
        "embedding_model": cache.embedding_model,
        "embedding_dim": cache.embedding_dim,
        "created_at": cache.created_at or time.time(),
        "index_sha256": hashlib.sha256(index_bytes).hexdigest(),
        "vector_count": len(cache.vectors),
        "file_hashes": dict(sorted(cache.file_hashes.items())),
        "chunks": [asdict(c) for c in cache.chunks],
    }
    tmp_index, tmp_meta = directory / TMP_INDEX, directory / TMP_METADATA
    try:
        _fsync_write(tmp_index, index_bytes)
        # ASCII escapes: a file name that is not UTF-8 is a str with surrogate escapes
        # (`a\udcff.py`), which json writes as `\udcff` and reads back unchanged.
        _fsync_write(tmp_meta, json.dumps(meta, ensure_ascii=True).encode("ascii"))
        os.replace(tmp_index, directory / INDEX)
        if crash_between_renames:
            return
        os.replace(tmp_meta, directory / METADATA)
    except BaseException:
        tmp_index.unlink(missing_ok=True)
        tmp_meta.unlink(missing_ok=True)
        raise


def _chunk(raw: Any, i: int, directory: Path) -> Chunk:
    try:
        return Chunk(**raw)
    except TypeError as err:
        raise CacheDamagedError(directory, "metadata-corrupt", f"chunk {i} is malformed") from err


def load(directory: Path, *, embedding_model: str | None = None) -> Cache:
    """Read and fully validate a cache; raise CacheMissingError or CacheDamagedError."""
    meta_path, index_path = directory / METADATA, directory / INDEX
    if not meta_path.exists() and not index_path.exists():
        msg = f"no code index at {directory}; run index() first"
        raise CacheMissingError(msg)
    if not meta_path.exists():
        raise CacheDamagedError(directory, "metadata-missing", "metadata.json is missing")
    if not index_path.exists():
        raise CacheDamagedError(directory, "index-missing", "index.faiss is missing")
    try:
        meta = json.loads(meta_path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise CacheDamagedError(
            directory, "metadata-corrupt", f"metadata.json is not valid JSON ({err})"
        ) from err
    if not isinstance(meta, dict):
        raise CacheDamagedError(directory, "metadata-corrupt", "metadata.json is not an object")
    version = meta.get("version")
    if version != CACHE_VERSION:
        raise CacheDamagedError(
            directory, "version", f"schema version {version!r}, this build reads {CACHE_VERSION}"
        )
    model = meta.get("embedding_model")
    if embedding_model is not None and model != embedding_model:
        raise CacheDamagedError(
            directory, "model", f"built with embedder {model!r}, asked for {embedding_model!r}"
        )
    index_bytes = index_path.read_bytes()
    if hashlib.sha256(index_bytes).hexdigest() != meta.get("index_sha256"):
        # Truncated, garbage, or a save interrupted between its two renames.
        raise CacheDamagedError(
            directory, "index-mismatch", "index.faiss is not the index metadata.json was saved with"
        )
    import faiss

    try:
        index = faiss.deserialize_index(np.frombuffer(index_bytes, dtype=np.uint8))
    except RuntimeError as err:
        raise CacheDamagedError(
            directory, "index-corrupt", f"index.faiss unreadable ({err})"
        ) from err
    raw_chunks = meta.get("chunks")
    hashes = meta.get("file_hashes")
    dim = meta.get("embedding_dim")
    if not isinstance(raw_chunks, list) or not isinstance(hashes, dict) or not isinstance(dim, int):
        raise CacheDamagedError(directory, "metadata-corrupt", "chunks/file_hashes/dim missing")
    chunks = [_chunk(c, i, directory) for i, c in enumerate(raw_chunks)]
    if index.ntotal != len(chunks) or meta.get("vector_count") != len(chunks) or index.d != dim:
        raise CacheDamagedError(
            directory,
            "count-mismatch",
            f"{index.ntotal} vectors for {len(chunks)} chunks",
        )
    vectors = index.reconstruct_n(0, index.ntotal) if index.ntotal else np.zeros((0, dim))
    return Cache(
        embedding_model=str(model),
        embedding_dim=dim,
        file_hashes={str(k): str(v) for k, v in hashes.items()},
        chunks=chunks,
        vectors=np.asarray(vectors, dtype=np.float32),
        created_at=float(meta.get("created_at", 0.0)),
    )
