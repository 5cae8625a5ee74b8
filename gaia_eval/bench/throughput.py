"""Benchmark client: overhead and timing accuracy against GuideLLM, on the same servers.

Three parts, every one on servers of this machine:
1. Client cost on a zero-latency stub (every response's 1,000 chunks written at once, 8
   streams): wall and CPU per content chunk. The issue's bar: >= 20,000 chunks/s on a core.
2. Timing accuracy on stubs of known timing: each client's per-request TTFT and ITL against
   the stub's own send log (same monotonic clock), matched by the server's request id.
   `steady`: first token 50 ms, then one token every 10 ms; `multi-token`: 3 tokens per
   chunk, 60 ms apart (a true per-token gap of 20 ms).
3. The same local llama.cpp server (when `gaia_eval.llm.local_server` is present and the
   `local` extra installed): both clients' ITL against the server's own per-token time.

GuideLLM (PyPI `guidellm`, a separate CLI) runs from PATH or $GAIA_EVAL_GUIDELLM; without
it its rows are skipped with a note. Figures are medians over requests.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from gaia_eval.bench.common import BenchRow

TITLE = "streaming client: overhead and TTFT/ITL accuracy vs GuideLLM"
OURS = "gaia_eval client"
GUIDE = "guidellm"


def _guidellm() -> str | None:
    return os.environ.get("GAIA_EVAL_GUIDELLM") or shutil.which("guidellm")


def _stub_log(url: str) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(url + "/stub/log", timeout=10) as resp:
        return {e["id"]: e for e in json.loads(resp.read())}


def _truth(entry: dict[str, Any]) -> tuple[float, list[float]]:
    """(server TTFT ms from arrival, per-token gaps ms) from the stub's send log."""
    sends = [(t, n) for t, k, n in entry["sends"] if k == "content"]
    ttft = (sends[0][0] - entry["t_received_ns"]) / 1e6
    gaps = []
    for (t0, _), (t1, n) in itertools.pairwise(sends):
        gaps += [(t1 - t0) / 1e6 / n] * n
    return ttft, gaps


# ---- our client -------------------------------------------------------------------------------


def _ours(url: str, model: str, requests: int, concurrency: int) -> dict[str, Any]:
    from gaia_eval.throughput.client import Endpoint, StreamClient
    from gaia_eval.throughput.load import LevelPlan, run_level
    from gaia_eval.throughput.metrics import derive

    async def go() -> Any:
        client = StreamClient(Endpoint(url + "/v1/chat/completions", "openai"))
        body = {
            "model": model,
            "messages": [{"role": "user", "content": "hello there, tell me a story"}],
            "max_tokens": 64,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        plan = LevelPlan(concurrency=concurrency, requests=requests)
        run = await run_level(client, [client.build_request(body)], plan)
        await client.aclose()
        return run

    t0 = time.perf_counter()
    run = asyncio.run(go())
    wall = time.perf_counter() - t0
    rows = []
    for rec in run.records:
        assert rec.error_kind is None, rec.error
        d = derive(rec, open_loop=False)
        rows.append(
            {
                "id": rec.server_request_id,
                "ttft_ms": d.ttft_ms,
                "itl_ms": statistics.mean(d.itl_ms) if d.itl_ms else None,
                "chunks": len(rec.chunk_t_ns),
                "timings": rec.server_timings,
            }
        )
    level_wall = (run.t_finish_ns - run.t_begin_ns) / 1e9
    return {"rows": rows, "wall_s": level_wall or wall, "cpu_s": run.client_cpu_s}


# ---- GuideLLM ---------------------------------------------------------------------------------


def _guide(exe: str, url: str, model: str, requests: int, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="gaia-eval-guidellm-") as tmp:
        data = Path(tmp) / "data.jsonl"
        data.write_text(
            "".join(
                # output_tokens_count: GuideLLM's column for max_tokens (64, as ours sends)
                json.dumps({"prompt": "hello there, tell me a story", "output_tokens_count": 64})
                + "\n"
                for _ in range(requests)
            ),
            encoding="utf-8",
        )
        out = Path(tmp) / "out.json"
        cmd = [
            exe, "run",
            "--backend", f"kind=openai_http,target={url},model={model}",
            "--profile", f"kind=concurrent,streams={concurrency}",
            "--constraint", f"kind=max_requests,count={requests}",
            "--data", f"kind=json_file,path={data}",
            "--output", f"kind=json,path={out}",
            "--disable-console",
        ]  # fmt: skip
        cpu0 = _children_cpu()
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=900, cwd=tmp, check=False
        )
        cpu = _children_cpu() - cpu0
        if proc.returncode != 0 or not out.exists():
            msg = f"guidellm failed ({proc.returncode}): {(proc.stderr or proc.stdout)[-400:]}"
            raise RuntimeError(msg)
        bench = json.loads(out.read_text())["benchmarks"][0]
    rows = []
    for r in bench["requests"]["successful"]:
        rid = str(r.get("response_id") or "").removeprefix("chatcmpl-")
        rows.append(
            {
                "id": rid,
                "ttft_ms": r["time_to_first_token_ms"],
                "itl_ms": r["inter_token_latency_ms"],
                "chunks": r["info"]["timings"]["token_iterations"],
            }
        )
    return {"rows": rows, "wall_s": float(bench["duration"]), "cpu_s": cpu}


def _children_cpu() -> float:
    """CPU seconds of finished child processes (GuideLLM and its workers) so far."""
    import resource

    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


# ---- rows -------------------------------------------------------------------------------------


def _errors(
    result: dict[str, Any], log: dict[str, dict[str, Any]]
) -> tuple[list[float], list[float]]:
    ttft_err, itl_err = [], []
    for row in result["rows"]:
        entry = log.get(row["id"])
        if entry is None:
            continue
        ttft, gaps = _truth(entry)
        ttft_err.append(abs(row["ttft_ms"] - ttft))
        if row["itl_ms"] is not None and gaps:
            itl_err.append(abs(row["itl_ms"] - statistics.mean(gaps)))
    return ttft_err, itl_err


def _speed_rows(url: str, exe: str | None, quick: bool) -> list[BenchRow]:
    requests = 16 if quick else 64
    model = "custom:chunks=1000"
    case = f"zero-latency stub, {requests} x 1000 chunks, c=8"
    ours = _ours(url, model, requests, 8)
    chunks = sum(r["chunks"] for r in ours["rows"])
    per_chunk = ours["wall_s"] / chunks
    rows = [
        BenchRow(
            case,
            OURS,
            per_chunk,
            note=f"wall per content chunk: {chunks / ours['wall_s']:,.0f} chunks/s",
        ),
        BenchRow(
            case,
            OURS + " (CPU)",
            ours["cpu_s"] / chunks,
            note=f"event-loop CPU per chunk: {chunks / ours['cpu_s']:,.0f} chunks per CPU-second",
        ),
    ]
    if exe is None:
        rows.append(BenchRow(case, GUIDE, float("nan"), note="skipped: guidellm not installed"))
        return rows
    g = _guide(exe, url, model, requests, 8)
    g_chunks = sum(r["chunks"] for r in g["rows"])
    g_per = g["wall_s"] / g_chunks if g_chunks else float("nan")
    rows.append(
        BenchRow(
            case,
            GUIDE,
            g_per,
            ratio=g_per / per_chunk,
            note=f"wall per content chunk: {g_chunks / g['wall_s']:,.0f} chunks/s "
            "(worker processes)",
        )
    )
    # GuideLLM's CPU includes its start (torch import, worker spawn): a one-request run
    # measures that, and the difference is what its streaming costs per chunk.
    g1 = _guide(exe, url, model, 1, 1)
    extra_chunks = g_chunks - sum(r["chunks"] for r in g1["rows"])
    g_cpu = (g["cpu_s"] - g1["cpu_s"]) / extra_chunks if extra_chunks > 0 else float("nan")
    rows.append(
        BenchRow(
            case,
            GUIDE + " (CPU)",
            g_cpu,
            ratio=g_cpu / (ours["cpu_s"] / chunks),
            note="all its processes, minus a 1-request run (start-up): "
            f"{1 / g_cpu:,.0f} chunks per CPU-second",
        )
    )
    return rows


def _accuracy_rows(url: str, exe: str | None, quick: bool) -> list[BenchRow]:
    requests = 8 if quick else 24
    out: list[BenchRow] = []
    for model, truth in (
        ("steady", "TTFT 50 ms, 10 ms/token"),
        ("multi-token", "3 tokens/chunk, 20 ms/token"),
    ):
        results = {OURS: _ours(url, model, requests, 4)}
        if exe is not None:
            results[GUIDE] = _guide(exe, url, model, requests, 4)
        log = _stub_log(url)
        medians: dict[str, tuple[float, float]] = {}
        for impl, res in results.items():
            ttft_err, itl_err = _errors(res, log)
            medians[impl] = (
                statistics.median(ttft_err) / 1e3 if ttft_err else float("nan"),
                statistics.median(itl_err) / 1e3 if itl_err else float("nan"),
            )
        for i, what in enumerate(("TTFT", "ITL")):
            case = f"{what} error vs stub log, {model} ({truth})"
            ours_v = medians[OURS][i]
            out.append(BenchRow(case, OURS, ours_v, note="median |client - server send time|"))
            if GUIDE in medians:
                v = medians[GUIDE][i]
                ratio = v / ours_v if ours_v > 0 else None
                out.append(
                    BenchRow(case, GUIDE, v, ratio=ratio, note="median |client - server send time|")
                )
            else:
                out.append(
                    BenchRow(case, GUIDE, float("nan"), note="skipped: guidellm not installed")
                )
    return out


def _local_rows(exe: str | None, quick: bool) -> list[BenchRow]:
    case = "local llama.cpp (SmolLM2-135M): ITL vs server per-token time"
    requests = 4 if quick else 12
    given = os.environ.get("GAIA_EVAL_BENCH_LLAMA_URL")  # a llama.cpp server already up
    if given:
        return _llama_rows(case, exe, given.rstrip("/"), "local", requests)
    try:
        from gaia_eval.llm import local_server  # type: ignore[attr-defined,unused-ignore]
    except ImportError:  # this build has no embedded local model
        return [BenchRow(case, OURS, float("nan"), note="skipped: no embedded local model")]
    try:
        server = local_server.LocalServer(slots=2).start()
    except Exception as err:  # the extra may be missing: a skip, not a crash
        return [BenchRow(case, OURS, float("nan"), note=f"skipped: {err}"[:200])]
    try:
        return _llama_rows(case, exe, server.base_url, server.model, requests)
    finally:
        server.stop()


def _server_per_token_ms(url: str) -> tuple[float, float] | None:
    """(generation seconds, generated tokens) so far, from llama.cpp's /metrics."""
    try:
        with urllib.request.urlopen(url + "/metrics", timeout=10) as resp:
            text = resp.read().decode()
    except OSError:
        return None
    vals: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            vals[name.split("{", 1)[0]] = float(value)
    secs = vals.get("llamacpp:tokens_predicted_seconds_total")
    toks = vals.get("llamacpp:tokens_predicted_total")
    return None if secs is None or toks is None else (secs, toks)


def _llama_rows(case: str, exe: str | None, url: str, model: str, requests: int) -> list[BenchRow]:
    """Both clients on one llama.cpp server; the server's own per-token generation time over
    each client's run (its /metrics: generation seconds / generated tokens) is the reference
    for that client's mean ITL."""
    runs: list[tuple[str, Any]] = [(OURS, lambda: _ours(url, model, requests, 2))]
    if exe is not None:
        runs.append((GUIDE, lambda: _guide(exe, url, model, requests, 2)))
    rows: list[BenchRow] = []
    for impl, go in runs:
        before = _server_per_token_ms(url)
        res = go()
        after = _server_per_token_ms(url)
        if before is None or after is None or after[1] <= before[1]:
            rows.append(BenchRow(case, impl, float("nan"), note="skipped: server has no /metrics"))
            continue
        server = (after[0] - before[0]) * 1e3 / (after[1] - before[1])
        itl = statistics.mean([r["itl_ms"] for r in res["rows"] if r["itl_ms"]])
        rows.append(
            BenchRow(
                case,
                impl,
                abs(itl - server) / 1e3,
                note=f"mean ITL {itl:.2f} ms vs server {server:.2f} ms/token ({requests} req, c=2)",
            )
        )
    return rows


def run(quick: bool) -> list[BenchRow]:
    from gaia_eval.throughput.stub import stub_process

    exe = _guidellm()
    with stub_process() as url:
        rows = _speed_rows(url, exe, quick)
        rows += _accuracy_rows(url, exe, quick)
    rows += _local_rows(exe, quick)
    return rows
