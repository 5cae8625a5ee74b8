"""The `Retriever` protocol: what the RAG benchmark needs from any document Q&A system.

The reference system (`gaia_eval.systems.rag`) implements it; a user's own retriever
plugs in with `--system module:factory`, where the factory takes no arguments (or reads
its own configuration) and returns an object satisfying this protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

IndexStatus = Literal["indexed", "cached", "empty", "failed", "degraded"]


@dataclass(frozen=True)
class IndexResult:
    """What indexing one file did."""

    path: str
    """The file, as given to `index`."""
    status: IndexStatus
    """`indexed` (fresh), `cached` (served from the chunk cache), `empty` (nothing to index,
    e.g. an image-only PDF without a vision model), `failed`, or `degraded` (indexed, but the
    extractor could not read all of it, e.g. a truncated PDF)."""
    chunks: int = 0
    pages: int = 0
    from_cache: bool = False
    error: str | None = None
    """Why the file is empty, failed or degraded; actionable."""
    evicted: tuple[str, ...] = ()
    """Paths evicted (least recently used) to stay under the capacity limit."""
    already_indexed: bool = False
    """True when the path was indexed before with the same content and nothing changed."""
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    """Informational remarks that do not change the status (a rejected cache entry that
    was rebuilt, pages that are images without text, a latin-1 fallback)."""


@dataclass(frozen=True)
class SearchHit:
    """One retrieved chunk."""

    path: str
    """The file the chunk came from (as given to `index`)."""
    chunk_index: int
    """Position of the chunk among that file's chunks (document order)."""
    text: str
    score: float


@dataclass(frozen=True)
class RetrieverInfo:
    """Settings recorded in results; gates compare `embedder` and `vlm`."""

    name: str
    embedder: str
    """The embedder spec string (`onnx:...`, `hash`, ...)."""
    chunk_size: int | None = None
    chunk_overlap: int | None = None
    max_chunks: int | None = None
    vlm: str | None = None
    """Vision model used for PDF images, or None when off."""
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class Retriever(Protocol):
    """A document retriever under test."""

    def info(self) -> RetrieverInfo: ...

    def index(self, path: Path) -> IndexResult:
        """Index (or re-index, when its content changed) one file."""
        ...

    def extracted_text(self, path: Path) -> str:
        """The text the system extracted from `path`, with `[Page N]` markers for paged
        documents. Chunks must be substrings of it once whitespace is collapsed."""
        ...

    def chunks(self, path: Path) -> list[str]:
        """The file's chunk texts in document order (index i = `SearchHit.chunk_index`)."""
        ...

    def split_chunks(self, path: Path) -> set[int]:
        """Indices of chunks that were split to fit the embedder (their successor's
        overlap may start before the split tail). Empty for systems that never split."""
        ...

    def search(self, query: str, k: int) -> list[SearchHit]:
        """The `sdk` pipeline: plain dense top-k."""
        ...

    def agent_search(self, query: str) -> list[SearchHit]:
        """The `agent` pipeline: what a chat agent's document tool returns (at most
        `max_chunks`), after key expansion, keyword boost and an adaptive cutoff."""
        ...

    def close(self) -> None: ...
