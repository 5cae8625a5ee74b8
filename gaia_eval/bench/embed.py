"""The onnx MiniLM embedder against the onnxruntime floor and fastembed, on the pr corpus.

Workload: the chunks the reference RAG system makes of the pr suite's corpus (repo_docs:
18 documents, 1,227 chunks, 176 tokens each on average), every 8th one (`--quick`: every
24th), in corpus order. Compute: matrix-multiply FLOPs of MiniLM-L6 at each chunk's real
token length L, per layer 2·L·(4·384² + 2·384·1536) + 2·2·L²·384 (the projections, the
feed-forward block, and attention's two L x L products), six layers.

Rows, interleaved so machine noise falls on all alike:
- ours: `OnnxEmbedder.embed` with the cache off (tokenize, run, mean-pool, normalise),
  two texts at a time on single-threaded kernels, and (`parallel_runs=False`) one text at
  a time on 2-thread kernels;
- the floor: onnxruntime alone on the same model with the inputs tokenized beforehand and
  no pooling, in several configurations (threads; one text per run, or length-sorted
  padded batches); the fastest is the floor, and ours is within `ratio` of it;
- fastembed over the same `model.onnx` and `tokenizer.json` (a local folder: it cannot
  download here), mean pooling + normalisation, 2 threads; skipped when not installed;
- ours with the cache warm (every vector served from a fresh, filled cache file);
- dynamic int8 (onnxruntime's `quantize_dynamic` of the same weights, VNNI kernels):
  a faster model with other numerics, shown with its worst cosine to ours; skipped
  without the `onnx` package.
Run: `gaia-eval bench --only embed [--quick]`.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from gaia_eval.bench.common import BenchRow

TITLE = "onnx MiniLM embedder vs the onnxruntime floor and fastembed (pr corpus chunks)"
_H, _I, _LAYERS = 384, 1536, 6
OURS = "gaia_eval onnx embedder (cache off)"
WARM = "gaia_eval onnx embedder (cache warm)"
SERIAL = "gaia_eval onnx embedder (cache off, parallel_runs=False)"


def pr_chunks() -> list[str]:
    """Every chunk the reference system makes of the pr corpus, in corpus order."""
    from gaia_eval.embed.cache import disabled
    from gaia_eval.embed.onnx import OnnxEmbedder
    from gaia_eval.retrieval.dataset import builtin_dataset_path, load_dataset
    from gaia_eval.systems.rag.chunker import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunk_text
    from gaia_eval.systems.rag.extract import extract

    with disabled():
        tokenizer_only = OnnxEmbedder()
    out: list[str] = []
    for doc in load_dataset(builtin_dataset_path("repo_docs")).documents:
        path = Path(doc.path)
        text = extract(path, path.read_bytes()).text
        out += chunk_text(text, DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP, tokenizer_only).chunks
    return out


def flops(lengths: list[int]) -> float:
    """Matrix-multiply FLOPs of MiniLM-L6 over texts of these token lengths."""
    per_token = 2 * (4 * _H * _H + 2 * _H * _I)
    return float(sum(_LAYERS * (n * per_token + 4 * n * n * _H) for n in lengths))


class _Floor:
    """onnxruntime alone: pre-tokenized inputs, output discarded."""

    def __init__(self, model: Path, ids: list[npt.NDArray[np.int64]]) -> None:
        self.model = model
        self.ids = ids
        self._sessions: dict[int, Any] = {}

    def session(self, threads: int) -> Any:
        import onnxruntime as ort

        if threads not in self._sessions:
            o = ort.SessionOptions()
            o.intra_op_num_threads = threads
            o.inter_op_num_threads = 1
            o.log_severity_level = 3
            o.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._sessions[threads] = ort.InferenceSession(
                str(self.model), o, providers=["CPUExecutionProvider"]
            )
        return self._sessions[threads]

    @staticmethod
    def _feeds(rows: list[npt.NDArray[np.int64]]) -> dict[str, npt.NDArray[np.int64]]:
        width = max(len(r) for r in rows)
        ids = np.zeros((len(rows), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}

    def singles(self, threads: int) -> Callable[[], object]:
        s = self.session(threads)
        feeds = [self._feeds([r]) for r in self.ids]
        return lambda: [s.run(None, f) for f in feeds]

    def parallel_singles(self, workers: int) -> Callable[[], object]:
        # One single-threaded session shared by `workers` Python threads: run() releases
        # the GIL, so each core works on its own text with no intra-op synchronisation.
        s = self.session(1)
        feeds = [self._feeds([r]) for r in self.ids]

        def run() -> object:
            with ThreadPoolExecutor(workers) as pool:
                return list(pool.map(lambda f: s.run(None, f), feeds))

        return run

    def sorted_batches(self, threads: int, budget: int) -> Callable[[], object]:
        s = self.session(threads)
        order = sorted(range(len(self.ids)), key=lambda j: (len(self.ids[j]), j))
        batches: list[list[int]] = []
        for j in order:
            n = len(self.ids[j])
            if batches and (len(batches[-1]) + 1) * n <= budget and len(batches[-1]) < 64:
                batches[-1].append(j)
            else:
                batches.append([j])
        feeds = [self._feeds([self.ids[j] for j in b]) for b in batches]
        return lambda: [s.run(None, f) for f in feeds]


def _fastembed(model: Path, tokenizer: Path, folder: Path) -> Any | None:
    try:
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType
    except ImportError:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.onnx").symlink_to(model)
    (folder / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"model_max_length": 256, "pad_token": "[PAD]", "do_lower_case": True})
    )
    (folder / "config.json").write_text(json.dumps({"pad_token_id": 0, "hidden_size": _H}))
    (folder / "special_tokens_map.json").write_text(
        json.dumps({k: f"[{k[:-6].upper()}]" for k in ("cls_token", "sep_token", "pad_token")})
    )
    name = "gaia-eval/all-MiniLM-L6-v2-int8-local"
    if name not in {m["model"] for m in TextEmbedding.list_supported_models()}:
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="gaia-eval/unreachable"),
            dim=_H,
            model_file="model.onnx",
        )
    return TextEmbedding(model_name=name, specific_model_path=str(folder), threads=2)


def _dynamic_int8(fp32_source: Path, folder: Path) -> Path | None:
    try:
        import onnxruntime as ort
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return None
    # The shipped model stores int8 weights that ORT dequantizes at load; save that
    # float32 graph, then quantize it the standard way (int8 weights and activations).
    fp32 = folder / "fp32.onnx"
    o = ort.SessionOptions()
    o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    o.optimized_model_filepath = str(fp32)
    o.log_severity_level = 3
    ort.InferenceSession(str(fp32_source), o, providers=["CPUExecutionProvider"])
    out = folder / "dynamic-int8.onnx"
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process would land in the table's output
    try:
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
    finally:
        root.setLevel(level)
    return out


def _timed(
    impls: dict[str, Callable[[], object]], repeats: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and CPU seconds (all threads of this process) per implementation; CPU
    time is what other jobs on a shared machine stretch least."""
    for fn in impls.values():  # warm-up: sessions, allocator arenas, page cache
        fn()
    wall: dict[str, list[float]] = {k: [] for k in impls}
    cpu: dict[str, list[float]] = {k: [] for k in impls}
    for _ in range(repeats):
        for name, fn in impls.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    return (
        {k: statistics.median(v) for k, v in wall.items()},
        {k: statistics.median(v) for k, v in cpu.items()},
    )


def run(quick: bool) -> list[BenchRow]:
    return measure(pr_chunks()[:: 24 if quick else 8], repeats=1 if quick else 3, int8=not quick)


def measure(texts: list[str], *, repeats: int, int8: bool) -> list[BenchRow]:
    """Every row of the area over `texts`, `repeats` interleaved rounds after a warm-up."""
    from gaia_eval.embed import cache as cache_mod
    from gaia_eval.embed.onnx import OnnxEmbedder

    with cache_mod.disabled():
        ours = OnnxEmbedder()
        serial = OnnxEmbedder(parallel_runs=False)
    ids = [np.asarray(t, dtype=np.int64) for t in ours.token_ids(texts)]
    lengths = [len(x) for x in ids]
    work = flops(lengths)
    model = ours.model_path
    floor = _Floor(model, ids)
    impls: dict[str, Callable[[], object]] = {
        OURS: lambda: ours.embed(texts),
        SERIAL: lambda: serial.embed(texts),
        "onnxruntime: 2 threads, one text per run": floor.singles(2),
        "onnxruntime: 1 thread x 2 parallel runs, one text per run": floor.parallel_singles(2),
        "onnxruntime: 2 threads, length-sorted batches <= 512 tokens": floor.sorted_batches(2, 512),
        "onnxruntime: 2 threads, length-sorted batches <= 4096 tokens": floor.sorted_batches(
            2, 4096
        ),
        "onnxruntime: 1 thread, one text per run": floor.singles(1),
    }
    notes: dict[str, str] = {}
    skipped: list[BenchRow] = []
    case = (
        f"{len(texts)} pr chunks, {sum(lengths):,} tokens, {work / len(texts) / 1e9:.2f} GFLOP each"
    )
    reference = ours.embed(texts)
    with tempfile.TemporaryDirectory(prefix="gaia-bench-embed-") as tmp:
        fe = _fastembed(model, ours.tokenizer_path, Path(tmp) / "fastembed")
        if fe is None:
            skipped.append(BenchRow(case, "fastembed", float("nan"), None, "not installed"))
        else:
            import fastembed

            name = f"fastembed {fastembed.__version__} (same model files, 2 threads)"
            vec = np.vstack(list(fe.embed(texts)))
            notes[name] = f"min cosine to ours {float(np.min(np.sum(vec * reference, 1))):.6f}"
            impls[name] = lambda: list(fe.embed(texts))
        q_model = _dynamic_int8(model, Path(tmp)) if int8 else None
        if q_model is not None:
            import onnxruntime as ort

            o = ort.SessionOptions()
            o.intra_op_num_threads = 2
            o.log_severity_level = 3
            qs = ort.InferenceSession(str(q_model), o, providers=["CPUExecutionProvider"])
            feeds = [_Floor._feeds([r]) for r in ids]
            qvec = np.vstack([qs.run(None, f)[0][0].mean(0) for f in feeds])
            qvec /= np.linalg.norm(qvec, axis=1, keepdims=True)
            cos = float(np.min(np.sum(qvec * reference, 1)))
            name = "onnxruntime dynamic int8 (other numerics): 2 threads, one text per run"
            notes[name] = f"not the pinned numerics: min cosine to ours {cos:.4f}"
            impls[name] = lambda: [qs.run(None, f) for f in feeds]
        elif int8:
            skipped.append(
                BenchRow(case, "onnxruntime dynamic int8", float("nan"), None, "needs `onnx`")
            )
        old = os.environ.get("GAIA_EVAL_CACHE")
        os.environ["GAIA_EVAL_CACHE"] = str(Path(tmp) / "cache")
        try:
            warm = OnnxEmbedder()
            warm.embed(texts)  # fill
        finally:
            if old is None:
                os.environ.pop("GAIA_EVAL_CACHE", None)
            else:
                os.environ["GAIA_EVAL_CACHE"] = old
        impls[WARM] = lambda: warm.embed(texts)
        medians, cpu = _timed(impls, repeats)
    base = medians[OURS]
    floor_names = [k for k in medians if k.startswith("onnxruntime:")]
    best = min(floor_names, key=lambda k: medians[k])
    rows = []
    for name, sec in medians.items():
        note = f"{len(texts) / sec:.1f} chunks/s"
        if name != WARM:  # served vectors cost no FLOPs
            note += f", {work / sec / 1e9:.0f} GFLOP/s; CPU {cpu[name]:.2f} s"
        if name == best:
            note += f"; the floor (ours = {base / sec:.2f}x of it)"
        if name in notes:
            note += f"; {notes[name]}"
        if name == OURS:
            note += "; tokenize + run + pool"
        rows.append(BenchRow(case, name, sec, None if name == OURS else sec / base, note))
    rows.append(load_row(case))
    return rows + skipped


def load_row(case: str) -> BenchRow:
    """The machine's load average, as a row (other jobs share these cores)."""
    one, five, fifteen = os.getloadavg()
    note = f"load average {one:.1f} / {five:.1f} / {fifteen:.1f} (1/5/15 min), at the end"
    return BenchRow(case, "machine load", float("nan"), None, note)
