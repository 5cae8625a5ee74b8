"""Result models of `gaia-eval benchmark`: one item per load level (and repeat), each with
its headline numbers and every raw request; the summary lists the levels."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gaia_eval.core.models import ResultModel


class Dist(ResultModel):
    """A distribution's mean and linear-interpolated percentiles (null with no values)."""

    mean: float | None
    """Arithmetic mean."""
    p50: float | None
    """Median."""
    p90: float | None
    """90th percentile."""
    p99: float | None
    """99th percentile."""
    p95: float | None = None
    """95th percentile (null in results written before it was recorded)."""
    max: float | None = None
    """The largest value: a single decode stall shows here (null in older results)."""


class Goodput(ResultModel):
    """Requests that met every service-level objective (`--slo`); failures never meet one."""

    slo: dict[str, float]
    """The objectives, ms: ttft_ms, tpot_ms, e2e_ms (a request without a TPOT, one token
    long, meets a TPOT objective)."""
    met: int
    """Requests that met all of them."""
    share: float
    """met / requests sent."""
    output_tokens_per_s: float | None
    """Output tokens of the requests that met them / the level's wall time."""


class Lag(ResultModel):
    """The client's scheduling lag: its start of a request minus the scheduled time."""

    p50: float | None
    """Median lag, ms."""
    p99: float | None
    """99th-percentile lag, ms."""


class InFlight(ResultModel):
    """Requests in flight when each request started (itself included)."""

    mean: float | None
    """Mean over requests."""
    max: int | None
    """Most at once."""


class TriageScore(ResultModel):
    """The email-triage acceptance metrics of one level (over LLM-classified emails)."""

    emails: int
    """Emails sent."""
    classified: int
    """Answers that parsed as a valid classification."""
    parse_errors: int
    """Answers that looked like JSON but did not parse or broke the schema (errors)."""
    skipped: int
    """Answers that were not JSON at all (skipped, as the spec says)."""
    request_errors: int
    """Requests that failed (no answer)."""
    within_one_bucket_accuracy: float | None
    """Share with |predicted urgency - label| <= 1."""
    urgent_vs_not_accuracy: float | None
    """Share whose urgent (urgency >= 4) or not agrees with the label."""
    urgent_recall: float | None
    """Share of urgent emails predicted urgent."""
    personal_recall: float | None
    """Share of personal emails predicted personal."""
    category_accuracy: float | None
    """Share with the labelled category."""
    tokens_per_triage: float | None
    """(prompt + completion tokens of the classify calls) / classified emails."""
    output_tokens_per_triage: float | None
    """Completion tokens of the classify calls / classified emails."""
    avg_ttft_ms: float | None
    """Mean TTFT over steps with a TTFT > 0."""
    avg_tokens_per_second: float | None
    """Mean per-step decode rate, 1000 / TPOT, over steps with a rate > 0."""
    meets_throughput_bar: bool
    """avg_tokens_per_second >= 10 (the spec's bar; 30 is the stretch target)."""
    pipeline_s: float
    """Wall seconds for the whole corpus at this level."""
    status: str
    """PASS when any email was classified, FAIL when none."""


class LevelStats(ResultModel):
    """The headline numbers of one load level (one repeat)."""

    level: str
    """Item id: `c4` (concurrency 4) or `r2.5` (2.5 requests/s), `#k` for repeat k."""
    repeat: int
    """Repeat number, from 1."""
    concurrency: int | None
    """Closed loop: requests kept in flight."""
    rate: float | None
    """Open loop: mean arrivals per second."""
    arrivals: str | None
    """Open loop: poisson or constant."""
    requests: int
    """Requests sent (warmup excluded)."""
    completed: int
    """Requests that streamed to the end."""
    errors: int
    """Requests that failed; none of them is a latency."""
    error_rate: float
    """errors / requests."""
    errors_by_kind: dict[str, int]
    """Failures by kind (unreachable, reset, malformed_sse, http_4xx, http_5xx, no_done,
    timeout, stream_error)."""
    stopped: str | None
    """Why sending stopped early (error_rate), or null."""
    ttft_ms: Dist
    """Time to first token (see formulas)."""
    first_answer_ms: Dist
    """Time to the first answer chunk, after any reasoning (differs from TTFT only for
    reasoning models)."""
    tpot_ms: Dist
    """Time per output token, (E2E - TTFT) / (output tokens - 1)."""
    itl_ms: Dist
    """Inter-token latency: chunk gaps divided by their tokens, pooled over requests; only
    from requests whose tokens per chunk were measured (see chunk_token_source)."""
    e2e_ms: Dist
    """End-to-end request latency."""
    output_tokens: int
    """Output tokens of the completed requests."""
    input_tokens: int | None
    """Prompt tokens of the completed requests (from usage), when the server reports them."""
    output_tokens_per_s: float | None
    """Aggregate: output tokens / the level's wall time."""
    requests_per_s: float | None
    """Completed requests / the level's wall time."""
    decode_tps_mean: float | None
    """Mean per-request decode rate, 1000 / TPOT."""
    token_source: str
    """usage | tokenizer | chunks, or mixed (see formulas)."""
    client_lag_ms: Lag
    """The client's scheduling lag."""
    in_flight: InFlight
    """Requests in flight at each start."""
    duration_s: float
    """The level's wall time, first scheduled send to last response end."""
    client_cpu_s: float
    """CPU seconds of the client's event-loop thread over the level."""
    client_cpu_share: float
    """client_cpu_s / duration_s: near 1 means the client may have been the bottleneck."""
    client_limited: bool
    """True when the client may have limited the result (CPU share >= 0.8 or lag p99 >=
    10 ms); `client_notes` says why."""
    client_notes: list[str] = Field(default_factory=list)
    """Why the client may have limited the result."""
    icl_ms: Dist | None = None
    """Inter-chunk latency: each gap between consecutive content chunks, pooled over
    requests (null in results written before it was recorded)."""
    chunk_token_source: str | None = None
    """How each chunk's tokens are known: usage | tokenizer (measured), apportioned |
    chunks (guessed: no ITL then), or mixed (null in older results)."""
    server_ctx_size: int | None = None
    """The server's context size (llama.cpp /props n_ctx, vLLM max_model_len), if known."""
    server_metrics: dict[str, float] = Field(default_factory=dict)
    """The server's /metrics over the level: counter deltas and last gauges (prompt and
    generation tokens, KV-cache use), when it has the endpoint."""
    peak_memory_gb: float | None = None
    """Peak resident memory of the model server during the level, when gaia-eval runs it."""
    goodput: Goodput | None = None
    """The share of requests (and of output tokens/s) meeting `--slo`, when given."""
    server_notes: list[str] = Field(default_factory=list)
    """What the server's own counters say about the level: most of its prompt tokens
    served from the prompt cache, say."""
    triage: TriageScore | None = None
    """Acceptance metrics, for the triage workload."""


class RequestRow(ResultModel):
    """One request's raw readings; every metric can be recomputed from these."""

    level: str
    """The level's item id."""
    item: str
    """The workload request it sent."""
    scheduled_ms: float
    """Scheduled send, ms after the level began."""
    start_ms: float
    """Client start (before taking a connection), ms after the level began."""
    sent_ms: float
    """Request bytes written, ms after the level began."""
    ttft_ms: float | None
    """TTFT by the level's origin (open loop: scheduled; closed loop: sent)."""
    first_answer_ms: float | None
    """First answer chunk by the same origin."""
    e2e_ms: float | None
    """E2E by the same origin (null for a failure)."""
    tpot_ms: float | None
    """TPOT (null for a failure or a one-token answer)."""
    output_tokens: int | None
    """Output tokens by token_source (null for a failure)."""
    input_tokens: int | None
    """Prompt tokens from usage."""
    token_source: str | None
    """usage | tokenizer | chunks."""
    chunk_offsets_ms: list[float]
    """Arrival (first byte) of each content chunk, ms after sent."""
    chunk_tokens: list[int]
    """Tokens each content chunk carried (measured or guessed: chunk_token_source)."""
    chunk_token_source: str | None = None
    """usage | tokenizer | apportioned | chunks (null in older results)."""
    chunk_kinds: str
    """One letter per content chunk: t text, r reasoning, c tool call."""
    end_ms: float | None
    """Arrival of the final event (or the failure), ms after sent."""
    in_flight: int
    """Requests in flight at its start, itself included."""
    connection_reused: bool
    """A kept-alive connection carried it."""
    status: int
    """HTTP status (0 when none arrived)."""
    server_request_id: str | None
    """The server's id for the request."""
    finish_reason: str | None
    """Why generation stopped."""
    error_kind: str | None
    """Failure kind, or null."""
    error: str | None
    """Failure text, or null."""
    answer: str | None = None
    """The answer text (triage only, for re-scoring)."""


class LevelResult(ResultModel):
    """The item result: one level's numbers and its raw requests."""

    stats: LevelStats
    """Headline numbers."""
    requests: list[RequestRow]
    """Every counted request, in send order."""


class Variance(ResultModel):
    """Multi-run variance of one metric across repeats (spec §9)."""

    n: int
    """Repeats with a value."""
    mean: float
    """Mean."""
    stdev: float
    """Sample standard deviation (0 with n < 2)."""
    min: float
    """Smallest."""
    max: float
    """Largest."""
    cv_pct: float
    """100 * stdev / mean."""
    ci95_half_width: float
    """1.96 * stdev / sqrt(n) (0 with n < 2)."""


class BenchmarkSummary(ResultModel):
    """The suite summary: every level's numbers, repeat variance, formulas, the server."""

    workload: str
    """Workload name."""
    api: str
    """openai or anthropic."""
    levels: list[LevelStats]
    """One per measured level and repeat, in run order."""
    variance: dict[str, dict[str, Variance]] = Field(default_factory=dict)
    """Level (without repeat) -> metric -> variance, when --repeats > 1."""
    all_failed: bool
    """True when not a single request succeeded."""
    client_limited: bool
    """True when any level may have been limited by the client."""
    formulas: dict[str, str]
    """How every number is computed."""


class GateManifest(ResultModel):
    """The performance gate (spec §9): absolute bars, checked on every level."""

    ttft_max_s: float | None = None
    """Mean TTFT (triage: the mean over steps) must not exceed this."""
    throughput_min_tps: float | None = None
    """Mean per-request decode tokens/s must reach this."""
    pipeline_max_s: float | None = None
    """A level's wall time must not exceed this."""
    peak_memory_max_gb: float | None = None
    """The model server's peak RSS must not exceed this (checked when measured)."""
    enforce: bool = False
    """Exit 1 on a miss only when true; otherwise report the misses."""


RESULT_MODELS: tuple[type[BaseModel], ...] = (LevelResult, BenchmarkSummary, GateManifest)
