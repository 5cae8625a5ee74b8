"""What the embedding cache buys: the RAG pr suite and the code index, cold and warm.

- `retrieval --component rag --suite pr` (the real CLI, onnx MiniLM, hard cases) three
  times in child processes: `--no-cache`, then cold (an empty cache folder) and warm (the
  same folder, filled by the cold run). Reported: the suite's own `duration_s` (from its
  results.json) and the process's wall time. Targets: cold <= 60 s, warm <= 15 s.
- The reference code index with the onnx embedder over a copy of this interpreter's
  standard-library `email` package (`--quick`: `json`), first with an empty embedding cache
  and then again into a fresh index folder with the cache filled: the second run does
  everything but the model's work. Target (for the code-retrieval pr suite, which needs
  SWE-bench clones): the second run at least 5x faster than the first.
Ratios are against the warm (second) run: 8.0x = the cold run takes 8 times as long.
The child runs set GAIA_EVAL_NO_LOCK=1: the bench already holds the eval lock.
Run: `gaia-eval bench --only embed_cache [--quick]`.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from gaia_eval.bench.common import BenchRow

TITLE = "embedding cache: RAG pr suite and code index, cold vs warm"
_MAIN = "import sys; from gaia_eval.cli.main import main; sys.exit(main())"


def _suite(cache: Path, out: Path, *extra: str) -> tuple[float, float, str]:
    env = {**os.environ, "GAIA_EVAL_CACHE": str(cache), "GAIA_EVAL_NO_LOCK": "1"}
    args = ["retrieval", "--component", "rag", "--suite", "pr", "--out", str(out), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MAIN, *args], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        msg = f"retrieval pr run failed (exit {done.returncode}): {done.stderr[-2000:]}"
        raise RuntimeError(msg)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    ds = results["summary"]["datasets"][0]
    index = ds.get("index") or {}
    sdk = ds["summary"]["sdk"]["recall@5"]
    note = (
        f"process {wall:.1f} s wall, {cpu:.1f} s CPU; index {index.get('index_s', 0):.1f} s for "
        f"{index.get('chunks', 0)} chunks; sdk R@5 {sdk:.3f}"
    )
    return float(results["header"]["run"]["duration_s"]), wall, note


def _code_tree(dest: Path, package: str) -> Path:
    src = Path(sysconfig.get_paths()["stdlib"]) / package
    shutil.copytree(src, dest / package, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _code(tmp: Path, package: str) -> list[tuple[str, float, str]]:
    from gaia_eval.embed.onnx import OnnxEmbedder
    from gaia_eval.systems.code_index import ReferenceCodeIndex

    tree = _code_tree(tmp / "tree", package)
    old = os.environ.get("GAIA_EVAL_CACHE")
    os.environ["GAIA_EVAL_CACHE"] = str(tmp / "code-cache")
    try:
        out = []
        for label, folder in (("first run (empty cache)", "ix-1"), ("second run", "ix-2")):
            embedder = OnnxEmbedder()  # a new process would build its own
            index = ReferenceCodeIndex(tree, tmp / folder, embedder)
            t0 = time.perf_counter()
            report = index.index()
            seconds = time.perf_counter() - t0
            note = (
                f"{report.chunks} chunks, {report.vectors_from_cache} vectors from cache, "
                f"{report.chunks / seconds:.0f} chunks/s"
            )
            out.append((label, seconds, note))
        return out
    finally:
        if old is None:
            os.environ.pop("GAIA_EVAL_CACHE", None)
        else:
            os.environ["GAIA_EVAL_CACHE"] = old


def run(quick: bool) -> list[BenchRow]:
    from gaia_eval.bench.embed import load_row

    rows: list[BenchRow] = []
    with tempfile.TemporaryDirectory(prefix="gaia-bench-cache-") as name:
        tmp = Path(name)
        package = "json" if quick else "email"
        code = _code(tmp, package)
        case = f"code index, onnx, stdlib {package}"
        second = code[1][1]
        for label, seconds, note in code:
            ratio = None if label.startswith("second") else seconds / second
            rows.append(BenchRow(case, label, seconds, ratio, note))
        if quick:
            rows.append(
                BenchRow("retrieval pr suite", "cold / warm", float("nan"), None, "full run only")
            )
        else:
            case = "retrieval --component rag --suite pr"
            runs = [
                ("--no-cache", tmp / "nocache", ("--no-cache",)),
                ("cold (empty cache)", tmp / "cache", ()),
                ("warm (cache filled)", tmp / "cache", ()),
            ]
            timed = []
            for i, (label, cache, extra) in enumerate(runs):
                duration, _, note = _suite(cache, tmp / f"run-{i}", *extra)
                timed.append((label, duration, note))
            warm = timed[2][1]
            for label, duration, note in timed:
                ratio = None if label.startswith("warm") else duration / warm
                rows.append(BenchRow(case, label, duration, ratio, note))
        rows.append(load_row("embedding cache"))
    return rows
