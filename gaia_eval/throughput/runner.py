"""The benchmark's I/O: resolve the target, start the local model, scrape the server, run a
level on a fresh event loop. It prints nothing."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.throughput.client import Endpoint, StreamClient
from gaia_eval.throughput.load import LevelPlan, LevelRun, run_level
from gaia_eval.throughput.metrics import Tokenizer
from gaia_eval.throughput.record import StreamRecord

ANTHROPIC_VERSION = "2023-06-01"
_SCRAPE_TIMEOUT_S = 5.0
# Families of /metrics worth keeping (llama.cpp and vLLM names); others are dropped.
_KEEP_METRICS = re.compile(
    r"^(llamacpp|vllm):(prompt_tokens_total|tokens_predicted_total|generation_tokens_total|"
    r"kv_cache_usage_ratio|kv_cache_usage_perc|gpu_cache_usage_perc|kv_cache_tokens|"
    r"requests_processing|requests_deferred|num_requests_running|num_requests_waiting|"
    r"n_decode_total|prompt_seconds_total|tokens_predicted_seconds_total|"
    # Prompt tokens served from the server's cache: a re-run answered from it is not a
    # measurement of prefill (the suite warns when most of a level's prompt was cached).
    r"prompt_tokens_cached_total|prefix_cache_hits_total|prefix_cache_queries_total)$"
)


@dataclass
class Target:
    """A resolved --model: where to send, in which protocol, and what to call the model."""

    spec: str
    endpoint: Endpoint
    model: str
    local: Any = None
    """The LocalServer when gaia-eval started one (stopped by `close`)."""
    facts: dict[str, Any] = field(default_factory=dict)
    """Recorded server facts (local server info)."""

    @property
    def origin(self) -> str:
        return self.endpoint.origin

    def close(self) -> None:
        if self.local is not None:
            self.local.stop()
            self.local = None

    def rss_bytes(self) -> int | None:
        return self.local.rss_bytes() if self.local is not None else None


def _anthropic_parts(spec: str) -> tuple[str, str]:
    """(base URL, model) of an `anthropic:[<base_url>#]<model>` spec."""
    rest = spec.removeprefix("anthropic:")
    base, sep, model = rest.rpartition("#")
    if not sep:
        base = os.environ.get("ANTHROPIC_BASE_URL", "https://api.anthropic.com")
        model = rest
    if not model or not base.startswith(("http://", "https://")):
        msg = f"--model {spec!r}: expected 'anthropic:<model>' or 'anthropic:<base_url>#<model>'"
        raise InvalidInputError(msg)
    return base, model


def remote_base(spec: str) -> str | None:
    """The base URL a non-local --model streams from (None for `local`, which the run
    starts itself), for the pre-run probe; nothing is started or sent."""
    spec = spec.strip()
    if spec == "local" or spec.startswith("local:"):
        return None
    if spec.startswith("anthropic:"):
        return _anthropic_parts(spec)[0]
    from gaia_eval.llm.spec import parse_model_spec

    return parse_model_spec(spec).base_url


def resolve_target(spec: str, *, slots: int | None = None) -> Target:
    """Parse --model and, for `local`, start the embedded server."""
    spec = spec.strip()
    if spec == "local" or spec.startswith("local:"):
        return _local_target(spec, slots)
    if spec.startswith("anthropic:"):
        base, model = _anthropic_parts(spec)
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        key = os.environ.get("ANTHROPIC_API_KEY")
        if key:
            headers["x-api-key"] = key
        base = base.rstrip("/")
        url = base + ("/messages" if base.endswith("/v1") else "/v1/messages")
        return Target(spec, Endpoint(url, "anthropic", headers), model)
    from gaia_eval.llm.openai_compat import chat_url
    from gaia_eval.llm.spec import OPENAI_KEY_ENV, parse_model_spec

    parsed = parse_model_spec(spec)
    if parsed.backend != "openai" or parsed.base_url is None:
        msg = (
            f"--model {spec!r}: the benchmark streams from an HTTP endpoint; use 'local', "
            "'openai:<base_url>#<model>' or 'anthropic:[<base_url>#]<model>'"
        )
        raise InvalidInputError(msg)
    headers = {}
    key = os.environ.get(OPENAI_KEY_ENV)
    if key:
        headers["authorization"] = f"Bearer {key}"
    return Target(spec, Endpoint(chat_url(parsed.base_url), "openai", headers), parsed.model)


def _local_target(spec: str, slots: int | None) -> Target:
    try:
        from gaia_eval.llm import local_server  # type: ignore[attr-defined,unused-ignore]
    except ImportError as err:
        msg = (
            f"--model {spec}: this gaia-eval has no embedded local model "
            "(gaia_eval.llm.local_server); use 'openai:<base_url>#<model>'"
        )
        raise InvalidInputError(msg) from err
    name = spec.partition(":")[2] or local_server.DEFAULT_LOCAL_MODEL
    server = local_server.LocalServer(name, slots=slots)
    server.start()
    facts: dict[str, Any] = {}
    if server.info is not None:
        facts = server.info.model_dump(mode="json")
    endpoint = Endpoint(server.openai_base_url + "/chat/completions", "openai")
    return Target(spec, endpoint, name, local=server, facts=facts)


def _get_json(url: str) -> Any:
    import httpx

    try:
        resp = httpx.get(url, timeout=_SCRAPE_TIMEOUT_S, trust_env=False)
    except httpx.HTTPError:
        return None
    if resp.status_code != 200:
        return None
    try:
        return resp.json()
    except ValueError:
        return None


def context_size(target: Target) -> int | None:
    """The server's context size: llama.cpp /props, else vLLM's /v1/models max_model_len."""
    props = _get_json(target.origin + "/props")
    if isinstance(props, dict):
        gen = props.get("default_generation_settings") or {}
        n_ctx = gen.get("n_ctx") if isinstance(gen, dict) else None
        if isinstance(n_ctx, int):
            return n_ctx
    models = _get_json(target.endpoint.url.rsplit("/", 2)[0] + "/models")
    if isinstance(models, dict):
        for row in models.get("data") or ():
            if isinstance(row, dict) and isinstance(row.get("max_model_len"), int):
                return int(row["max_model_len"])
    return None


def server_tokenizer(target: Target) -> Tokenizer | None:
    """The server's own token counter, where it has one (llama.cpp's POST /tokenize), so
    each chunk's tokens are counted, not guessed; None when it has none. Used after a
    level, never while one is timed; counts are cached by text."""
    import httpx

    url = target.origin + "/tokenize"

    def ask(text: str) -> int | None:
        try:
            resp = httpx.post(
                url, json={"content": text}, timeout=_SCRAPE_TIMEOUT_S, trust_env=False
            )
            tokens = resp.json().get("tokens") if resp.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return len(tokens) if isinstance(tokens, list) else None

    if ask("hello world") is None:
        return None
    cache: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in cache:
            n = ask(text)
            if n is None:
                msg = f"{url} stopped answering while chunk tokens were counted"
                raise InfrastructureError(msg)
            cache[text] = n
        return cache[text]

    return count


def scrape_metrics(target: Target) -> dict[str, float] | None:
    """The kept /metrics families, summed over labels; None when the server has none."""
    import httpx

    try:
        resp = httpx.get(target.origin + "/metrics", timeout=_SCRAPE_TIMEOUT_S, trust_env=False)
    except httpx.HTTPError:
        return None
    if resp.status_code != 200 or "text/plain" not in resp.headers.get(
        "content-type", "text/plain"
    ):
        return None
    out: dict[str, float] = {}
    for line in resp.text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_part, _, value = line.rpartition(" ")
        name = name_part.split("{", 1)[0].strip()
        if not _KEEP_METRICS.match(name):
            continue
        with contextlib.suppress(ValueError):
            out[name] = out.get(name, 0.0) + float(value)
    return out


def cache_notes(delta: dict[str, float]) -> list[str]:
    """A warning when most of a level's prompt tokens came from the server's cache (its
    TTFT then measures a cache hit, not prefill)."""
    cached = sum(v for k, v in delta.items() if k.endswith("prompt_tokens_cached_total"))
    prompt = sum(v for k, v in delta.items() if k.endswith(":prompt_tokens_total"))
    hits = sum(v for k, v in delta.items() if k.endswith("prefix_cache_hits_total"))
    queries = sum(v for k, v in delta.items() if k.endswith("prefix_cache_queries_total"))
    share = max(cached / max(prompt, cached) if cached else 0.0, hits / queries if queries else 0.0)
    if share > 0.5:
        return [
            f"{share:.0%} of the level's prompt tokens came from the server's prompt cache: "
            "its TTFT measures cache hits, not prefill"
        ]
    return []


def metrics_delta(
    before: dict[str, float] | None, after: dict[str, float] | None
) -> dict[str, float]:
    """Counters (`*_total`) as the level's increase, gauges as their value after it."""
    if not after:
        return {}
    before = before or {}
    return {
        k: round(v - before.get(k, 0.0), 6) if k.endswith("_total") else round(v, 6)
        for k, v in sorted(after.items())
    }


def run_level_sync(
    target: Target,
    requests: Sequence[bytes],
    plan: LevelPlan,
    *,
    item_offset: int = 0,
    timeout_s: float = 600.0,
    sample_rss: Callable[[], int | None] | None = None,
) -> tuple[LevelRun, int | None]:
    """Run a level on its own event loop; (records, peak server RSS in bytes or None)."""

    async def go() -> tuple[LevelRun, int | None]:
        client = StreamClient(target.endpoint, timeout_s=timeout_s)
        peak: list[int] = []
        sampler: asyncio.Task[None] | None = None

        async def sample() -> None:
            assert sample_rss is not None
            while True:
                rss = sample_rss()
                if rss is not None:
                    peak.append(rss)
                await asyncio.sleep(0.2)

        if sample_rss is not None:
            sampler = asyncio.create_task(sample())
        try:
            run = await run_level(client, requests, plan, item_offset=item_offset)
        finally:
            if sampler is not None:
                sampler.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sampler
            await client.aclose()
        return run, max(peak) if peak else None

    return asyncio.run(go())


def warmup(
    target: Target, requests: Sequence[bytes], count: int, timeout_s: float
) -> dict[str, Any]:
    """`count` requests one at a time, not counted; an unreachable server stops the run."""
    if count <= 0:
        return {"requests": 0, "errors": 0}
    plan = LevelPlan(concurrency=1, requests=count, max_error_rate=1.0)
    run, _ = run_level_sync(target, requests, plan, timeout_s=timeout_s)
    errors = [r for r in run.records if r.error_kind is not None]
    if errors and len(errors) == len(run.records):
        first: StreamRecord = errors[0]
        msg = f"{target.spec}: every warmup request failed ({first.error_kind}: {first.error})"
        raise InfrastructureError(msg)
    return {"requests": len(run.records), "errors": len(errors)}
