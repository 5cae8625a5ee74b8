"""Build the system under test: the reference RAG system or a user's `module:factory`.

Hard cases need fresh instances (a clean cache, a capacity limit), so the benchmark
holds a `SystemMaker` rather than one system. Only the reference system accepts
settings; a user's factory is called with no arguments, as the protocol documents.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.embed import Embedder
from gaia_eval.systems.rag.protocol import Retriever

REFERENCE = "reference"
# The pr suite's embedder: real all-MiniLM-L6-v2 (int8 ONNX), CPU, no server.
DEFAULT_EMBEDDER = "onnx:all-MiniLM-L6-v2-int8"
# Sized so nothing is evicted during a benchmark run (docs/retrieval-rag.md).
RUN_SETTINGS: dict[str, Any] = {}
# The capacity_eviction hard case: three documents at most, least recently used evicted.
CAPACITY_SETTINGS: dict[str, Any] = {"max_indexed_files": 3}


@dataclass(frozen=True)
class SystemMaker:
    """Makes fresh instances of the system under test."""

    label: str
    """`reference`, or the `--system` string."""
    reference: bool
    """True for gaia_eval.systems.rag, whose cache and capacity the hard cases may use."""
    _make: Callable[..., object]

    def make(self, cache_dir: Path, **settings: Any) -> Retriever:
        """A fresh instance whose on-disk state (if any) lives in `cache_dir`."""
        if settings and not self.reference:
            msg = f"{self.label}: a --system retriever takes no settings (asked for {settings})"
            raise InvalidInputError(msg)
        cache_dir.mkdir(parents=True, exist_ok=True)
        system = self._make(cache_dir, **settings)
        if not isinstance(system, Retriever):
            missing = [
                name
                for name in (
                    "info",
                    "index",
                    "extracted_text",
                    "chunks",
                    "split_chunks",
                    "search",
                    "agent_search",
                    "close",
                )
                if not callable(getattr(system, name, None))
            ]
            msg = (
                f"{self.label} returned a {type(system).__name__}, which does not implement "
                "the Retriever protocol (gaia_eval.systems.rag.protocol); missing: "
                + ", ".join(missing)
            )
            raise InvalidInputError(msg)
        return system


def reference_maker(embedder: str, vlm: str | None = None) -> SystemMaker:
    """The reference system with `embedder`, its cache in each instance's folder.

    The embedder is loaded once and shared by every instance (the hard cases build about
    ten): embedders are stateless functions of their input, and loading a model is the
    slowest part of building a system. `vlm`: the vision model spec that reads PDF page
    images (None: off, as in the pr suite).
    """
    loaded: list[Embedder] = []

    def make(cache_dir: Path, **settings: Any) -> Retriever:
        from gaia_eval.embed import from_spec
        from gaia_eval.systems.rag.system import RagSystem
        from gaia_eval.systems.rag.vlm import VisionModel

        if not loaded:
            loaded.append(from_spec(embedder))
        reader = VisionModel(vlm) if vlm else None
        system: Retriever = RagSystem(
            loaded[0], cache_dir, **{**RUN_SETTINGS, **settings}, vlm=reader
        )
        return system

    return SystemMaker(REFERENCE, True, make)


def plugin_maker(spec: str) -> SystemMaker:
    """A user's retriever from `module:factory` (the factory takes no arguments)."""
    from gaia_eval.core.plugins import load_factory

    def make(cache_dir: Path, **settings: Any) -> Retriever:
        system: Retriever = load_factory(spec)
        return system

    return SystemMaker(spec, False, make)
