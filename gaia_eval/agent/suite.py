"""The agent suite's declaration: scenarios per tier and repeat, the filters, the gate and
the report; one scenario's run (the agent, the driver, the judge) is runner.py's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from gaia_eval.agent.gate import GATE
from gaia_eval.agent.models import ScenarioResult
from gaia_eval.agent.report import REPORT
from gaia_eval.agent.runner import AgentConfig, ScenarioRunner
from gaia_eval.agent.scenarios import Loaded, in_tier
from gaia_eval.agent.scorecard import build
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results import Envelope, ItemRecord
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite


class AgentSuite(Suite):
    name: ClassVar[str] = "agent"
    title: ClassVar[str] = "Agent scenarios"
    item_model = ScenarioResult
    item_noun: ClassVar[str] = "scenario"
    # One agent process per scenario in flight (ScenarioRunner), its own driver usage.
    concurrent_items: ClassVar[bool] = True

    gate = GATE
    report = REPORT

    def __init__(self, cfg: AgentConfig) -> None:
        self.cfg = cfg
        self._runner = ScenarioRunner(cfg)

    def default_jobs(self) -> int:
        from gaia_eval.llm.spec import default_jobs_for

        return default_jobs_for(self.cfg.agent_model)

    @classmethod
    def item_cost_usd(cls, record: ItemRecord) -> float | None:
        """The driver's cost (for --budget-usd); None when unknown."""
        usage = (record.result or {}).get("driver_usage") or {}
        cost = usage.get("cost_usd")
        return float(cost) if isinstance(cost, int | float) else None

    # ---- configuration --------------------------------------------------------------------

    def header_fields(self) -> HeaderFields:
        c = self.cfg
        settings = {
            "repeats": c.repeats,
            "budget_usd": c.budget_usd,
            "timeout_s": c.timeout_s,
            "timeout_cap_s": c.timeout_cap_s,
            "agent_model_pin": c.pin_model,
            **c.settings,
        }
        return HeaderFields(
            tier=c.tier,
            system=c.system,
            embedder=c.embedder,
            model=c.agent_model,
            judge=c.driver.spec.text,
            settings=settings,
        )

    def endpoints(self) -> list[Endpoint]:
        """The driver's server and, for the reference agent, its model's (an agent of
        your own reaches whatever it reaches)."""
        from gaia_eval.llm.preflight import model_endpoints
        from gaia_eval.llm.spec import parse_model_spec

        c = self.cfg
        out = model_endpoints(c.driver.spec, "--driver-model")
        if c.system == "reference" and c.agent_model:
            out += model_endpoints(parse_model_spec(c.agent_model), "--model")
            if c.embedder and c.embedder.startswith("openai:"):
                out += model_endpoints(parse_model_spec(c.embedder, "--embedder"), "--embedder")
        return out

    def _tiered(self) -> list[Loaded]:
        chosen = [s for s in self.cfg.scenarios if in_tier(s, self.cfg.tier)]
        if not chosen:
            msg = f"--tier {self.cfg.tier}: no scenario is in that tier"
            raise InvalidInputError(msg)
        return chosen

    def items(self) -> list[Item]:
        out: list[Item] = []
        for s in self._tiered():
            for r in range(1, self.cfg.repeats + 1):
                iid = s.scenario.id if self.cfg.repeats == 1 else f"{s.scenario.id}@{r}"
                out.append(Item(iid, definition=s.definition(), payload=(s, r)))
        return out

    def select(self, items: Sequence[Item]) -> Sequence[Item]:
        c = self.cfg
        known_ids = {i.payload[0].scenario.id for i in items}
        known_cats = {i.payload[0].scenario.category for i in items}
        bad = sorted(set(c.only) - known_ids)
        if bad:
            msg = (
                f"--scenarios: unknown scenario id(s) in tier {c.tier}: {', '.join(bad)}; "
                f"known: {', '.join(sorted(known_ids))}"
            )
            raise InvalidInputError(msg)
        bad = sorted(set(c.categories) - known_cats)
        if bad:
            msg = f"--category: no scenario of {', '.join(bad)} in tier {c.tier}; known: " + (
                ", ".join(sorted(known_cats))
            )
            raise InvalidInputError(msg)
        return [
            i
            for i in items
            if (not c.only or i.payload[0].scenario.id in c.only)
            and (not c.categories or i.payload[0].scenario.category in c.categories)
        ]

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        c = self.cfg
        ctx.setup.update(c.setup_record)
        ctx.setup["categories"] = {s.scenario.id: s.scenario.category for s in self._tiered()}
        if c.only or c.categories:
            ctx.setup["scenario_filter"] = {
                "scenarios": list(c.only),
                "categories": list(c.categories),
            }

    def teardown(self) -> None:
        self._runner.close()

    def run_item(self, item: Item, ctx: RunContext) -> ScenarioResult:
        loaded, repeat = item.payload
        return self._runner.run(loaded, repeat)

    # ---- reading results --------------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> Any:
        return build(env)

    @classmethod
    def unmeasured_reason(cls, env: Envelope) -> str | None:
        rows = env.summary.get("scenarios", [])
        if rows and all(r["status"] == "INFRA_ERROR" for r in rows):
            return f"all {len(rows)} scenarios were discarded as INFRA_ERROR"
        return None
