"""The `openai:<base_url>#<model>` embedder: `/v1/embeddings` of any OpenAI-compatible server.

Lemonade, llama.cpp's server, Ollama, vLLM and the OpenAI API speak the same wire format:
POST `{"model", "input": [texts]}`, answer `{"data": [{"index", "embedding"}]}`. The key,
if any, comes from `GAIA_EVAL_OPENAI_API_KEY`. An unreachable server, a timeout, a 5xx,
a quota (429) or a credential refusal (401/403) is an `InfrastructureError` (unmeasured,
never a score); a request the server rejects as malformed (other 4xx) names `--embedder`.
"""

from __future__ import annotations

import os

import httpx
import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import InfrastructureError, InvalidInputError

_BATCH = 64
_TIMEOUT_S = 120.0


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint, L2-normalised here."""

    def __init__(self, base_url: str, model: str, *, timeout_s: float = _TIMEOUT_S) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._dim: int | None = None
        key = os.environ.get("GAIA_EVAL_OPENAI_API_KEY", "")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client = httpx.Client(timeout=timeout_s, headers=headers)

    @classmethod
    def from_spec_rest(cls, rest: str) -> OpenAIEmbedder:
        """Parse the part of `openai:<base_url>#<model>` after `openai:`."""
        base_url, sep, model = rest.partition("#")
        if not sep or not model.strip() or not base_url.startswith(("http://", "https://")):
            msg = (
                f"--embedder 'openai:{rest}': expected openai:<base_url>#<model>, "
                "e.g. openai:http://127.0.0.1:8000/api#nomic-embed-text"
            )
            raise InvalidInputError(msg)
        return cls(base_url, model.strip())

    @property
    def spec(self) -> str:
        return f"openai:{self._base_url}#{self._model}"

    @property
    def url(self) -> str:
        base = self._base_url
        return f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def describe(self) -> dict[str, str]:
        return {
            "model": self._model,
            "checkpoint": "served by the endpoint (not pinned)",
            "device": f"remote: {self._base_url}",
            "recipe": "OpenAI /v1/embeddings; L2 normalised locally",
        }

    def close(self) -> None:
        self._client.close()

    def _request(self, texts: list[str]) -> npt.NDArray[np.float32]:
        from gaia_eval.core import limits

        # The endpoint's one limiter: its cap spans every worker, and a throttle one of
        # them sees holds the others back (this client does not retry it itself).
        lim = limits.limiter(self.url)
        try:
            with lim.slot():
                resp = self._client.post(self.url, json={"model": self._model, "input": texts})
        except httpx.HTTPError as err:
            msg = f"embedder {self.spec}: cannot reach {self.url}: {err!r}"
            raise InfrastructureError(msg) from err
        after = limits.retry_after_s(resp.headers.get("retry-after"))
        if limits.is_throttle(resp.status_code, after):
            lim.throttled(after)
        if resp.status_code >= 500 or resp.status_code in (401, 403, 408, 429):
            msg = (
                f"embedder {self.spec}: {self.url} answered HTTP {resp.status_code}: "
                f"{resp.text[:300]}"
            )
            raise InfrastructureError(msg)
        if resp.status_code >= 400:
            msg = (
                f"--embedder {self.spec}: the server rejected the request with HTTP "
                f"{resp.status_code}: {resp.text[:300]}; check the model name"
            )
            raise InvalidInputError(msg)
        try:
            rows = sorted(resp.json()["data"], key=lambda r: int(r["index"]))
            vecs = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as err:
            msg = (
                f"embedder {self.spec}: {self.url} sent a reply that is not an "
                f"embeddings list: {resp.text[:300]!r}"
            )
            raise InfrastructureError(msg) from err
        if vecs.ndim != 2 or vecs.shape[0] != len(texts) or vecs.shape[1] == 0:
            msg = f"embedder {self.spec}: asked for {len(texts)} vectors, got shape {vecs.shape}"
            raise InfrastructureError(msg)
        if self._dim is not None and vecs.shape[1] != self._dim:
            msg = f"embedder {self.spec}: vector size changed from {self._dim} to {vecs.shape[1]}"
            raise InfrastructureError(msg)
        self._dim = int(vecs.shape[1])
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        np.divide(vecs, norms, out=vecs, where=norms > 0)
        return vecs

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        live = [i for i, t in enumerate(texts) if t.strip()]
        parts = [
            self._request([texts[i] for i in live[s : s + _BATCH]])
            for s in range(0, len(live), _BATCH)
        ]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if parts:
            out[live] = np.vstack(parts)
        return out
