"""Toy suites for the `--jobs` tests, on tests/engine_toy.py: items that ask a loopback
OpenAI-compatible server ("do": "chat", at "url", the item id as the prompt) or cost money
("cost", for budgets), a suite that has not opted in to concurrency, and one whose
concurrency is what it measures (it refuses --jobs)."""

from __future__ import annotations

from engine_toy import ToyResult, ToySuite

from gaia_eval.core.results import ItemRecord
from gaia_eval.core.suite import Item, RunContext


class JobsToyResult(ToyResult):
    reply: str | None = None
    cost: float | None = None


class JobsToySuite(ToySuite):
    """The toy suite whose items may wait on a model and cost money."""

    item_model = JobsToyResult

    def run_item(self, item: Item, ctx: RunContext) -> JobsToyResult:
        base = super().run_item(item, ctx)
        reply = None
        if item.payload.get("do") == "chat":
            from gaia_eval.llm.openai_compat import OpenAIChat

            client = OpenAIChat(str(item.payload["url"]), "m", backoff_s=0.0)
            try:
                reply = client.chat([{"role": "user", "content": item.id}]).content
            finally:
                client.close()
        cost = item.payload.get("cost")
        return JobsToyResult(
            **base.model_dump(), reply=reply, cost=None if cost is None else float(cost)
        )

    @classmethod
    def item_cost_usd(cls, record: ItemRecord) -> float | None:
        return None if record.result is None else record.result.get("cost")


class SerialToySuite(ToySuite):
    """The toy suite without the concurrency opt-in."""

    name = "toy-serial"
    concurrent_items = False


class BenchToySuite(ToySuite):
    """A suite whose concurrency is what it measures."""

    name = "toy-bench"
    jobs_refused = "its load levels are what it measures; use --concurrency"
