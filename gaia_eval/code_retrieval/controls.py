"""A deliberately weaker code index: the benchmark (and `gaia-eval compare`) must tell it
from the reference.

`lexical` (`--system gaia_eval.code_retrieval.controls:lexical`) indexes exactly as the
reference system does (same chunks, cache and embedder, so every incremental and robustness
check sees the same index) but answers `search` with the suite's grep baseline instead of
the vectors: files ranked by the rarity of the query's identifiers (code_retrieval.lexical),
and within each file the chunks holding those identifiers, best first. It is the "lexical"
side of a lexical-vs-semantic comparison run through the semantic slot of the suite.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from gaia_eval.code_retrieval.lexical import LexicalBaseline
from gaia_eval.embed import Embedder
from gaia_eval.systems.code_index.index import ReferenceCodeIndex
from gaia_eval.systems.code_index.protocol import Chunk, CodeHit, CodeIndexInfo, IndexReport


class LexicalCodeIndex:
    """The reference index searched by grep."""

    def __init__(self, root: Path, cache_dir: Path, embedder: Embedder) -> None:
        self.root = Path(root)
        self._inner = ReferenceCodeIndex(root, cache_dir, embedder)

    def info(self) -> CodeIndexInfo:
        inner = self._inner.info()
        return CodeIndexInfo(name="control:lexical", embedder=inner.embedder, extra=inner.extra)

    def index(self) -> IndexReport:
        return self._inner.index()

    def search(self, query: str, k: int) -> list[CodeHit]:
        chunks, _ = self._inner.entries()  # a damaged or missing index raises here
        if not chunks or k <= 0:
            return []
        by_file: dict[str, list[Chunk]] = {}
        for c in chunks:
            by_file.setdefault(c.file_path, []).append(c)
        spans = {
            p: [(c.start_line, c.end_line, c.symbol_name) for c in cs if c.symbol_name]
            for p, cs in by_file.items()
        }
        found = LexicalBaseline.from_tree(self.root, list(by_file)).search(query, spans)
        sym_rank: dict[tuple[str, str | None], float] = {(p, q): s for p, q, s in found.symbols}
        hits: list[CodeHit] = []
        for path, score in found.files:
            named = [c for c in by_file[path] if (path, c.symbol_name) in sym_rank]
            named.sort(key=lambda c: -sym_rank[(path, c.symbol_name)])
            for c in named or by_file[path][:1]:
                hits.append(CodeHit(c, float(sym_rank.get((path, c.symbol_name), score))))
                if len(hits) == k:
                    return hits
        return hits

    def indexed_files(self) -> list[str]:
        return self._inner.indexed_files()

    def entries(self) -> tuple[list[Chunk], npt.NDArray[np.float32]]:
        return self._inner.entries()


def lexical() -> Callable[[Path, Path, Embedder], LexicalCodeIndex]:
    return LexicalCodeIndex
