"""The formulas, each named once (the report prints FORMULAS). Pure: records in, numbers out.

- TTFT: request sent (closed loop) or scheduled (open loop) -> arrival of the first chunk
  carrying generated content (text, reasoning or a tool-call delta). A role-only or empty
  chunk is not a token.
- First answer: the same, to the first text or tool-call chunk (after any reasoning).
- E2E: the same origin -> arrival of the stream's final event ([DONE] / message_stop).
- TPOT = (E2E - TTFT) / (output_tokens - 1); none for a one-token answer.
- ITL: each gap between consecutive content chunks divided by the tokens the later chunk
  carried, once per token (a 3-token chunk 60 ms after the previous one gives three 20 ms
  values). The first chunk's tokens have no gap, so a request gives output_tokens minus
  the first chunk's tokens values. Only where each chunk's tokens are measured
  (chunk_token_source `usage` or `tokenizer`); a guessed split would make a per-token
  figure up.
- ICL (inter-chunk latency): each gap between consecutive content chunks, one value per
  gap, whatever the chunks carried: the figure that stands where tokens per chunk are
  not known.
- Tokens per chunk (chunk_token_source): the server's running usage, or a usage total
  equal to the chunk count (`usage`); each chunk's text counted by the server's own
  tokenizer (llama.cpp's /tokenize) or `--tokenizer` (`tokenizer`); else a guess: the usage
  total split by text length (`apportioned`) or one per chunk (`chunks`).
- Output tokens: the server's `usage` when it sends one (token_source `usage`), else the
  tokenizer (`tokenizer`), else one per content chunk (`chunks`, said so).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gaia_eval.core.stats import mean, percentile_linear
from gaia_eval.throughput.record import StreamRecord

Tokenizer = Callable[[str], int]
"""Counts the tokens of a text."""

FORMULAS: dict[str, str] = {
    "ttft_ms": "origin -> first byte of the first chunk carrying generated content "
    "(text, reasoning or tool call; role-only and empty chunks skipped)",
    "first_answer_ms": "origin -> first text or tool-call chunk (after reasoning)",
    "e2e_ms": "origin -> first byte of the stream's final event ([DONE] / message_stop)",
    "tpot_ms": "(E2E - TTFT) / (output_tokens - 1)",
    "itl_ms": "gap between consecutive content chunks / tokens in the later chunk, "
    "one value per token; only where tokens per chunk are measured (usage or tokenizer)",
    "icl_ms": "gap between consecutive content chunks, one value per gap (inter-chunk "
    "latency: what stands where tokens per chunk are not known)",
    "output_tokens_per_s": "sum of output tokens of successful requests / level wall time "
    "(first scheduled send -> last response end)",
    "requests_per_s": "successful requests / level wall time",
    "client_lag_ms": "client start of the request - its scheduled time",
    "origin": "open loop (--rate): the scheduled send time, so client lag counts against "
    "latency; closed loop (--concurrency): the moment the request's bytes were written",
    "percentiles": "linear interpolation between closest ranks (numpy's default)",
}


@dataclass(frozen=True)
class Derived:
    """The per-request numbers derived from one successful record."""

    ttft_ms: float | None
    first_answer_ms: float | None
    e2e_ms: float
    tpot_ms: float | None
    itl_ms: list[float]
    output_tokens: int
    chunk_tokens: list[int]
    token_source: str
    icl_ms: list[float]
    chunk_token_source: str


MEASURED_CHUNKS = frozenset({"usage", "tokenizer"})
"""chunk_token_source values that count each chunk's tokens rather than guess them."""


def chunk_tokens(rec: StreamRecord, tokenizer: Tokenizer | None = None) -> tuple[list[int], str]:
    """Tokens carried by each content chunk, and how they are known (chunk_token_source,
    see the module docstring)."""
    n = len(rec.chunk_t_ns)
    cum = rec.chunk_cum_tokens
    total = rec.usage_output_tokens
    if total is not None and n and all(c is not None for c in cum):
        # Running usage on every chunk (vLLM continuous_usage_stats): exact per chunk.
        out, prev = [], 0
        for c in cum:
            assert c is not None
            out.append(max(0, c - prev))
            prev = max(prev, c)
        return out, "usage"
    if total is not None and total == n:
        return [1] * n, "usage"
    if tokenizer is not None:
        counts = [tokenizer(t) for t in rec.chunk_text]
        # A text cut into chunks can count differently than the tokens that made it: a
        # count that disagrees with the server's own total is no measurement.
        if total is None or sum(counts) == total:
            return counts, "tokenizer"
    if total is not None:
        weights = [max(1, len(t)) for t in rec.chunk_text]
        return _apportion(total, weights), "apportioned"
    return [1] * n, "chunks"


def _apportion(total: int, weights: Sequence[int]) -> list[int]:
    """Split `total` over chunks in proportion to `weights` (largest remainder), giving each
    chunk at least one token while the total allows: a content chunk carries a token."""
    n = len(weights)
    if n == 0:
        return []
    base = [1] * n if total >= n else [0] * n
    left = total - sum(base)
    wsum = sum(weights)
    shares = [left * w / wsum for w in weights]
    extra = [math.floor(s) for s in shares]
    rest = left - sum(extra)
    order = sorted(range(n), key=lambda i: (-(shares[i] - extra[i]), i))
    for i in order[:rest]:
        extra[i] += 1
    return [b + e for b, e in zip(base, extra, strict=True)]


def derive(rec: StreamRecord, *, open_loop: bool, tokenizer: Tokenizer | None = None) -> Derived:
    """Per-request numbers of a successful record (see the module docstring)."""
    origin = rec.t_scheduled_ns if open_loop else rec.t_sent_ns
    tokens, chunk_source = chunk_tokens(rec, tokenizer)
    if rec.usage_output_tokens is not None:
        output, source = rec.usage_output_tokens, "usage"
    else:
        output, source = sum(tokens), "tokenizer" if chunk_source == "tokenizer" else "chunks"
    ttft = _ms(rec.chunk_t_ns[0] - origin) if rec.chunk_t_ns else None
    first_answer = next(
        (
            _ms(t - origin)
            for t, k in zip(rec.chunk_t_ns, rec.chunk_kind, strict=True)
            if k in ("text", "tool")
        ),
        None,
    )
    e2e = _ms(rec.t_end_ns - origin)
    tpot = (e2e - ttft) / (output - 1) if ttft is not None and output > 1 else None
    icl = [_ms(b - a) for a, b in zip(rec.chunk_t_ns, rec.chunk_t_ns[1:], strict=False)]
    itl: list[float] = []
    carry = 0
    for i in range(1, len(rec.chunk_t_ns)):
        carry += rec.chunk_t_ns[i] - rec.chunk_t_ns[i - 1]
        k = tokens[i]
        if k > 0 and chunk_source in MEASURED_CHUNKS:
            itl.extend([_ms(carry) / k] * k)
            carry = 0
    return Derived(ttft, first_answer, e2e, tpot, itl, output, tokens, source, icl, chunk_source)


def _ms(ns: int | float) -> float:
    return ns / 1e6


def distribution(values: Sequence[float]) -> dict[str, float | None]:
    """{mean, p50, p90, p95, p99, max} (linear percentiles); all null for no values."""
    if not values:
        return {"mean": None, "p50": None, "p90": None, "p95": None, "p99": None, "max": None}
    return {
        "mean": round(mean(values), 4),
        "p50": round(percentile_linear(values, 50), 4),
        "p90": round(percentile_linear(values, 90), 4),
        "p95": round(percentile_linear(values, 95), 4),
        "p99": round(percentile_linear(values, 99), 4),
        "max": round(max(values), 4),
    }


def variance_stats(values: Sequence[float]) -> dict[str, float | int]:
    """Multi-run variance (spec §9): n, mean, sample stdev, min, max, cv%, and the 95% CI
    half-width 1.96 * stdev / sqrt(n); stdev and CI are 0 with fewer than two values."""
    n = len(values)
    if n == 0:
        return {
            "n": 0,
            "mean": 0.0,
            "stdev": 0.0,
            "min": 0.0,
            "max": 0.0,
            "cv_pct": 0.0,
            "ci95_half_width": 0.0,
        }
    m = mean(values)
    sd = math.sqrt(math.fsum((v - m) ** 2 for v in values) / (n - 1)) if n >= 2 else 0.0
    return {
        "n": n,
        "mean": round(m, 6),
        "stdev": round(sd, 6),
        "min": round(min(values), 6),
        "max": round(max(values), 6),
        "cv_pct": round(100 * sd / m, 4) if m else 0.0,
        "ci95_half_width": round(1.96 * sd / math.sqrt(n), 6) if n >= 2 else 0.0,
    }
