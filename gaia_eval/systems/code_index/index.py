"""The reference code index: discovery, ast chunks, any embedder, FAISS, an on-disk cache."""

from __future__ import annotations

import hashlib
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError
from gaia_eval.core.progress import track
from gaia_eval.embed import Embedder, cache_stats
from gaia_eval.systems._faiss import one_thread
from gaia_eval.systems.code_index import cache as cache_mod
from gaia_eval.systems.code_index.chunker import chunk_file, embed_text
from gaia_eval.systems.code_index.discovery import Limits, discover, read_source
from gaia_eval.systems.code_index.protocol import Chunk, CodeHit, CodeIndexInfo, IndexReport

EMBED_BATCH = 64


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ReferenceCodeIndex:
    """Index one tree incrementally; search it with an exact FAISS L2 index."""

    def __init__(
        self,
        root: Path,
        cache_dir: Path,
        embedder: Embedder,
        limits: Limits | None = None,
    ) -> None:
        self.root = Path(root)
        self.embedder = embedder
        self.limits = limits or Limits()
        self.directory = cache_mod.cache_path(Path(cache_dir), self.root)
        self._loaded: cache_mod.Cache | None = None
        self._faiss: Any = None
        self.last_texts: dict[str, str] = {}
        """Decoded text of every file read by the last index() call (the grep baseline uses it)."""
        self._from_cache = 0
        self._computed = 0

    def info(self) -> CodeIndexInfo:
        return CodeIndexInfo(
            name="gaia_eval.code_index",
            embedder=self.embedder.spec,
            extra={"cache_version": cache_mod.CACHE_VERSION, **vars_of(self.limits)},
        )

    # ---- indexing ------------------------------------------------------------------------

    def _previous(self) -> tuple[cache_mod.Cache | None, str]:
        try:
            return cache_mod.load(self.directory, embedding_model=self.embedder.spec), "reused"
        except cache_mod.CacheMissingError:
            return None, "fresh"
        except cache_mod.CacheDamagedError as err:
            # index() is the repair path: a cache we cannot trust is rebuilt from the tree.
            return None, f"rebuilt: {err.kind}"

    def index(self) -> IndexReport:
        t0 = time.perf_counter()
        report = IndexReport()
        previous, report.cache_state = self._previous()
        found = discover(self.root, self.limits)
        report.files_discovered = len(found.files)
        report.limits_hit = list(found.limits_hit)
        report.discovery_truncated = found.truncated
        report.skipped = dict(found.skipped)
        old_by_file: dict[str, list[int]] = {}
        if previous is not None:
            for i, c in enumerate(previous.chunks):
                old_by_file.setdefault(c.file_path, []).append(i)
        texts: dict[str, str] = {}
        hashes: dict[str, str] = {}
        keep: list[tuple[str, list[int]]] = []
        fresh_files: list[str] = []
        for rel in found.files:
            src = read_source(self.root, rel, self.limits)
            if src.text is None:
                report.skipped[src.reason] = report.skipped.get(src.reason, 0) + 1
                continue
            texts[rel] = src.text
            hashes[rel] = text_hash(src.text)
            if previous is not None and previous.file_hashes.get(rel) == hashes[rel]:
                keep.append((rel, old_by_file.get(rel, [])))
            else:
                fresh_files.append(rel)
        self.last_texts = texts
        new_chunks: dict[str, list[Chunk]] = {
            rel: chunk_file(rel, texts[rel]) for rel in fresh_files
        }
        report.files_reparsed = len(fresh_files)
        to_embed = [c for rel in fresh_files for c in new_chunks[rel]]
        hits_before = _hits(self.embedder)
        new_vectors, failed_files = self._embed(to_embed)
        report.chunks_embedded = len(to_embed)
        report.vectors_from_cache = _hits(self.embedder) - hits_before
        self._from_cache += report.vectors_from_cache
        self._computed += len(to_embed) - report.vectors_from_cache
        # Assemble in path order so an incremental index and a fresh one line up.
        chunks: list[Chunk] = []
        rows: list[npt.NDArray[np.float32]] = []
        file_hashes: dict[str, str] = {}
        pos = 0
        kept = dict(keep)
        offsets: dict[str, int] = {}
        for rel in fresh_files:
            offsets[rel] = pos
            pos += len(new_chunks[rel])
        for rel in sorted(texts):
            if rel in kept:
                assert previous is not None
                idx = kept[rel]
                chunks.extend(previous.chunks[i] for i in idx)
                if idx:
                    rows.append(previous.vectors[idx])
                file_hashes[rel] = hashes[rel]
            else:
                n = len(new_chunks[rel])
                if rel in failed_files:
                    report.chunks_dropped += n
                    continue  # left out of file_hashes, so the next run retries it
                chunks.extend(new_chunks[rel])
                if n:
                    rows.append(new_vectors[offsets[rel] : offsets[rel] + n])
                file_hashes[rel] = hashes[rel]
        if to_embed and len(failed_files) == len({c.file_path for c in to_embed}):
            msg = f"every embedding failed for {self.root} ({self.embedder.spec})"
            raise InfrastructureError(msg)
        dim = self.embedder.dim
        vectors = np.concatenate(rows) if rows else np.zeros((0, dim), dtype=np.float32)
        built = cache_mod.Cache(self.embedder.spec, dim, file_hashes, chunks, vectors)
        cache_mod.save(self.directory, built)
        self._set(built)
        report.chunks = len(chunks)
        report.files_indexed = len({c.file_path for c in chunks})
        report.seconds = time.perf_counter() - t0
        return report

    def _embed(self, chunks: list[Chunk]) -> tuple[npt.NDArray[np.float32], set[str]]:
        dim = self.embedder.dim
        out = np.zeros((len(chunks), dim), dtype=np.float32)
        failed: set[str] = set()
        # A large tree with a real embedder takes minutes to hours: show the batches.
        for s in track(range(0, len(chunks), EMBED_BATCH), f"embedding {len(chunks)} chunks"):
            batch = chunks[s : s + EMBED_BATCH]
            try:
                vecs = self.embedder.embed([embed_text(c) for c in batch])
            except (GaiaEvalError, OSError, RuntimeError, ValueError):
                failed.update(c.file_path for c in batch)
                continue
            out[s : s + len(batch)] = vecs
        return out, failed

    def stats(self) -> dict[str, int]:
        """Chunk vectors this index needed since it was built: `vectors_from_cache` (served
        by the embedding cache, bit-identical to fresh ones) and `vectors_computed`."""
        return {"vectors_from_cache": self._from_cache, "vectors_computed": self._computed}

    # ---- searching -----------------------------------------------------------------------

    def _set(self, cache: cache_mod.Cache) -> None:
        import faiss

        index = faiss.IndexFlatL2(cache.embedding_dim)
        if len(cache.vectors):
            index.add(np.ascontiguousarray(cache.vectors))
        self._loaded, self._faiss = cache, index

    def _ensure_loaded(self) -> cache_mod.Cache:
        if self._loaded is None:
            # Search never repairs: a missing or damaged cache raises with the fix in the message.
            self._set(cache_mod.load(self.directory, embedding_model=self.embedder.spec))
        assert self._loaded is not None
        return self._loaded

    def search(self, query: str, k: int) -> list[CodeHit]:
        cache = self._ensure_loaded()
        if not cache.chunks or k <= 0:
            return []
        q = self.embedder.embed([query]).astype(np.float32)
        with one_thread():
            dist, idx = self._faiss.search(q, min(k, len(cache.chunks)))
        hits = []
        for d, i in zip(dist[0].tolist(), idx[0].tolist(), strict=True):
            if i >= 0:
                hits.append(CodeHit(cache.chunks[i], 1.0 / (1.0 + float(np.sqrt(max(d, 0.0))))))
        return hits

    def indexed_files(self) -> list[str]:
        return sorted({c.file_path for c in self._ensure_loaded().chunks})

    def entries(self) -> tuple[list[Chunk], npt.NDArray[np.float32]]:
        cache = self._ensure_loaded()
        return list(cache.chunks), cache.vectors.copy()


def _hits(embedder: Embedder) -> int:
    hits = cache_stats(embedder).get("hits", 0)
    return hits if isinstance(hits, int) else 0


def vars_of(limits: Limits) -> dict[str, object]:
    return {
        "max_files": limits.max_files,
        "max_walk_entries": limits.max_walk_entries,
        "max_file_size_mb": limits.max_file_size_mb,
    }
