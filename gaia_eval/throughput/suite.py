"""The `benchmark` suite on the engine: one item per load level and repeat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.throughput import sweep
from gaia_eval.throughput.gate import GATE
from gaia_eval.throughput.load import LevelPlan
from gaia_eval.throughput.metrics import Tokenizer
from gaia_eval.throughput.models import LevelResult
from gaia_eval.throughput.report import REPORT
from gaia_eval.throughput.summary import summarise
from gaia_eval.throughput.workloads import (
    Workload,
    fit_replies,
    fit_tokens,
    nonce_lead,
    request_body,
    sized_by_replies,
    wants_tokens,
)


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
    prompt_cache: bool | None = None
    """llama.cpp's cache_prompt sent with every request (None: the server's default)."""


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
    summarise = summarise

    def __init__(self, config: BenchConfig) -> None:
        self.config = config
        self._target: Any = None
        self._requests: list[bytes] = []
        self._ctx_size: int | None = None
        self._tokenizer: Tokenizer | None = None
        self._slots: int | None = None
        self._probe_rps: dict[str, float | None] = {}
        """The sweep's closed-loop probes: completed requests/s by probe (sync, max)."""

    def header_fields(self) -> HeaderFields:
        c = self.config
        settings: dict[str, object] = {
            "workload_digest": c.workload.digest,
            "warmup": c.warmup,
            "timeout_s": c.timeout_s,
            "tokenizer": c.tokenizer_spec,
            "slo": c.slo or None,
            "repeats": c.repeats,
            # Only when asked for: runs from before the flag stay comparable.
            **({} if c.prompt_cache is None else {"prompt_cache": c.prompt_cache}),
        }
        if c.model == "local" or c.model.startswith("local:"):
            from gaia_eval.llm.local_server import local_threads

            # The embedded server's CPU threads change its speed, so a comparison of a
            # one-thread and a two-thread run names them as what changed.
            settings["local_threads"] = local_threads()
        return HeaderFields(tier=c.workload.name, model=c.model, settings=settings)

    def items(self) -> Sequence[Item]:
        from gaia_eval.throughput.levels import level_id

        out = []
        for repeat in range(1, self.config.repeats + 1):
            for plan in self.config.plans:
                definition: dict[str, Any] = {
                    "concurrency": plan.concurrency,
                    "rate": plan.rate,
                    "arrivals": plan.arrivals if plan.concurrency is None else None,
                    "requests": plan.requests,
                    "duration_s": plan.duration_s,
                    "max_error_rate": plan.max_error_rate,
                    "repeat": repeat,
                }
                if plan.sweep is not None:
                    definition["sweep"] = plan.sweep
                if plan.burstiness != 1.0:
                    definition["burstiness"] = plan.burstiness
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
        self._ctx_size = runner.context_size(target)
        # Each chunk's tokens counted by the server's own tokenizer where it has one
        # (--tokenizer wins): otherwise a usage total split over chunks is only a guess.
        self._tokenizer = c.tokenizer or runner.server_tokenizer(target)
        input_counter = None
        if wants_tokens(c.workload):
            # --input-tokens: prompts refit to their lengths by the same counter, on the
            # text as sent (the nonce included), before a single request is built.
            if self._tokenizer is None:
                msg = (
                    f"--input-tokens: {target.origin} has no tokenizer endpoint (llama.cpp's "
                    "POST /tokenize); pass --tokenizer FILE (the model's tokenizer.json) or "
                    "use --input-words"
                )
                raise InvalidInputError(msg)
            c.workload = fit_tokens(c.workload, self._tokenizer, nonce_lead(nonce))
            input_counter = c.tokenizer_spec or "server /tokenize"
        reply_counter = None
        if sized_by_replies(c.workload):
            # ShareGPT: each answer as long as its recorded reply, in the server's tokens
            # where it can count them (words x 4/3 otherwise, as the rows were read).
            reply_counter = "words x 4/3"
            if self._tokenizer is not None:
                c.workload = fit_replies(c.workload, self._tokenizer)
                reply_counter = c.tokenizer_spec or "server /tokenize"
        cache = {} if c.prompt_cache is None else {"cache_prompt": c.prompt_cache}
        self._requests = [
            builder.build_request(request_body(item, api, target.model, nonce) | cache)
            for item in c.workload.items
        ]
        warm = runner.warmup(target, self._requests, c.warmup, c.timeout_s)
        props = runner.server_props(target)
        published = props.get("total_slots") or target.facts.get("parallel_slots")
        self._slots = published if isinstance(published, int) and published > 0 else None
        counter = c.tokenizer_spec or ("server /tokenize" if self._tokenizer else None)
        ctx.setup["server"] = {
            "chunk_token_counter": counter,
            "input_token_counter": input_counter,
            "reply_token_counter": reply_counter,
            "prompt_nonce": nonce,
            "endpoint": target.endpoint.url,
            "api": api,
            "model": target.model,
            "ctx_size": self._ctx_size,
            # What the server publishes about itself (llama.cpp /props), remote or local.
            "props": props,
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
        plan = self._sweep_plan(plan, item.id, ctx)
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
        result.stats.server_notes = runner.cache_notes(
            result.stats.server_metrics, shared=self.config.workload.shared_prefix
        )
        result.stats.peak_memory_gb = round(peak / 2**30, 4) if peak else None
        if plan.sweep in (sweep.SYNC, sweep.MAX):
            self._probe_rps[plan.sweep] = result.stats.requests_per_s
        return result

    def _sweep_plan(self, plan: LevelPlan, item_id: str, ctx: RunContext) -> LevelPlan:
        """A sweep level's concurrency (the ceiling probe) or rate (a step), filled in now:
        the steps' rates come from the probes' measured requests/s."""
        from dataclasses import replace

        if plan.sweep is None or plan.sweep == sweep.SYNC:
            return plan
        if plan.sweep == sweep.MAX:
            return replace(plan, concurrency=sweep.probe_concurrency(self._slots))
        found = {**self._previous_probes(ctx), **self._probe_rps}
        lo, hi = found.get(sweep.SYNC), found.get(sweep.MAX)
        if not lo or not hi:
            msg = (
                f"level {item_id}: the sweep's probes ({sweep.PREFIX}{sweep.SYNC}, "
                f"{sweep.PREFIX}{sweep.MAX}) measured no request rate to sweep between"
            )
            raise InfrastructureError(msg)
        count = sum(1 for p in self.config.plans if p.sweep not in (None, sweep.SYNC, sweep.MAX))
        return replace(plan, rate=sweep.rates(lo, hi, count)[int(plan.sweep) - 1])

    @staticmethod
    def _previous_probes(ctx: RunContext) -> dict[str, float | None]:
        """The probes' requests/s from the run folder's item log (a resumed sweep's probes
        ran in the earlier run)."""
        from gaia_eval.core.runloop import ITEM_LOG, read_item_log

        out: dict[str, float | None] = {}
        for rec in read_item_log(ctx.out_dir / ITEM_LOG):
            name = rec.id.removeprefix(sweep.PREFIX)
            if rec.id.startswith(sweep.PREFIX) and name in (sweep.SYNC, sweep.MAX) and rec.result:
                out[name] = LevelResult.model_validate(rec.result).stats.requests_per_s
        return out

    # ---- reading results --------------------------------------------------------------
