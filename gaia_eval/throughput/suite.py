"""The `benchmark` suite on the engine: one item per load level and repeat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.throughput.gate import GATE
from gaia_eval.throughput.load import LevelPlan
from gaia_eval.throughput.metrics import Tokenizer
from gaia_eval.throughput.models import BenchmarkSummary, LevelResult
from gaia_eval.throughput.report import REPORT
from gaia_eval.throughput.summary import summarise
from gaia_eval.throughput.workloads import Workload, request_body


@dataclass
class BenchConfig:
    """One configured benchmark run (the CLI builds it from flags)."""

    model: str
    workload: Workload
    plans: list[LevelPlan]
    repeats: int = 1
    warmup: int = 2
    timeout_s: float = 600.0
    tokenizer: Tokenizer | None = None
    tokenizer_spec: str | None = None
    slo: dict[str, float] = field(default_factory=dict)
    """Service-level objectives (ttft_ms, tpot_ms, e2e_ms) a request meets for goodput."""


class BenchmarkSuite(Suite):
    name: ClassVar[str] = "benchmark"
    title: ClassVar[str] = "Model-serving benchmark"
    item_model: ClassVar[type[BaseModel]] = LevelResult
    item_noun: ClassVar[str] = "level"
    jobs_refused: ClassVar[str | None] = (
        "its concurrency is what it measures: set the load levels with --concurrency or --rate"
    )
    report = REPORT
    gate = GATE

    def __init__(self, config: BenchConfig) -> None:
        self.config = config
        self._target: Any = None
        self._requests: list[bytes] = []
        self._ctx_size: int | None = None
        self._tokenizer: Tokenizer | None = None

    def header_fields(self) -> HeaderFields:
        c = self.config
        return HeaderFields(
            tier=c.workload.name,
            model=c.model,
            settings={
                "workload_digest": c.workload.digest,
                "warmup": c.warmup,
                "timeout_s": c.timeout_s,
                "tokenizer": c.tokenizer_spec,
                "slo": c.slo or None,
                "repeats": c.repeats,
            },
        )

    def items(self) -> Sequence[Item]:
        from gaia_eval.throughput.levels import level_id

        out = []
        for repeat in range(1, self.config.repeats + 1):
            for plan in self.config.plans:
                definition = {
                    "concurrency": plan.concurrency,
                    "rate": plan.rate,
                    "arrivals": plan.arrivals if plan.rate is not None else None,
                    "requests": plan.requests,
                    "duration_s": plan.duration_s,
                    "max_error_rate": plan.max_error_rate,
                    "repeat": repeat,
                }
                out.append(
                    Item(
                        id=level_id(plan, repeat, self.config.repeats),
                        definition=definition,
                        payload=(plan, repeat),
                    )
                )
        return out

    def endpoints(self) -> list[Endpoint]:
        """The server under test (the benchmark's own client dials it directly)."""
        from gaia_eval.throughput.runner import remote_base

        base = remote_base(self.config.model)
        return [Endpoint(f"--model {self.config.model!r}", base)] if base else []

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        from gaia_eval.throughput import runner

        c = self.config
        slots = max((p.concurrency or 4 for p in c.plans), default=1)
        self._target = target = runner.resolve_target(c.model, slots=slots)
        api = target.endpoint.api
        from gaia_eval.throughput.client import StreamClient

        builder = StreamClient(target.endpoint)
        import secrets

        nonce = secrets.token_hex(4)  # a fresh prompt per run: no answer from its cache
        self._requests = [
            builder.build_request(request_body(item, api, target.model, nonce))
            for item in c.workload.items
        ]
        warm = runner.warmup(target, self._requests, c.warmup, c.timeout_s)
        self._ctx_size = runner.context_size(target)
        # Each chunk's tokens counted by the server's own tokenizer where it has one
        # (--tokenizer wins): otherwise a usage total split over chunks is only a guess.
        self._tokenizer = c.tokenizer or runner.server_tokenizer(target)
        counter = c.tokenizer_spec or ("server /tokenize" if self._tokenizer else None)
        ctx.setup["server"] = {
            "chunk_token_counter": counter,
            "prompt_nonce": nonce,
            "endpoint": target.endpoint.url,
            "api": api,
            "model": target.model,
            "ctx_size": self._ctx_size,
            "warmup": warm,
            "local": target.facts,
        }
        if target.facts.get("note"):
            # Where every suite records the embedded model: the engine's report and
            # terminal summary lead with its plumbing note, before any number.
            from gaia_eval.llm.local_server import RECORD_KEY

            ctx.setup[RECORD_KEY] = target.facts

    def _offset(self, item_id: str) -> int:
        """Where a level starts in the workload: triage sends the whole corpus at every
        level; other workloads give each level fresh prompts after the warmup's (so no
        level is served from another's prompt cache), fixed by item order for --resume."""
        if self.config.workload.triage:
            return 0
        ids = [i.id for i in self.items()]
        per_level = max((p.requests or 0 for p in self.config.plans), default=0)
        return self.config.warmup + ids.index(item_id) * per_level

    def teardown(self) -> None:
        if self._target is not None:
            self._target.close()
            self._target = None

    def run_item(self, item: Item, ctx: RunContext) -> BaseModel:
        from gaia_eval.throughput import runner
        from gaia_eval.throughput.levels import build_level

        plan, repeat = item.payload
        target = self._target
        assert target is not None
        ctx_size = runner.context_size(target)
        if ctx_size != self._ctx_size:
            msg = (
                f"the server's context size changed from {self._ctx_size} to {ctx_size} "
                f"before level {item.id}: repeats of one run must share one context size"
            )
            raise InfrastructureError(msg)
        before = runner.scrape_metrics(target)
        run, peak = runner.run_level_sync(
            target,
            self._requests,
            plan,
            item_offset=self._offset(item.id),
            timeout_s=self.config.timeout_s,
            sample_rss=target.rss_bytes if target.local is not None else None,
        )
        after = runner.scrape_metrics(target)
        if run.records and all(r.error_kind is not None for r in run.records):
            first = run.records[0]
            msg = (
                f"level {item.id}: every one of {len(run.records)} requests failed "
                f"(first: {first.error_kind}: {first.error})"
            )
            raise InfrastructureError(msg)
        result = build_level(
            level=item.id,
            repeat=repeat,
            plan=plan,
            run=run,
            workload=self.config.workload,
            tokenizer=self._tokenizer,
            slo=self.config.slo,
        )
        result.stats.server_ctx_size = ctx_size
        result.stats.server_metrics = runner.metrics_delta(before, after)
        result.stats.server_notes = runner.cache_notes(result.stats.server_metrics)
        result.stats.peak_memory_gb = round(peak / 2**30, 4) if peak else None
        return result

    # ---- reading results --------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> BenchmarkSummary:
        return summarise(env)
