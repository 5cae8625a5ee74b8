"""The `hash` embedder: deterministic feature hashing of words, no dependencies.

Stable across processes and machines (blake2b, never Python's salted `hash()`), so unit
tests and the memory `pr` suite are reproducible bit for bit.
"""

from __future__ import annotations

import hashlib
import itertools
import re

import numpy as np
import numpy.typing as npt

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Signed feature hashing of lower-cased words and word bigrams."""

    def __init__(self, dim: int = 384) -> None:
        if dim <= 0:
            msg = f"hash embedder dim must be positive, got {dim}"
            raise ValueError(msg)
        self._dim = dim

    @property
    def spec(self) -> str:
        return "hash" if self._dim == 384 else f"hash:{self._dim}"

    @property
    def dim(self) -> int:
        return self._dim

    def describe(self) -> dict[str, str]:
        return {
            "model": self.spec,
            "checkpoint": "none (feature hashing)",
            "device": "cpu",
            "recipe": "blake2b signed hashing of lower-cased words and bigrams, L2 norm",
        }

    def _features(self, text: str) -> list[str]:
        words = _WORD.findall(text.lower())
        return words + [f"{a} {b}" for a, b in itertools.pairwise(words)]

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feat in self._features(text):
                h = int.from_bytes(hashlib.blake2b(feat.encode(), digest_size=8).digest(), "little")
                out[row, h % self._dim] += 1.0 if (h >> 63) & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out
