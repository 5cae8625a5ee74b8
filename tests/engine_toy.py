from __future__ import annotations

import errno
import json
import time
from pathlib import Path

from pydantic import BaseModel

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule, per_item
from gaia_eval.core.report import Report, Section, Table, fmt
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite, SuiteEntry, register_suite


class ToyResult(BaseModel):
    value: float
    passed: bool


class ToySummary(BaseModel):
    n: int
    mean: float | None


def summarise(env: Envelope) -> ToySummary:
    vals = [r.result["value"] for r in env.items if r.result]
    return ToySummary(n=len(vals), mean=sum(vals) / len(vals) if vals else None)


class ToySuite(Suite):
    name, title, item_model, summarise = "toy", "Toy suite", ToyResult, summarise
    concurrent_items = True
    gate = GateRules(
        metrics=(MetricRule("mean", absolute=0.02, widen_items=1.5),),
        checks=(CheckRule("passed"),),
        read_metrics=lambda e: {"mean": Metric(e.summary["mean"], e.summary["n"])},
        read_checks=lambda e: {(r.id, "passed"): r.result["passed"] for r in e.items if r.result},
        item_fields=("value",),  # compared per item beside the default, the checks
        read_item_values=per_item(mean="value"),  # the gate rows' paired intervals
    )
    report = Report(
        headline=lambda e: [("mean", fmt(e.summary["mean"]))],
        sections=lambda e: [
            Section("Items", [Table(["item", "status"], [[r.id, r.status] for r in e.items])])
        ],
    )

    def __init__(self, items_file: Path, tier: str = "t1", knob: str = "a") -> None:
        self.items_file, self.tier, self.knob = items_file, tier, knob

    def header_fields(self) -> HeaderFields:
        return HeaderFields(tier=self.tier, system="toy-system", settings={"knob": self.knob})

    def items(self) -> list[Item]:
        rows = json.loads(Path(self.items_file).read_text())
        return [Item(k, definition=v["value"], payload=v) for k, v in rows.items()]

    def setup(self, ctx: RunContext, items: object) -> None:
        ctx.setup["prepared"] = True

    def run_item(self, item: Item, ctx: RunContext) -> ToyResult:
        p, do = item.payload, item.payload.get("do", "ok")
        if do == "crash":
            raise RuntimeError(f"toy crash on {item.id}")
        if do == "infra":
            raise InfrastructureError("backend http://127.0.0.1:9/v1 refused the connection")
        if do == "disk-full":  # what a write into a full disk raises
            raise OSError(errno.ENOSPC, "No space left on device", str(ctx.out_dir / item.id))
        if do == "sleep":  # "seconds" long (0.3), or until the file named by "until" exists
            end, gate = time.monotonic() + p.get("seconds", 0.3), p.get("until")
            while time.monotonic() < end and not (gate and Path(gate).exists()):
                time.sleep(0.02)
        v = float(p.get("now", p["value"]))
        return ToyResult(value=v, passed=v >= 0.5)


register_suite(SuiteEntry("toy", "engine_toy:ToySuite", "for tests", options="engine_toy_process"))
