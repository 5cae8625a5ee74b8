"""Embedders behind one interface, chosen by a spec string recorded in every result.

Specs: `hash[:<dim>]`, `onnx:<model>`, `openai:<base_url>#<model>`,
`sentence-transformers:<model>`. Gates refuse to compare results of different specs.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

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
