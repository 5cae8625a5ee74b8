"""The `CodeIndex` protocol: what the code-retrieval benchmark needs from any code search.

The reference system (`ReferenceCodeIndex`) implements it. A user's own index plugs in with
`--system module:factory`: `factory()` (no arguments, like every `--system` plug-in) returns a
builder, and `builder(root, cache_dir, embedder)` returns an object satisfying this protocol
for one tree (the benchmark builds one per repository and per replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Chunk:
    """One indexed piece of a source file."""

    file_path: str
    """Root-relative POSIX path."""
    start_line: int
    """1-based first line (decorators included for a def)."""
    end_line: int
    """1-based last line, inclusive."""
    content: str
    symbol_name: str | None = None
    """Qualified name (`Session.request`), with ' (part i/n)' when a long symbol was split."""
    symbol_type: str | None = None
    """`function`, `method`, `class`, `module` or None (fallback chunks)."""
    language: str = "text"


@dataclass(frozen=True)
class CodeHit:
    """One search result."""

    chunk: Chunk
    score: float


@dataclass
class IndexReport:
    """What one `index()` call did."""

    files_discovered: int = 0
    files_indexed: int = 0
    """Files holding at least one chunk after this call."""
    files_reparsed: int = 0
    """Files parsed and embedded again (new or changed since the cache)."""
    chunks: int = 0
    chunks_embedded: int = 0
    """Chunks that needed a vector this call (new or changed files)."""
    vectors_from_cache: int = 0
    """Of those, vectors served by the embedding cache (bit-identical to a fresh one)."""
    chunks_dropped: int = 0
    discovery_truncated: bool = False
    limits_hit: list[str] = field(default_factory=list)
    """Which scan limits stopped discovery early (`max_files`, `max_walk_entries`)."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Files not indexed, by reason (`binary`, `too-large`, `sensitive`, `outside-root`...)."""
    cache_state: str = "fresh"
    """`fresh` (no cache), `reused`, or `rebuilt: <why>` (a damaged/foreign cache dropped)."""
    seconds: float = 0.0


@dataclass(frozen=True)
class CodeIndexInfo:
    """Settings recorded in results; gates compare `embedder`."""

    name: str
    embedder: str
    extra: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class CodeIndex(Protocol):
    """A code index over one tree under test."""

    def info(self) -> CodeIndexInfo: ...

    def index(self) -> IndexReport:
        """Index (or incrementally re-index) the tree; only changed files are re-embedded."""
        ...

    def search(self, query: str, k: int) -> list[CodeHit]:
        """Top-k chunks, best first. A damaged or missing index raises; never an empty answer."""
        ...

    def indexed_files(self) -> list[str]:
        """Root-relative paths of the files that hold chunks, sorted."""
        ...

    def entries(self) -> tuple[list[Chunk], npt.NDArray[np.float32]]:
        """Every chunk with its vector (row i belongs to chunk i), for replay comparisons."""
        ...


__all__ = ["Chunk", "CodeHit", "CodeIndex", "CodeIndexInfo", "IndexReport"]
