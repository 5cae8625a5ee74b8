"""The reference RAG system: extraction, chunking, embedding, FAISS, two pipelines.

Plugging in your own retriever
------------------------------
The benchmark talks to any object satisfying `gaia_eval.systems.rag.protocol.Retriever`:

    info() -> RetrieverInfo                 name, embedder spec, chunk settings, vlm
    index(path) -> IndexResult              index or re-index one file
    extracted_text(path) -> str             the text your chunks come from ([Page N] markers)
    chunks(path) -> list[str]               chunk texts in document order
    split_chunks(path) -> set[int]          chunks cut to fit your embedder (or empty)
    search(query, k) -> list[SearchHit]     the `sdk` pipeline: plain top-k
    agent_search(query) -> list[SearchHit]  the `agent` pipeline: what your tool returns
    close() -> None

Write a module with a factory that takes no arguments (read your own configuration from
the environment or a file) and run `gaia-eval retrieval --component rag --system
mypkg.myretriever:make`. Each chunk must be an exact substring of the extracted text once
whitespace runs are collapsed to one space (`" ".join(text.split())`), because evidence is
located by searching for chunks in that text.

The reference system
--------------------
`RagSystem.create(embedder_spec, cache_dir, **settings)` (see `system.py`), or the
no-argument factory `gaia_eval.systems.rag:default_system`, which reads
`GAIA_EVAL_EMBEDDER` (default `onnx:all-MiniLM-L6-v2-int8`) and `GAIA_EVAL_RAG_CACHE`
(default `$GAIA_EVAL_CACHE/rag-chunks`, else `~/.cache/gaia-eval/rag-chunks`).
Beyond the protocol it offers `reindex(path)`, `indexed_paths()`, `stats()` (index size
figures) and `cache_entry(path)` (the signed chunk-cache JSON serving a file).

Defaults: 100-word chunks with 20 words of overlap, never spanning a `[Page N]` marker
(markers are left out of chunks), cut further where the embedder's token limit requires
(reported by `split_chunks`); agent pipeline at most 5 chunks.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.systems.rag.protocol import (
    IndexResult,
    Retriever,
    RetrieverInfo,
    SearchHit,
)

if TYPE_CHECKING:
    from gaia_eval.systems.rag.system import RagSystem

DEFAULT_EMBEDDER = "onnx:all-MiniLM-L6-v2-int8"

__all__ = [
    "DEFAULT_EMBEDDER",
    "IndexResult",
    "Retriever",
    "RetrieverInfo",
    "SearchHit",
    "default_cache_dir",
    "default_system",
]


def default_cache_dir() -> Path:
    """Where the reference system keeps its chunk cache unless told otherwise."""
    explicit = os.environ.get("GAIA_EVAL_RAG_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    from gaia_eval.core.cachedir import cache_root

    return cache_root() / "rag-chunks"


def default_system(
    embedder: str | None = None, cache_dir: Path | None = None, **settings: Any
) -> RagSystem:
    """The reference system with default settings (a `--system` factory: no arguments
    needed). `embedder` defaults to `$GAIA_EVAL_EMBEDDER` or the onnx MiniLM."""
    from gaia_eval.systems.rag.system import RagSystem

    spec = embedder or os.environ.get("GAIA_EVAL_EMBEDDER") or DEFAULT_EMBEDDER
    return RagSystem.create(spec, cache_dir or default_cache_dir(), **settings)
