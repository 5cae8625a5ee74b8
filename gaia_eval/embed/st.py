"""The `sentence-transformers:<model>` embedder (extra `st`; needs torch, imported lazily).

Offered for users who already run sentence-transformers; the reference suites use
`onnx:`, which gives the same model's vectors without torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.extras import install_hint


class SentenceTransformerEmbedder:
    """A sentence-transformers model on the CPU, normalised embeddings."""

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as err:
            msg = (
                f"--embedder sentence-transformers:{model}: sentence-transformers is not "
                f"installed. Fix: {install_hint('st')}, or use --embedder "
                "onnx:all-MiniLM-L6-v2-int8 (same model, no torch)"
            )
            raise InvalidInputError(msg) from err
        self._name = model
        self._model: Any = SentenceTransformer(model, device="cpu")
        self._dim = int(self._model.get_sentence_embedding_dimension())

    @property
    def spec(self) -> str:
        return f"sentence-transformers:{self._name}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return int(self._model.max_seq_length)

    def describe(self) -> dict[str, str]:
        return {
            "model": self._name,
            "checkpoint": "as resolved by sentence-transformers (not pinned)",
            "device": "cpu",
            "recipe": (
                f"sentence-transformers encode, normalize_embeddings, max {self.max_tokens} tokens"
            ),
        }

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        live = [i for i, t in enumerate(texts) if t.strip()]
        if live:
            vecs = self._model.encode(
                [texts[i] for i in live], batch_size=32, normalize_embeddings=True
            )
            out[live] = np.asarray(vecs, dtype=np.float32)
        return out
