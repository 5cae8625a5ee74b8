"""The model-serving benchmark: how fast a model server serves streaming requests.

TTFT, TPOT, inter-token latency, tokens/s and client overhead per load level, closed loop
(`--concurrency 1,2,4`) or open loop (`--rate 0.5,1`), over the email-triage corpus, synthetic
chat prompts or a JSONL file. Default target: the embedded local model. The flags of
`gaia-eval run benchmark` (alias `gaia-eval benchmark`) and the suite they build.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.options import RUN_UNGATED, Option, Options, SuiteCommand, finite

if TYPE_CHECKING:
    from gaia_eval.throughput.load import LevelPlan
    from gaia_eval.throughput.metrics import Tokenizer
    from gaia_eval.throughput.workloads import Workload


MODEL_ENV = "GAIA_EVAL_BENCHMARK_MODEL"


OPTIONS = Options.of(
    Option(
        "--model",
        "model spec: local, openai:<base_url>#<model>, anthropic:[<base_url>#]<model> "
        f"(default local) [{MODEL_ENV}]",
    ),
    Option(
        "--workload",
        "triage (the committed email corpus under a JSON schema), chat (synthetic prompts, "
        "the default) or a JSONL file of {messages, max_tokens} rows",
        default="chat",
    ),
    Option(
        "--concurrency",
        "closed loop: levels of requests in flight, e.g. 1,2,4",
        exclusive="load",
    ),
    Option("--rate", "open loop: levels of requests per second, e.g. 0.5,1,2", exclusive="load"),
    Option(
        "--arrivals",
        "open loop inter-arrival times (default poisson)",
        choices=("poisson", "constant"),
        default="poisson",
    ),
    Option(
        "--requests",
        "requests per level (default: triage the whole corpus, else 24)",
        int,
        exclusive="stop",
    ),
    Option("--duration", "or seconds of sending per level", finite, exclusive="stop"),
    Option("--max-tokens", "max output tokens (chat 128, triage 64)", int),
    Option("--input-words", "chat prompt length in words", int, default=128),
    Option(
        "--ignore-eos",
        "chat: ask the server (vLLM, llama.cpp) for exactly --max-tokens tokens",
        kind="switch",
    ),
    Option("--warmup", "uncounted requests first (default 2)", int, default=2),
    Option("--repeats", "run every level K times (variance)", int, default=1),
    Option("--timeout", "per-request timeout, s", finite, default=600.0),
    Option(
        "--max-error-rate",
        "stop a level's sending when more than this share failed (default 0.5)",
        finite,
        default=0.5,
    ),
    Option(
        "--tokenizer", "tokenizer.json to count output tokens when the server sends no usage", Path
    ),
    Option(
        "--slo",
        "service-level objectives for goodput, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=8000: "
        "each level reports the share of requests (and of output tokens/s) that met all",
        metavar="KEY=MS,...",
    ),
    Option(
        "--gate",
        "performance bars (JSON/YAML: ttft_max_s, throughput_min_tps, pipeline_max_s, "
        "peak_memory_max_gb, enforce); exit 1 on a miss only when enforce is true",
        Path,
        dest="gate_manifest",
        metavar="MANIFEST",
    ),
    RUN_UNGATED,
)


def _levels(text: str, flag: str, kind: type) -> list[float]:
    out = []
    for part in text.split(","):
        try:
            value = kind(part.strip())
        except ValueError:
            value = 0
        if value <= 0:
            msg = f"{flag} {text!r}: each level must be a positive {kind.__name__}, e.g. 1,2,4"
            raise InvalidInputError(msg)
        out.append(value)
    return out


def plans(args: argparse.Namespace, default_requests: int) -> list[LevelPlan]:
    from gaia_eval.throughput.load import LevelPlan

    for flag, value in (("--requests", args.requests), ("--repeats", args.repeats)):
        if value is not None and value < 1:
            msg = f"{flag} must be >= 1, got {value}"
            raise InvalidInputError(msg)
    if args.duration is not None and args.duration <= 0:
        msg = f"--duration must be > 0, got {args.duration}"
        raise InvalidInputError(msg)
    if not 0 <= args.max_error_rate <= 1:
        msg = f"--max-error-rate must be within [0, 1], got {args.max_error_rate}"
        raise InvalidInputError(msg)
    requests = args.requests if args.duration is None else None
    if requests is None and args.duration is None:
        requests = default_requests
    common = {
        "requests": requests,
        "duration_s": args.duration,
        "max_error_rate": args.max_error_rate,
    }
    if args.rate:
        return [
            LevelPlan(rate=r, arrivals=args.arrivals, **common)
            for r in _levels(args.rate, "--rate", float)
        ]
    levels = _levels(args.concurrency or "1", "--concurrency", int)
    return [LevelPlan(concurrency=int(c), **common) for c in levels]


def workload(args: argparse.Namespace, needed: int) -> Workload:
    from gaia_eval.throughput import workloads

    if args.max_tokens is not None and args.max_tokens < 1:
        msg = f"--max-tokens must be >= 1, got {args.max_tokens}"
        raise InvalidInputError(msg)
    if args.workload == "triage":
        return workloads.triage_workload(args.max_tokens)
    if args.workload == "chat":
        if args.input_words < 1:
            msg = f"--input-words must be >= 1, got {args.input_words}"
            raise InvalidInputError(msg)
        return workloads.chat_workload(
            count=max(1, needed),
            input_words=args.input_words,
            max_tokens=args.max_tokens or 128,
            ignore_eos=args.ignore_eos,
        )
    path = Path(args.workload)
    if not path.is_file():
        msg = f"--workload {args.workload!r}: not triage, chat or an existing JSONL file"
        raise InvalidInputError(msg)
    return workloads.jsonl_workload(path, args.max_tokens)


SLO_KEYS = ("ttft_ms", "tpot_ms", "e2e_ms")


def slo(text: str | None) -> dict[str, float]:
    """--slo ttft_ms=500,tpot_ms=50 -> {"ttft_ms": 500.0, "tpot_ms": 50.0}."""
    if not text:
        return {}
    out: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.strip().partition("=")
        try:
            ms = float(value)
        except ValueError:
            ms = -1.0
        if not sep or key not in SLO_KEYS or not 0 < ms < float("inf"):
            msg = (
                f"--slo {text!r}: {part.strip()!r} is not KEY=MS with KEY one of "
                f"{', '.join(SLO_KEYS)} and MS a positive number (e.g. ttft_ms=500,tpot_ms=50)"
            )
            raise InvalidInputError(msg)
        out[key] = ms
    return out


def tokenizer(path: Path | None) -> Tokenizer | None:
    if path is None:
        return None
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ModuleNotFoundError as err:
        from gaia_eval.core.extras import install_hint

        msg = f"--tokenizer needs the tokenizers package: {install_hint('onnx')}"
        raise InvalidInputError(msg) from err
    try:
        tok = HFTokenizer.from_file(str(path))
    except Exception as err:  # the library raises its own exception type
        msg = f"--tokenizer {path}: not a tokenizer.json ({err})"
        raise InvalidInputError(msg) from err
    # A tokenizer.json may pad or truncate to a fixed length (embedders' files do): a count
    # must see the text's own tokens only.
    tok.no_padding()
    tok.no_truncation()

    def count(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    return count


def main(args: argparse.Namespace) -> int:
    from gaia_eval.core import runloop
    from gaia_eval.core.launch import request, run_and_print
    from gaia_eval.throughput.gate import load_manifest, manifest_verdict
    from gaia_eval.throughput.suite import BenchConfig, BenchmarkSuite

    model = args.model or os.environ.get(MODEL_ENV, "").strip() or "local"
    if args.warmup < 0:
        msg = f"--warmup must be >= 0, got {args.warmup}"
        raise InvalidInputError(msg)
    triage = args.workload == "triage"
    default_requests = 87 if triage else 24
    level_plans = plans(args, default_requests)
    per_level = level_plans[0].requests or 64
    wl = workload(args, args.warmup + per_level * len(level_plans) * args.repeats)
    if triage and args.requests is None and args.duration is None:
        level_plans = [type(p)(**{**p.__dict__, "requests": len(wl.items)}) for p in level_plans]
    manifest = load_manifest(args.gate_manifest) if args.gate_manifest else None
    config = BenchConfig(
        model=model,
        workload=wl,
        plans=level_plans,
        repeats=args.repeats,
        warmup=args.warmup,
        timeout_s=args.timeout,
        tokenizer=tokenizer(args.tokenizer),
        tokenizer_spec=str(args.tokenizer) if args.tokenizer else None,
        slo=slo(args.slo),
    )
    suite = BenchmarkSuite(config)
    req = request(args)
    assert isinstance(req, runloop.RunRequest)
    if manifest is not None:
        label = str(args.gate_manifest)
        req.threshold_gate = lambda env: manifest_verdict(manifest, label, env)
    return run_and_print(suite, req)


COMMAND = SuiteCommand(
    "benchmark",
    ("benchmark",),
    "Model-serving benchmark: TTFT, inter-token latency and tokens/s under load (streaming).",
    OPTIONS,
    main,
)
