"""A toy suite for the engine's tests (engine_toy_process.py runs it): a JSON file {id: {"value":
float, "do": "ok"|"crash"|"infra"|"sleep"|"wait"|"disk-full"}} says what each item does
("wait" holds the item until the file named by "until" exists, at most 60 s: a test that
needs a run still going releases it when it is done, however slowly the machine runs)."""

from __future__ import annotations

import errno
import json
import time
from pathlib import Path

from pydantic import BaseModel

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule
from gaia_eval.core.report import Report, Section, Table, fmt
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite, SuiteEntry, register_suite


class ToyResult(BaseModel):
    value: float
    passed: bool


class ToySummary(BaseModel):
    n: int
    mean: float | None


class ToySuite(Suite):
    name, title, item_model = "toy", "Toy suite", ToyResult
    concurrent_items = True
    gate = GateRules(
        metrics=(MetricRule("mean", absolute=0.02, widen_items=1.5),),
        checks=(CheckRule("passed"),),
        read_metrics=lambda e: {"mean": Metric(e.summary["mean"], e.summary["n"])},
        read_checks=lambda e: {(r.id, "passed"): r.result["passed"] for r in e.items if r.result},
        item_fields=("value",),  # compared per item beside the default, the checks
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
        do = item.payload.get("do", "ok")
        if do == "crash":
            raise RuntimeError(f"toy crash on {item.id}")
        if do == "infra":
            raise InfrastructureError("backend http://127.0.0.1:9/v1 refused the connection")
        if do == "disk-full":  # what a write into a full disk raises
            raise OSError(errno.ENOSPC, "No space left on device", str(ctx.out_dir / item.id))
        if do == "sleep":
            time.sleep(float(item.payload.get("seconds", 0.3)))
        if do == "wait":
            gate, deadline = Path(item.payload["until"]), time.monotonic() + 60
            while not gate.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        v = float(item.payload.get("now", item.payload["value"]))
        return ToyResult(value=v, passed=v >= 0.5)

    @classmethod
    def summarise(cls, env: Envelope) -> ToySummary:
        vals = [r.result["value"] for r in env.items if r.result]
        return ToySummary(n=len(vals), mean=sum(vals) / len(vals) if vals else None)


register_suite(SuiteEntry("toy", "engine_toy:ToySuite", "for tests", options="engine_toy_process"))
