"""Embedders: the onnx MiniLM (real model, CPU), the OpenAI-compatible client against a
real HTTP server on 127.0.0.1, and the sentence-transformers extra's error path."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import socket
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from loopback import running

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.embed import describe, from_spec
from gaia_eval.embed import onnx as onnx_mod
from gaia_eval.embed.onnx import OnnxEmbedder
from gaia_eval.embed.openai import OpenAIEmbedder
from gaia_eval.systems.rag.chunker import chunk_text
from gaia_eval.systems.rag.system import RagSystem


@pytest.fixture(scope="module")
def minilm() -> OnnxEmbedder:
    return OnnxEmbedder()


def test_onnx_similar_sentences_score_higher(minilm: OnnxEmbedder) -> None:
    v = minilm.embed(
        [
            "The cat sits on the mat.",
            "A kitten is resting on a rug.",
            "Quarterly revenue rose twelve percent.",
            "Sales grew by 12% in the last quarter.",
        ]
    )
    assert v.shape == (4, 384)
    assert v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sim = v @ v.T
    assert sim[0, 1] > sim[0, 2] + 0.3
    assert sim[2, 3] > sim[2, 1] + 0.3


def test_onnx_is_deterministic_and_batch_independent(minilm: OnnxEmbedder) -> None:
    texts = [f"sentence number {i} about pumps and valves" * (1 + i % 5) for i in range(12)]
    first = minilm.embed(texts)
    assert np.array_equal(first, minilm.embed(texts))
    alone = np.vstack([minilm.embed([t]) for t in texts[:3]])
    assert np.allclose(alone, first[:3], atol=1e-5)
    empty = minilm.embed(["", "  "])
    assert not empty.any()


def test_onnx_describes_its_pinned_checkpoint(minilm: OnnxEmbedder) -> None:
    info = describe(minilm)
    assert set(info) == {"model", "checkpoint", "device", "recipe"}
    assert info["checkpoint"] == f"sha256:{onnx_mod._MODELS['all-MiniLM-L6-v2-int8'].onnx_sha256}"
    assert info["device"] == "cpu"
    assert "mean pooling" in info["recipe"]
    assert from_spec("onnx:all-MiniLM-L6-v2-int8").spec == minilm.spec


def test_onnx_fit_prefixes_cut_at_word_boundaries(minilm: OnnxEmbedder) -> None:
    long = " ".join(f"{i}.{i}e-{i}" for i in range(200))  # many tokens per word
    short = "a short sentence"
    cut, whole = minilm.fit_prefixes([long, short])
    assert whole == len(short)
    assert 0 < cut < len(long)
    assert long[cut] == " "
    assert minilm.fit_prefixes([long[:cut]]) == [cut]
    chunking = chunk_text(long, 200, 0, embedder=minilm)
    assert len(chunking.chunks) > 1
    assert chunking.split == set(range(len(chunking.chunks)))
    assert " ".join(chunking.chunks) == long
    assert minilm.fit_prefixes(chunking.chunks) == [len(c) for c in chunking.chunks]


def test_onnx_cuts_unspaced_text_at_token_boundaries(minilm: OnnxEmbedder) -> None:
    text = "北京是中华人民共和国的首都" * 60 + " end"
    chunking = chunk_text(text, 100, 0, embedder=minilm)
    assert len(chunking.chunks) > 2
    assert all(c in text for c in chunking.chunks)
    assert "".join(chunking.chunks).replace(" ", "") == text.replace(" ", "")
    assert minilm.fit_prefixes(chunking.chunks) == [len(c) for c in chunking.chunks]


def test_onnx_checksum_mismatch_names_file_and_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    pinned = onnx_mod._MODELS["all-MiniLM-L6-v2-int8"]
    monkeypatch.setitem(
        onnx_mod._MODELS, "all-MiniLM-L6-v2-int8", dataclasses.replace(pinned, onnx_sha256="0" * 64)
    )
    with pytest.raises(InvalidInputError, match=r"model\.onnx has sha256 .* --force-reinstall"):
        OnnxEmbedder()


def test_onnx_unknown_model_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="not a known model"):
        OnnxEmbedder(str(tmp_path / "nothing"))


def test_onnx_system_retrieves_by_meaning(tmp_path: Path, minilm: OnnxEmbedder) -> None:
    docs = {
        "pets.md": "Dogs and cats are common household animals that need food and care.",
        "money.md": "The company's income statement shows revenue growth and lower costs.",
        "space.md": "The rocket launched a satellite into orbit around the planet.",
    }
    system = RagSystem(minilm, tmp_path / "cache")
    for name, text in docs.items():
        (tmp_path / name).write_text(text)
        assert system.index(tmp_path / name).status == "indexed"
    assert Path(system.search("How did the firm's earnings develop?", 1)[0].path).name == "money.md"
    agent = system.agent_search("spacecraft put into orbit")
    assert agent and Path(agent[0].path).name == "space.md"


# ---- OpenAI-compatible embeddings over a real socket --------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, *_: object) -> None:  # keep pytest output clean
        return

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        self.server.seen.append((self.path, self.headers.get("Authorization"), body))
        mode = self.server.mode
        if mode == "500":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        if mode == "404":
            self.send_response(404)
            self.end_headers()
            self.wfile.write(b'{"error": "model not found"}')
            return
        if mode == "junk":
            payload = b"<html>not json</html>"
        else:
            rows = [
                {"object": "embedding", "index": i, "embedding": [float(len(t)), 1.0, 0.0]}
                for i, t in enumerate(body["input"])
            ]
            rows.reverse()  # servers may answer out of order; `index` decides
            payload = json.dumps({"object": "list", "data": rows, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[Any]:
    with running(_Handler) as srv:
        srv.seen = []  # type: ignore[attr-defined]
        srv.mode = "ok"  # type: ignore[attr-defined]
        yield srv


def _base(srv: Any) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}"


def test_openai_embeddings_round_trip(server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_EVAL_OPENAI_API_KEY", "sk-test-123")
    emb = from_spec(f"openai:{_base(server)}#nomic-embed")
    assert isinstance(emb, OpenAIEmbedder)
    texts = [f"text {'x' * i}" for i in range(70)] + [""]
    vecs = emb.embed(texts)
    assert vecs.shape == (71, 3)
    assert emb.dim == 3
    assert not vecs[70].any()
    expected = np.array([len(texts[5]), 1.0, 0.0], dtype=np.float32)
    assert np.allclose(vecs[5], expected / np.linalg.norm(expected))
    paths = {p for p, _, _ in server.seen}
    assert paths == {"/v1/embeddings"}
    assert len(server.seen) == 2  # 70 texts in batches of 64
    assert all(auth == "Bearer sk-test-123" for _, auth, _ in server.seen)
    assert server.seen[0][2]["model"] == "nomic-embed"
    emb_v1 = OpenAIEmbedder.from_spec_rest(f"{_base(server)}/v1#m")
    emb_v1.embed(["hello"])
    assert server.seen[-1][0] == "/v1/embeddings"


def test_openai_server_errors_are_infrastructure(server: Any) -> None:
    emb = OpenAIEmbedder.from_spec_rest(f"{_base(server)}#m")
    server.mode = "500"
    with pytest.raises(InfrastructureError, match="HTTP 500"):
        emb.embed(["a"])
    server.mode = "junk"
    with pytest.raises(InfrastructureError, match="not an embeddings list"):
        emb.embed(["a"])
    server.mode = "404"
    with pytest.raises(InvalidInputError, match=r"--embedder .*HTTP 404"):
        emb.embed(["a"])


def test_openai_unreachable_is_infrastructure() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emb = OpenAIEmbedder.from_spec_rest(f"http://127.0.0.1:{port}#m")
    with pytest.raises(InfrastructureError, match="cannot reach"):
        emb.embed(["a"])


@pytest.mark.parametrize("spec", ["openai:127.0.0.1:8000#m", "openai:http://x", "openai:http://x#"])
def test_openai_bad_spec_names_the_flag(spec: str) -> None:
    with pytest.raises(InvalidInputError, match="--embedder"):
        from_spec(spec)


def test_unknown_embedder_kind_names_the_flag() -> None:
    with pytest.raises(InvalidInputError, match="--embedder 'word2vec'"):
        from_spec("word2vec")


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers installed; the error path cannot occur",
)
def test_sentence_transformers_missing_gives_the_fix() -> None:
    with pytest.raises(
        InvalidInputError, match=r"sentence-transformers>=2.6' \(the \[st\] extra\)"
    ):
        from_spec("sentence-transformers:all-MiniLM-L6-v2")
