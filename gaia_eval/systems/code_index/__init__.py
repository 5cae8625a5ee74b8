"""The reference code index: safe discovery, Python `ast` chunks, FAISS, a checked cache.

`ReferenceCodeIndex(root, cache_dir, embedder)` satisfies the `CodeIndex` protocol; a user's
own index plugs into the benchmark with `--system module:factory` (see `protocol.py`).
"""

from __future__ import annotations

from gaia_eval.systems.code_index.discovery import Limits, discover, read_source
from gaia_eval.systems.code_index.index import ReferenceCodeIndex
from gaia_eval.systems.code_index.protocol import (
    Chunk,
    CodeHit,
    CodeIndex,
    CodeIndexInfo,
    IndexReport,
)

__all__ = [
    "Chunk",
    "CodeHit",
    "CodeIndex",
    "CodeIndexInfo",
    "IndexReport",
    "Limits",
    "ReferenceCodeIndex",
    "discover",
    "read_source",
]
