"""A small user retriever for `--system module:factory` tests.

It is a real retriever (hash embedder, word-window chunks, exhaustive dot-product search),
written the way a user would write one against the documented protocol. Variants make
the hard cases and the crash handling observable.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from gaia_eval.embed.hashing import HashEmbedder
from gaia_eval.systems.rag.protocol import IndexResult, RetrieverInfo, SearchHit

WINDOW = 40
OVERLAP = 10


class ToySystem:
    def __init__(
        self,
        *,
        crash_after: int | None = None,
        stale: bool = False,
        pdf_blind: bool = False,
        fragile: bool = False,
    ) -> None:
        self._embedder = HashEmbedder(256)
        self._texts: dict[str, str] = {}
        self._chunks: dict[str, list[str]] = {}
        self._vectors: dict[str, np.ndarray] = {}
        self._crash_after = crash_after
        self._stale = stale
        self._pdf_blind = pdf_blind
        self._fragile = fragile
        self.queries = 0

    def info(self) -> RetrieverInfo:
        return RetrieverInfo(
            name="toy", embedder="hash:256", chunk_size=WINDOW, chunk_overlap=OVERLAP, max_chunks=3
        )

    def index(self, path: Path) -> IndexResult:
        key = str(path)
        if self._stale and key in self._texts:
            return IndexResult(key, "cached", chunks=len(self._chunks[key]), already_indexed=True)
        if path.suffix.lower() == ".pdf":
            if self._pdf_blind:  # indexes an unreadable file as empty text: the bug to catch
                self._store(key, "")
                return IndexResult(key, "indexed", chunks=0)
            return IndexResult(key, "failed", error="toy system reads text files only")
        text = path.read_text(encoding="utf-8")
        if self._fragile and key in self._texts and self._texts[key] != text:
            msg = "toy index cannot replace a document"  # the bug that crashes a hard case
            raise RuntimeError(msg)
        self._store(key, text)
        return IndexResult(key, "indexed", chunks=len(self._chunks[key]))

    def _store(self, key: str, text: str) -> None:
        words = text.split()
        chunks = [
            " ".join(words[i : i + WINDOW])
            for i in range(0, max(len(words) - OVERLAP, 1), WINDOW - OVERLAP)
            if words[i : i + WINDOW]
        ]
        self._texts[key] = text
        self._chunks[key] = chunks
        self._vectors[key] = self._embedder.embed(chunks) if chunks else np.zeros((0, 256))

    def extracted_text(self, path: Path) -> str:
        return self._texts[str(path)]

    def chunks(self, path: Path) -> list[str]:
        return list(self._chunks[str(path)])

    def split_chunks(self, path: Path) -> set[int]:
        return set()

    def search(self, query: str, k: int) -> list[SearchHit]:
        self.queries += 1
        if self._crash_after is not None and self.queries > self._crash_after:
            msg = "toy index lost its vectors"
            raise RuntimeError(msg)
        q = self._embedder.embed([query])[0]
        scored = []
        for key, vecs in self._vectors.items():
            for i, score in enumerate((vecs @ q).tolist()):
                scored.append((-score, key, i))
        scored.sort()
        return [SearchHit(key, i, self._chunks[key][i], -s) for s, key, i in scored[:k]]

    def agent_search(self, query: str) -> list[SearchHit]:
        return self.search(query, 3)

    def close(self) -> None:
        pass


def make() -> ToySystem:
    return ToySystem()


def make_crashing() -> ToySystem:
    return ToySystem(crash_after=4)  # search runs twice per question (sdk, agent)


def make_stale() -> ToySystem:
    return ToySystem(stale=True)


def make_pdf_blind() -> ToySystem:
    return ToySystem(pdf_blind=True)


def make_fragile() -> ToySystem:
    return ToySystem(fragile=True)


class SlowToySystem(ToySystem):
    """Signals its first query by creating $TOY_MARKER, then answers slowly."""

    def search(self, query: str, k: int) -> list[SearchHit]:
        marker = os.environ.get("TOY_MARKER")
        if marker:
            Path(marker).touch()
        time.sleep(0.3)
        return super().search(query, k)


def make_slow() -> ToySystem:
    return SlowToySystem()


def not_a_retriever() -> object:
    return object()
