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
    from gaia_eval.throughput.load import Arrivals, LevelPlan
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
        "the default), prefix (prompts sharing a long system prefix), multiturn "
        "(conversations that grow turn by turn) or a JSONL file of {messages, max_tokens} "
        "or ShareGPT {conversations} rows",
        default="chat",
    ),
    Option("--turns", "multiturn: turns per conversation (default 4)", int, default=4),
    Option(
        "--prefix-words",
        "prefix: words of the system prefix every prompt shares (default 512)",
        int,
        default=512,
    ),
    Option(
        "--prompt-cache",
        "send llama.cpp's cache_prompt on or off with every request (default: the "
        "server's own setting), to compare TTFT with its prefix cache and without",
        choices=("on", "off"),
    ),
    Option(
        "--concurrency",
        "closed loop: levels of requests in flight, e.g. 1,2,4",
        exclusive="load",
    ),
    Option("--rate", "open loop: levels of requests per second, e.g. 0.5,1,2", exclusive="load"),
    Option(
        "--sweep",
        "find the highest request rate the server sustains: a probe one at a time, one "
        "with many in flight, then N open-loop rates between them (default 5)",
        int,
        kind="optional",
        const=5,
        metavar="N",
        exclusive="load",
    ),
    Option(
        "--arrivals",
        "open loop inter-arrival times (default poisson; --sweep: constant, as GuideLLM's "
        "sweep, so each step offers exactly its rate)",
        choices=("poisson", "constant"),
    ),
    Option(
        "--burstiness",
        "open loop, poisson: gamma shape of the inter-arrival times, as vLLM's (1 Poisson, "
        "below 1 burstier, above 1 steadier)",
        finite,
        default=1.0,
    ),
    Option(
        "--requests",
        "requests per level (default: triage the whole corpus, else 24)",
        int,
        exclusive="stop",
    ),
    Option("--duration", "or seconds of sending per level", finite, exclusive="stop"),
    Option(
        "--max-tokens",
        "max output tokens (chat 128, triage 64); chat also takes a distribution drawn per "
        "request: uniform:LO,HI or normal:MEAN,SD",
        metavar="N|DIST",
    ),
    Option(
        "--input-words",
        "chat prompt length in words: N, uniform:LO,HI or normal:MEAN,SD (default 128)",
        metavar="N|DIST",
    ),
    Option(
        "--input-tokens",
        "chat prompt length in tokens, counted by the server's tokenizer (llama.cpp "
        "/tokenize) or --tokenizer: N, uniform:LO,HI or normal:MEAN,SD",
        metavar="N|DIST",
    ),
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
    open_loop = bool(args.rate) or args.sweep is not None
    if not 0 < args.burstiness < float("inf"):
        msg = f"--burstiness must be a positive number (1 is Poisson), got {args.burstiness}"
        raise InvalidInputError(msg)
    arrivals: Arrivals = args.arrivals or ("constant" if args.sweep is not None else "poisson")
    if args.burstiness != 1.0 and not (open_loop and arrivals == "poisson"):
        msg = (
            "--burstiness shapes poisson arrivals of an open loop: use it with --rate or "
            "--sweep and --arrivals poisson (constant arrivals have no spread to shape)"
        )
        raise InvalidInputError(msg)
    if args.sweep is not None and args.repeats > 1:
        msg = (
            "--sweep with --repeats: a sweep's steps follow its own probes, so repeats would "
            "offer different rates; run the sweep again instead, or drop --repeats"
        )
        raise InvalidInputError(msg)
    if args.sweep is not None and not 1 <= args.sweep <= 50:
        msg = f"--sweep N: N is the number of open-loop rates, 1 to 50; got {args.sweep}"
        raise InvalidInputError(msg)
    requests = args.requests if args.duration is None else None
    if requests is None and args.duration is None:
        requests = default_requests
    common = {
        "requests": requests,
        "duration_s": args.duration,
        "max_error_rate": args.max_error_rate,
    }
    if args.sweep is not None:
        from gaia_eval.throughput.sweep import MAX, SYNC

        return [
            LevelPlan(concurrency=1, sweep=SYNC, **common),
            LevelPlan(sweep=MAX, **common),
            *(
                LevelPlan(arrivals=arrivals, burstiness=args.burstiness, sweep=str(k), **common)
                for k in range(1, args.sweep + 1)
            ),
        ]
    if args.rate:
        return [
            LevelPlan(rate=r, arrivals=arrivals, burstiness=args.burstiness, **common)
            for r in _levels(args.rate, "--rate", float)
        ]
    levels = _levels(args.concurrency or "1", "--concurrency", int)
    return [LevelPlan(concurrency=int(c), **common) for c in levels]


def workload(args: argparse.Namespace, blocks: list[int]) -> Workload:
    """The workload the flags ask for; `blocks` are the requests of the warmup and of each
    level (and repeat) in run order."""
    needed = sum(blocks)
    from gaia_eval.throughput import workloads
    from gaia_eval.throughput.lengths import LIMIT, parse

    out_lens = parse(args.max_tokens, "--max-tokens") if args.max_tokens is not None else None
    in_lens = parse(args.input_words or "128", "--input-words")
    in_tokens = parse(args.input_tokens, "--input-tokens") if args.input_tokens else None
    if in_tokens is not None and (args.input_words is not None or args.workload != "chat"):
        msg = (
            "--input-tokens sets the chat workload's prompt length in tokens: use it with "
            "--workload chat and without --input-words"
        )
        raise InvalidInputError(msg)
    chat = args.workload in ("chat", "prefix", "multiturn")
    if not chat and out_lens is not None and out_lens.kind != "fixed":
        msg = (
            f"--max-tokens {args.max_tokens!r}: a distribution draws lengths for the chat "
            f"workload only; --workload {args.workload} takes one number"
        )
        raise InvalidInputError(msg)
    fixed_out = int(out_lens.a) if out_lens is not None else None
    if args.workload == "triage":
        return workloads.triage_workload(fixed_out)
    if args.workload == "prefix":
        if not 1 <= args.prefix_words <= LIMIT:
            msg = f"--prefix-words must be from 1 to {LIMIT:,}, got {args.prefix_words}"
            raise InvalidInputError(msg)
        return workloads.prefix_workload(
            count=max(1, needed),
            prefix_words=args.prefix_words,
            input_words=in_lens,
            max_tokens=out_lens or 128,
            ignore_eos=args.ignore_eos,
        )
    if args.workload == "multiturn":
        if not 1 <= args.turns <= 100:
            msg = f"--turns must be from 1 to 100 turns per conversation, got {args.turns}"
            raise InvalidInputError(msg)
        return workloads.multiturn_workload(
            blocks,
            turns=args.turns,
            input_words=in_lens,
            max_tokens=out_lens or 64,
            ignore_eos=args.ignore_eos,
        )
    if chat:
        return workloads.chat_workload(
            count=max(1, needed),
            input_words=in_lens,
            max_tokens=out_lens or 128,
            ignore_eos=args.ignore_eos,
            input_tokens=in_tokens,
        )
    path = Path(args.workload)
    if not path.is_file():
        msg = f"--workload {args.workload!r}: not triage, chat or an existing JSONL file"
        raise InvalidInputError(msg)
    return workloads.jsonl_workload(path, fixed_out)


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
    if args.workload != "multiturn" and args.turns != 4:
        msg = "--turns sets the conversations of --workload multiturn; add that, or drop it"
        raise InvalidInputError(msg)
    if args.workload != "prefix" and args.prefix_words != 512:
        msg = "--prefix-words sets the shared prefix of --workload prefix; add that, or drop it"
        raise InvalidInputError(msg)
    blocks = [args.warmup] + [per_level] * (len(level_plans) * args.repeats)
    wl = workload(args, blocks)
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
        prompt_cache=None if args.prompt_cache is None else args.prompt_cache == "on",
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
