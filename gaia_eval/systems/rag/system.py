"""`RagSystem`: the reference retriever (extraction, chunks, embedder, FAISS, two pipelines).

Index: one FAISS `IndexIDMap2(IndexFlatIP)` over every document's chunk vectors (exact
inner product of L2-normalised vectors = cosine), plus a BM25 index over the same chunks.
Documents are keyed by resolved path; re-indexing a path whose bytes changed removes the
old vectors before the new ones are added, so stale text is never served.

Capacity: at most `max_indexed_files` documents and `max_total_chunks` chunks. With
`lru=True` the least recently used documents (last indexed or returned by a search) are
evicted and named in `IndexResult.evicted`; with `lru=False` a file that does not fit fails.

Ordering and duplicates (both pipelines): hits sort by score, then by the order in which
their documents were first indexed, then by chunk index, so results are deterministic.
Chunks whose text is identical to a higher-ranked hit are dropped: an identical copy of a
document under another name must not fill the result list twice.

`sdk` pipeline (`search(query, k)`): embed the query, dense top-k.

`agent` pipeline (`agent_search(query)`), what a chat agent's document tool returns:
1. Search keys: the query plus expansions from `lexical.search_keys` (quoted phrases, the
   question's content words, its numbers/identifiers/names), embedded in one batch.
2. Candidates: the union of each key's dense top-`pool` and BM25's top-`pool`.
3. Score: dense = max over keys of cosine (expansions weighted `expansion_weight`), plus
   `keyword_weight` x BM25 / (best BM25 among candidates): a keyword boost that lets an
   exact number or identifier outrank a vaguely similar passage.
4. Adaptive cutoff: keep hits scoring at least `cutoff_ratio` x the best, at most
   `max_chunks` (5), at least one.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.embed import Embedder, cache_stats, describe, embed_uncached, from_spec
from gaia_eval.systems._faiss import one_thread
from gaia_eval.systems.rag.cache import ChunkCache, Entry, entry_key
from gaia_eval.systems.rag.chunker import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    chunk_text,
)
from gaia_eval.systems.rag.extract import EXTRACTOR_VERSION, extract
from gaia_eval.systems.rag.lexical import BM25, search_keys
from gaia_eval.systems.rag.protocol import IndexResult, RetrieverInfo, SearchHit

if TYPE_CHECKING:
    from gaia_eval.systems.rag.vlm import VisionModel

DEFAULT_MAX_CHUNKS = 5
DEFAULT_MAX_FILES = 1_000_000
DEFAULT_MAX_TOTAL_CHUNKS = 100_000_000


@dataclass(frozen=True)
class AgentSettings:
    """Knobs of the agent pipeline (recorded in `info().extra`)."""

    pool: int = 30
    expansion_weight: float = 0.9
    keyword_weight: float = 0.25
    cutoff_ratio: float = 0.7


@dataclass
class _Doc:
    path: str
    content_sha256: str
    seq: int
    last_used: int
    status: str
    pages: int
    text: str
    chunks: list[str]
    split: set[int]
    vectors: npt.NDArray[np.float32]
    ids: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    cache_key: str = ""


class RagSystem:
    """The reference `Retriever` (see the module docstring for the algorithms)."""

    def __init__(
        self,
        embedder: Embedder,
        cache_dir: Path,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        max_chunks: int = DEFAULT_MAX_CHUNKS,
        max_indexed_files: int = DEFAULT_MAX_FILES,
        max_total_chunks: int = DEFAULT_MAX_TOTAL_CHUNKS,
        lru: bool = True,
        agent: AgentSettings | None = None,
        vlm: VisionModel | None = None,
    ) -> None:
        import faiss

        if chunk_size <= 0 or not 0 <= chunk_overlap < chunk_size:
            msg = (
                f"chunk_size={chunk_size}, chunk_overlap={chunk_overlap}: need 0 <= overlap < size"
            )
            raise InvalidInputError(msg)
        if max_chunks < 1 or max_indexed_files < 1 or max_total_chunks < 1:
            msg = "max_chunks, max_indexed_files and max_total_chunks must be at least 1"
            raise InvalidInputError(msg)
        self.embedder = embedder
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self.max_chunks = max_chunks
        self.max_indexed_files = max_indexed_files
        self.max_total_chunks = max_total_chunks
        self.lru = lru
        self.agent = agent or AgentSettings()
        self.vlm = vlm
        """Reads PDF pages that are images (None: such pages are not read)."""
        self.cache = ChunkCache(Path(cache_dir))
        self._faiss: Any = faiss.IndexIDMap2(faiss.IndexFlatIP(embedder.dim))
        self._bm25 = BM25()
        self._docs: dict[str, _Doc] = {}
        self._owner: dict[int, tuple[str, int]] = {}
        self._next_id = 0
        self._clock = 0
        self._seq = 0
        # [from cache, computed] for chunk vectors (index) and query vectors (search),
        # counted around this system's own calls: the embedder may be shared.
        self._vector_counts = {"chunk": [0, 0], "query": [0, 0]}

    @classmethod
    def create(cls, embedder_spec: str, cache_dir: Path, **settings: Any) -> RagSystem:
        """Build from an embedder spec (`onnx:...`, `hash`, ...) and keyword settings."""
        return cls(from_spec(embedder_spec), Path(cache_dir), **settings)

    # ---- protocol: info ----------------------------------------------------------------

    def _settings(self) -> dict[str, object]:
        fit = getattr(self.embedder, "max_tokens", None)
        return {
            "embedder": self.embedder.spec,
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            "max_tokens": fit,
            "extractor": EXTRACTOR_VERSION,
            "vlm": self.vlm.spec if self.vlm is not None else None,
        }

    def info(self) -> RetrieverInfo:
        a = self.agent
        return RetrieverInfo(
            name="gaia_eval.systems.rag",
            embedder=self.embedder.spec,
            chunk_size=self.chunk_size,
            chunk_overlap=self.chunk_overlap,
            max_chunks=self.max_chunks,
            vlm=self.vlm.spec if self.vlm is not None else None,
            extra={
                "embedder_describe": describe(self.embedder),
                "chunk_units": "words; split at [Page N] markers; pieces cut to max tokens",
                "max_indexed_files": self.max_indexed_files,
                "max_total_chunks": self.max_total_chunks,
                "lru": self.lru,
                "agent": {
                    "pool": a.pool,
                    "expansion_weight": a.expansion_weight,
                    "keyword_weight": a.keyword_weight,
                    "cutoff_ratio": a.cutoff_ratio,
                },
            },
        )

    # ---- protocol: indexing ------------------------------------------------------------

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def index(self, path: Path) -> IndexResult:
        t0 = time.perf_counter()
        given = str(path)
        key = str(Path(path).resolve())
        try:
            data = Path(path).read_bytes()
        except OSError as err:
            self._remove(key)
            return IndexResult(
                given, "failed", error=f"{given}: cannot read: {err.strerror or err}"
            )
        sha = hashlib.sha256(data).hexdigest()
        old = self._docs.get(key)
        if old is not None and old.content_sha256 == sha:
            old.last_used = self._tick()
            old.path = given
            return IndexResult(
                given,
                "degraded" if old.status == "degraded" else "indexed",
                chunks=len(old.chunks),
                pages=old.pages,
                already_indexed=True,
                seconds=time.perf_counter() - t0,
            )

        settings = self._settings()
        ckey = entry_key(sha, settings)
        entry, rejected = self.cache.load(ckey, settings)
        notes: list[str] = []
        if rejected:
            notes.append(f"chunk cache entry rejected: {rejected}; rebuilt")
        from_cache = entry is not None
        if entry is None:
            ex = extract(Path(path), data, self.vlm)
            notes.extend(ex.notes)
            if ex.status in ("empty", "failed"):
                self._remove(key)  # the path's old content must not be served
                return IndexResult(
                    given,
                    ex.status,
                    pages=ex.pages,
                    error=ex.error,
                    notes=tuple(notes),
                    seconds=time.perf_counter() - t0,
                )
            chunking = chunk_text(ex.text, self.chunk_size, self.chunk_overlap, self.embedder)
            vectors = self._embed_unique(chunking.chunks) if chunking.chunks else None
            if vectors is None:
                self._remove(key)
                return IndexResult(
                    given, "empty", pages=ex.pages, error=f"{given}: no text to index"
                )
            entry = Entry(
                text=ex.text,
                status="degraded" if ex.status == "degraded" else "indexed",
                pages=ex.pages,
                error=ex.error,
                notes=ex.notes,
                chunks=chunking.chunks,
                split=chunking.split,
                vectors=np.ascontiguousarray(vectors, dtype=np.float32),
            )
            self.cache.store(ckey, settings, entry)
        else:
            notes.extend(entry.notes)

        replaced = old is not None
        seq = old.seq if old is not None else self._next_seq()
        self._remove(key)
        evicted, refusal = self._make_room(len(entry.chunks))
        if refusal is not None:
            return IndexResult(given, "failed", error=refusal, seconds=time.perf_counter() - t0)
        doc = _Doc(
            path=given,
            content_sha256=sha,
            seq=seq,
            last_used=self._tick(),
            status=entry.status,
            pages=entry.pages,
            text=entry.text,
            chunks=entry.chunks,
            split=entry.split,
            vectors=entry.vectors,
            cache_key=ckey,
        )
        self._add(key, doc)
        if replaced:
            notes.append("content changed since the last index; old chunks removed")
        status = entry.status
        if from_cache and status == "indexed":
            status = "cached"
        return IndexResult(
            given,
            status,  # type: ignore[arg-type]
            chunks=len(entry.chunks),
            pages=entry.pages,
            from_cache=from_cache,
            error=entry.error,
            evicted=tuple(evicted),
            notes=tuple(notes),
            seconds=time.perf_counter() - t0,
        )

    def _embed(self, texts: list[str], kind: str) -> npt.NDArray[np.float32]:
        if kind == "query":
            # Queries are embedded cold (the spec's rule): on a warm run a cached query
            # vector would make query latency time a cache lookup. Indexing may use it.
            vecs = embed_uncached(self.embedder, texts)
            self._vector_counts["query"][1] += len(texts)
            return vecs
        before = self._cache_counts()
        vecs = self.embedder.embed(texts)
        after = self._cache_counts()
        counts = self._vector_counts[kind]
        counts[0] += after[0] - before[0]
        counts[1] += after[1] - before[1]
        return vecs

    def _embed_unique(self, texts: list[str]) -> npt.NDArray[np.float32]:
        # Repeated boilerplate (headers, table rows) is embedded once per file.
        unique = list(dict.fromkeys(texts))
        vecs = self._embed(unique, "chunk")
        if len(unique) == len(texts):
            return np.ascontiguousarray(vecs, dtype=np.float32)
        row = {t: i for i, t in enumerate(unique)}
        return np.ascontiguousarray(vecs[[row[t] for t in texts]], dtype=np.float32)

    def reindex(self, path: Path) -> IndexResult:
        """Forget `path` and index it again (served from the chunk cache when unchanged)."""
        self._remove(str(Path(path).resolve()))
        return self.index(path)

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _add(self, key: str, doc: _Doc) -> None:
        n = len(doc.chunks)
        doc.ids = np.arange(self._next_id, self._next_id + n, dtype=np.int64)
        self._next_id += n
        if n:
            self._faiss.add_with_ids(doc.vectors, doc.ids)
        for i, (cid, text) in enumerate(zip(doc.ids.tolist(), doc.chunks, strict=True)):
            self._owner[cid] = (key, i)
            self._bm25.add(cid, text)
        self._docs[key] = doc

    def _remove(self, key: str) -> None:
        doc = self._docs.pop(key, None)
        if doc is None:
            return
        if len(doc.ids):
            self._faiss.remove_ids(doc.ids)
        for cid, text in zip(doc.ids.tolist(), doc.chunks, strict=True):
            self._owner.pop(cid, None)
            self._bm25.remove(cid, text)

    def _make_room(self, incoming_chunks: int) -> tuple[list[str], str | None]:
        evicted: list[str] = []

        def full() -> bool:
            total = sum(len(d.chunks) for d in self._docs.values())
            return (
                len(self._docs) + 1 > self.max_indexed_files
                or total + incoming_chunks > self.max_total_chunks
            )

        if incoming_chunks > self.max_total_chunks:
            return [], f"{incoming_chunks} chunks exceed max_total_chunks={self.max_total_chunks}"
        while self._docs and full():
            if not self.lru:
                msg = (
                    f"capacity reached (max_indexed_files={self.max_indexed_files}, "
                    f"max_total_chunks={self.max_total_chunks}); raise the limits or enable LRU"
                )
                return evicted, msg
            victim = min(self._docs, key=lambda k: (self._docs[k].last_used, k))
            evicted.append(self._docs[victim].path)
            self._remove(victim)
        return evicted, None

    # ---- protocol: per-document views --------------------------------------------------

    def _doc(self, path: Path) -> _Doc:
        doc = self._docs.get(str(Path(path).resolve()))
        if doc is None:
            msg = f"{path}: not indexed (index() it first; it may have failed or been evicted)"
            raise InvalidInputError(msg)
        return doc

    def extracted_text(self, path: Path) -> str:
        return self._doc(path).text

    def chunks(self, path: Path) -> list[str]:
        return list(self._doc(path).chunks)

    def split_chunks(self, path: Path) -> set[int]:
        return set(self._doc(path).split)

    def indexed_paths(self) -> list[str]:
        """Paths currently indexed, in first-index order."""
        return [d.path for d in sorted(self._docs.values(), key=lambda d: d.seq)]

    def cache_entry(self, path: Path) -> Path | None:
        """The chunk-cache JSON serving `path` (for tests and the cache hard case)."""
        doc = self._docs.get(str(Path(path).resolve()))
        return self.cache.json_path(doc.cache_key) if doc is not None else None

    def _cache_counts(self) -> tuple[int, int]:
        counts = cache_stats(self.embedder)
        hits, misses = counts.get("hits", 0), counts.get("misses", 0)
        return (hits if isinstance(hits, int) else 0, misses if isinstance(misses, int) else 0)

    def stats(self) -> dict[str, float | int]:
        """Index size figures for the benchmark's build stats, and where this system's
        vectors came from since it was built: `vectors_from_cache` (chunk vectors served by
        the embedding cache, bit-identical to a fresh computation), `vectors_computed`
        (chunk vectors the model computed) and the same two for search queries; absent for
        an embedder that is not cached."""
        n = int(self._faiss.ntotal)
        out: dict[str, float | int] = {
            "documents": len(self._docs),
            "chunks": n,
            "embedding_dim": int(self.embedder.dim),
            "vectors_mb": n * int(self.embedder.dim) * 4 / 1e6,
            "chunk_text_mb": sum(len(c.encode()) for d in self._docs.values() for c in d.chunks)
            / 1e6,
            "cache_on_disk_mb": self.cache.size_bytes() / 1e6,
        }
        if cache_stats(self.embedder):
            chunk, query = self._vector_counts["chunk"], self._vector_counts["query"]
            out["vectors_from_cache"], out["vectors_computed"] = chunk
            out["query_vectors_from_cache"], out["query_vectors_computed"] = query
        return out

    # ---- protocol: search --------------------------------------------------------------

    def _hit(self, cid: int, score: float) -> tuple[float, int, int, int]:
        key, i = self._owner[cid]
        return (-score, self._docs[key].seq, i, cid)

    def _rank(
        self, scored: dict[int, float], limit: int, ratio: float | None = None
    ) -> list[SearchHit]:
        """Order, drop duplicate texts, keep `limit` (and, given `ratio`, only hits within
        `ratio` x the best score); the documents returned count as used (LRU)."""
        order = sorted(self._hit(cid, s) for cid, s in scored.items())
        seen: set[str] = set()
        out: list[SearchHit] = []
        used: set[str] = set()
        for neg, _seq, i, cid in order:
            key, _ = self._owner[cid]
            doc = self._docs[key]
            text = doc.chunks[i]
            if text in seen:
                continue
            if ratio is not None and out and out[0].score > 0 and -neg < out[0].score * ratio:
                break
            seen.add(text)
            used.add(key)
            out.append(SearchHit(doc.path, i, text, float(-neg)))
            if len(out) == limit:
                break
        tick = self._tick()
        for key in used:
            self._docs[key].last_used = tick
        return out

    def _dense(self, queries: npt.NDArray[np.float32], depth: int) -> list[dict[int, float]]:
        depth = min(depth, int(self._faiss.ntotal))
        if depth == 0:
            return [{} for _ in range(len(queries))]
        with one_thread():
            scores, ids = self._faiss.search(np.ascontiguousarray(queries), depth)
        return [
            {int(c): float(s) for c, s in zip(row_ids, row_s, strict=True) if c >= 0}
            for row_ids, row_s in zip(ids, scores, strict=True)
        ]

    def search(self, query: str, k: int) -> list[SearchHit]:
        if k < 1 or not self._docs:
            return []
        q = self._embed([query], "query")
        depth = k
        while True:
            # Over-fetch so duplicates dropped and ties at the boundary still leave k.
            depth = min(2 * depth + 10, int(self._faiss.ntotal))
            hits = self._rank(self._dense(q, depth)[0], k)
            if len(hits) == k or depth >= int(self._faiss.ntotal):
                return hits

    def agent_search(self, query: str) -> list[SearchHit]:
        if not self._docs:
            return []
        a = self.agent
        keys = [query, *search_keys(query)]
        weights = np.array([1.0] + [a.expansion_weight] * (len(keys) - 1), dtype=np.float32)
        qv = self._embed(keys, "query")
        candidates: set[int] = set()
        for found in self._dense(qv, a.pool):
            candidates.update(found)
        lexical = self._bm25.scores(query)
        top_lex = sorted(lexical.items(), key=lambda kv: (-kv[1], kv[0]))[: a.pool]
        candidates.update(cid for cid, _ in top_lex)
        if not candidates:
            return []
        best_lex = max((lexical.get(c, 0.0) for c in candidates), default=0.0)
        scored: dict[int, float] = {}
        for cid in candidates:
            key, i = self._owner[cid]
            vec = self._docs[key].vectors[i]
            dense = float(np.max((qv @ vec) * weights))
            boost = lexical.get(cid, 0.0) / best_lex if best_lex > 0 else 0.0
            scored[cid] = dense + a.keyword_weight * boost
        return self._rank(scored, self.max_chunks, ratio=a.cutoff_ratio)

    def close(self) -> None:
        self._docs.clear()
        self._owner.clear()
        self._faiss.reset()
        closer = getattr(self.embedder, "close", None)
        if callable(closer):
            closer()
