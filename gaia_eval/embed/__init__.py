"""Embedders behind one interface, chosen by a spec string recorded in every result.

Specs: `hash[:<dim>]`, `onnx:<model>`, `openai:<base_url>#<model>`,
`sentence-transformers:<model>`. Gates refuse to compare results of different specs.

Embedders whose vectors are a pure function of the text and a pinned checkpoint (`onnx:`)
keep them in the content-addressed cache of `gaia_eval.embed.cache`; `cache_stats` says
how many came from it. Cached and fresh vectors are bit-identical, so runs compare either way.
"""

from __future__ import annotations

import threading
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import InvalidInputError


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def spec(self) -> str:
        """The spec string that recreates this embedder; recorded in results."""
        ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Shape (len(texts), dim), rows L2-normalised (a zero row for empty text)."""
        ...


@runtime_checkable
class TokenLimited(Protocol):
    """An embedder that truncates long inputs; the chunker splits chunks to fit it."""

    @property
    def max_tokens(self) -> int:
        """Model input limit, special tokens included."""
        ...

    def fit_prefixes(self, texts: list[str]) -> list[int]:
        """For each text, the length in characters of its longest prefix that fits the
        model without truncation and ends at a whitespace boundary (or at the text's end);
        `len(text)` when the whole text fits. When not even the first word fits, a cut
        at a token boundary inside it, or 0 if the embedder cannot tell."""
        ...


class Serialized:
    """An embedder shared by items in flight (`--jobs`): its calls run one at a time.
    Embedding is CPU-bound (nothing to gain from overlapping it on a small machine), and
    an embedder's tokenizer, session and cache connection need not be thread-safe. Every
    other attribute is the embedder's own, so the protocol checks still see it."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._lock = threading.Lock()

    @property
    def spec(self) -> str:
        return self._inner.spec

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        with self._lock:
            return self._inner.embed(texts)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr
        lock = self._lock

        def call(*args: Any, **kwargs: Any) -> Any:
            with lock:
                return attr(*args, **kwargs)

        return call


def describe(embedder: Embedder) -> dict[str, str]:
    """`{model, checkpoint, device, recipe}` recorded in results (the spec when unknown)."""
    fn = getattr(embedder, "describe", None)
    if callable(fn):
        out = fn()
        if isinstance(out, dict):
            return {str(k): str(v) for k, v in out.items()}
    return {"model": embedder.spec, "checkpoint": "", "device": "", "recipe": ""}


def cache_stats(embedder: Embedder) -> dict[str, object]:
    """The embedding cache's counts for `embedder` (`enabled`, `hits` = vectors served from
    the cache, `misses` = vectors computed, ...); `{}` for an embedder that is not cached."""
    fn = getattr(embedder, "cache_stats", None)
    if callable(fn):
        out = fn()
        if isinstance(out, dict):
            return {str(k): v for k, v in out.items()}
    return {}


def embed_uncached(embedder: Embedder, texts: list[str]) -> npt.NDArray[np.float32]:
    """Vectors computed afresh, never served from the embedding cache: what a timed query
    measures (a warm run's cache hit would time a lookup, not the embedder). An embedder
    without a cache computes every vector anyway."""
    fn = getattr(embedder, "embed_uncached", None)
    if callable(fn):
        out: npt.NDArray[np.float32] = fn(texts)
        return out
    return embedder.embed(texts)


def from_spec(spec: str) -> Embedder:
    """Build the embedder a spec string names; an unknown kind is an error naming the flag."""
    kind, _, rest = spec.partition(":")
    if kind == "hash":
        from gaia_eval.embed.hashing import HashEmbedder

        return HashEmbedder(int(rest) if rest else 384)
    if kind == "onnx":
        from gaia_eval.embed.onnx import OnnxEmbedder

        return OnnxEmbedder(rest or "all-MiniLM-L6-v2-int8")
    if kind == "openai":
        from gaia_eval.embed.openai import OpenAIEmbedder

        return OpenAIEmbedder.from_spec_rest(rest)
    if kind == "sentence-transformers":
        from gaia_eval.embed.st import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(rest or "sentence-transformers/all-MiniLM-L6-v2")
    msg = (
        f"--embedder {spec!r}: unknown kind {kind!r}; use hash, onnx:<model>, "
        "openai:<base_url>#<model> or sentence-transformers:<model>"
    )
    raise InvalidInputError(msg)
