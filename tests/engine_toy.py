"""A toy suite on the engine, for the engine's own tests.

Items come from a JSON file {id: {"value": float, "do": "ok"|"crash"|"infra"|"sleep"}},
so a test decides what each item does; `python tests/engine_toy.py ITEMS OUT [flags]` runs
it as a process (for kill -9 and SIGTERM tests).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pydantic import BaseModel

from gaia_eval.core.compare.metrics import ItemMetric, collect
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.gate import CheckRule, GateRules, MetricRule
from gaia_eval.core.report import Para, Section, Table
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import (
    HeaderFields,
    Item,
    Metric,
    RunContext,
    Suite,
    SuiteEntry,
    register_suite,
)


class ToyResult(BaseModel):
    value: float
    passed: bool


class ToySummary(BaseModel):
    n: int
    mean: float | None


class ToySuite(Suite):
    name = "toy"
    title = "Toy suite"
    item_model = ToyResult

    def __init__(self, items_file: Path, tier: str = "t1", knob: str = "a") -> None:
        self.items_file = items_file
        self.tier = tier
        self.knob = knob

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
        if do == "sleep":
            time.sleep(float(item.payload.get("seconds", 0.3)))
        v = float(item.payload.get("now", item.payload["value"]))
        return ToyResult(value=v, passed=v >= 0.5)

    @classmethod
    def summarise(cls, env: Envelope) -> ToySummary:
        vals = [r.result["value"] for r in env.items if r.result]
        return ToySummary(n=len(vals), mean=sum(vals) / len(vals) if vals else None)

    @classmethod
    def gate_rules(cls) -> GateRules:
        return GateRules(
            metrics=(MetricRule("mean", absolute=0.02, widen_items=1.5),),
            checks=(CheckRule("passed"),),
        )

    @classmethod
    def gate_metrics(cls, env: Envelope) -> dict[str, Metric]:
        s = ToySummary.model_validate(env.summary)
        return {"mean": Metric(s.mean, s.n)}

    @classmethod
    def gate_checks(cls, env: Envelope) -> dict[tuple[str, str], bool | None]:
        return {(r.id, "passed"): r.result["passed"] for r in env.items if r.result}

    @classmethod
    def headline(cls, env: Envelope) -> list[tuple[str, str]]:
        s = ToySummary.model_validate(env.summary)
        return [("mean", "–" if s.mean is None else f"{s.mean:.3f}")]

    @classmethod
    def report_sections(cls, env: Envelope) -> list[Section]:
        rows = [[r.id, r.status] for r in env.items]
        return [Section("Items", [Para("Every item."), Table(["item", "status"], rows)])]

    @classmethod
    def compare_metrics(cls, env: Envelope) -> list[ItemMetric]:
        ok = [(r.id, r.result) for r in env.items if r.result]
        return [
            collect("passed", "binary", ((i, res["passed"], None) for i, res in ok), gated=True),
            collect("value", "continuous", ((i, res["value"], None) for i, res in ok)),
        ]


register_suite(SuiteEntry("toy", "engine_toy:ToySuite", "toy suite for engine tests"))


if __name__ == "__main__":  # a process running the toy suite, for signal tests
    import argparse

    from gaia_eval.cli._runflags import add_run_flags, run_suite
    from gaia_eval.cli.main import main  # noqa: F401  (the CLI's error mapping)
    from gaia_eval.core.errors import exit_code_for

    p = argparse.ArgumentParser()
    p.add_argument("items", type=Path)
    add_run_flags(p)
    a = p.parse_args()
    try:
        sys.exit(run_suite(ToySuite(a.items), a))
    except BaseException as err:
        if isinstance(err, SystemExit):
            raise
        print(f"error: {err}", file=sys.stderr)
        sys.exit(exit_code_for(err))
