"""The `benchmark` suite on the engine: one item per load level and repeat."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from gaia_eval.core.compare.metrics import Distribution
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.report import Section
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.throughput.load import LevelPlan
from gaia_eval.throughput.metrics import FORMULAS, Tokenizer, variance_stats
from gaia_eval.throughput.models import BenchmarkSummary, LevelResult, LevelStats, Variance
from gaia_eval.throughput.workloads import Workload, request_body

# Metrics whose spread over repeats the summary reports.
_VARIANCE_METRICS = (
    "ttft_ms.p50",
    "ttft_ms.p99",
    "tpot_ms.p50",
    "itl_ms.p50",
    "e2e_ms.p50",
    "output_tokens_per_s",
    "requests_per_s",
    "triage.within_one_bucket_accuracy",
    "triage.urgent_vs_not_accuracy",
    "triage.urgent_recall",
    "triage.personal_recall",
    "triage.category_accuracy",
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


def _pick(stats: LevelStats, path: str) -> float | None:
    obj: Any = stats
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return float(obj)


class BenchmarkSuite(Suite):
    name: ClassVar[str] = "benchmark"
    title: ClassVar[str] = "Model-serving benchmark"
    item_model: ClassVar[type[BaseModel]] = LevelResult
    item_noun: ClassVar[str] = "level"

    def __init__(self, config: BenchConfig) -> None:
        self.config = config
        self._target: Any = None
        self._requests: list[bytes] = []
        self._ctx_size: int | None = None

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
        self._requests = [
            builder.build_request(request_body(item, api, target.model))
            for item in c.workload.items
        ]
        warm = runner.warmup(target, self._requests, c.warmup, c.timeout_s)
        self._ctx_size = runner.context_size(target)
        ctx.setup["server"] = {
            "endpoint": target.endpoint.url,
            "api": api,
            "model": target.model,
            "ctx_size": self._ctx_size,
            "warmup": warm,
            "local": target.facts,
        }

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
            tokenizer=self.config.tokenizer,
        )
        result.stats.server_ctx_size = ctx_size
        result.stats.server_metrics = runner.metrics_delta(before, after)
        result.stats.peak_memory_gb = round(peak / 2**30, 4) if peak else None
        return result

    # ---- reading results --------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> BenchmarkSummary:
        from gaia_eval.throughput.report import level_results

        results = level_results(env)
        levels = [r.stats for r in results]
        server = env.setup.get("server") or {}
        groups: dict[str, list[LevelStats]] = {}
        for s in levels:
            groups.setdefault(s.level.split("#", 1)[0], []).append(s)
        variance: dict[str, dict[str, Variance]] = {}
        repeats = int(env.header.settings.get("repeats", 1) or 1)
        if repeats > 1:
            for base, group in groups.items():
                per: dict[str, Variance] = {}
                for metric in _VARIANCE_METRICS:
                    values = [v for s in group if (v := _pick(s, metric)) is not None]
                    if values:
                        per[metric] = Variance.model_validate(variance_stats(values))
                variance[base] = per
        return BenchmarkSummary(
            workload=env.header.tier,
            api=str(server.get("api", "openai")),
            levels=levels,
            variance=variance,
            all_failed=bool(env.items) and not any(s.completed for s in levels),
            client_limited=any(s.client_limited for s in levels),
            formulas=FORMULAS,
        )

    @classmethod
    def headline(cls, env: Envelope) -> list[tuple[str, str]]:
        from gaia_eval.throughput.report import level_results

        out = []
        for r in level_results(env):
            s = r.stats
            ttft = "–" if s.ttft_ms.p50 is None else f"{s.ttft_ms.p50:.1f}"
            itl = "–" if s.itl_ms.p50 is None else f"{s.itl_ms.p50:.2f}"
            tps = "–" if s.output_tokens_per_s is None else f"{s.output_tokens_per_s:.1f}"
            text = (
                f"TTFT p50 {ttft} ms, ITL p50 {itl} ms, {tps} output tok/s, "
                f"{s.errors}/{s.requests} errors"
            )
            if s.triage is not None:
                acc = s.triage.within_one_bucket_accuracy
                text += f", triage within-one {'–' if acc is None else f'{acc:.2f}'}"
            out.append((s.level, text))
        return out

    @classmethod
    def report_sections(cls, env: Envelope) -> list[Section]:
        from gaia_eval.throughput.report import sections

        return sections(env, cls.summarise(env))

    @classmethod
    def compare_distributions(cls, env: Envelope) -> list[Distribution]:
        """Every request's TTFT and E2E per load level (repeats pooled), for `compare`."""
        out: dict[tuple[str, str], Distribution] = {}
        for rec in env.items:
            if rec.status != "ok" or not rec.result:
                continue
            res = LevelResult.model_validate(rec.result)
            for row in res.requests:
                for name in ("ttft_ms", "e2e_ms"):
                    value = getattr(row, name)
                    if value is not None:
                        key = (res.stats.level, name)
                        out.setdefault(key, Distribution(*key)).values.append(float(value))
        return [out[k] for k in sorted(out)]
