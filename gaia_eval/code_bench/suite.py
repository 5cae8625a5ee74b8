"""The code benchmark on the engine.

Items are tasks x repeats (`edit-fix-bugs`, `edit-fix-bugs#r2`, ...: the tasks suite's ids),
each saved, resumed and sharded on its own. Tries are not items: a second try continues in
the project the first one left, with that project's failing test output in its prompt, so
the two cannot run apart, resume apart or land in different shards.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from gaia_eval.agents.isolation import agent_env
from gaia_eval.code_bench.definitions import CodeTask
from gaia_eval.code_bench.gate import GATE
from gaia_eval.code_bench.models import CodeSummary, CodeTaskResult
from gaia_eval.code_bench.report import REPORT
from gaia_eval.code_bench.runner import CodeConfig, Untouched, run_code_task
from gaia_eval.code_bench.scorecard import summarise
from gaia_eval.code_bench.testrun import grading_env
from gaia_eval.core.items import item_dir, item_id, select_tasks
from gaia_eval.core.results import Envelope, ItemRecord
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.llm.local_server import RECORD_KEY


def _version(dist: str) -> str | None:
    try:
        return version(dist)
    except PackageNotFoundError:
        return None


class CodeBenchSuite(Suite):
    name = "code"
    title = "Code benchmark"
    item_model = CodeTaskResult
    item_noun = "task"
    # Each attempt has its own workspace and grading scratch (mkdtemp) and agent process;
    # the untouched runs are shared through a locked future per task. Default 1: grading
    # with pytest and mypy is CPU-bound on a small machine.
    concurrent_items = True

    @classmethod
    def item_cost_usd(cls, record: ItemRecord) -> float | None:
        """The agent's cost (for --budget-usd); None when unknown."""
        cost = (record.result or {}).get("cost_usd")
        return float(cost) if isinstance(cost, int | float) else None

    gate = GATE
    report = REPORT

    def __init__(self, cfg: CodeConfig) -> None:
        self.cfg = cfg
        self._untouched: Untouched | None = None

    # ---- one configured run --------------------------------------------------------------

    def header_fields(self) -> HeaderFields:
        c = self.cfg
        settings: dict[str, object] = {
            "harness": c.harness.name,
            "tries": c.tries,
            "repeats": c.repeats,
            "run_timeout_s": c.run_timeout_s,
            "full_access": c.full_access,
            "fenced": c.fence,
            **c.harness_settings,
        }
        if c.price_override is not None:
            settings["price"] = list(c.price_override)
        if c.local_model is not None:
            settings[RECORD_KEY] = c.local_model.comparable()
        return HeaderFields(tier=c.tier, system=c.system, model=c.model, settings=settings)

    def items(self) -> list[Item]:
        return [
            Item(item_id(t.id, r), definition=t.definition(), payload=(t, r))
            for r in range(1, self.cfg.repeats + 1)
            for t in self.cfg.tasks
        ]

    def select(self, items: Sequence[Item]) -> Sequence[Item]:
        return select_tasks(items, self.cfg.only)

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        # Unmeasured items have no result to say what kind of task they were.
        ctx.setup["tasks"] = {
            t.id: {"kind": t.kind, "category": t.category} for t in self.cfg.tasks
        }
        ctx.setup["toolchain"] = {
            "python": sys.version.split()[0],
            "pytest": _version("pytest"),
            "mypy": _version("mypy"),
        }
        if self.cfg.note:
            ctx.setup["note"] = self.cfg.note
        if self.cfg.local_model is not None:
            ctx.setup[RECORD_KEY] = self.cfg.local_model.model_dump(mode="json")
        if self.cfg.keep_workdirs:
            ctx.setup["work_root"] = str(self.work_root(ctx))
        from gaia_eval.agents.fence import register_run

        # Every run, fenced or not, so that later fenced runs hide it (its workspace.diff
        # files are answers) wherever it is.
        register_run(ctx.out_dir)
        temp = Path(str(ctx.setup["_temp"]))
        # The grading environment, as the attempts are graded in (runner.run_code_task).
        env = grading_env(agent_env(), temp / "mypy-cache")
        self._untouched = Untouched(env, temp / "untouched", self.cfg.tests_timeout_s)

    def teardown(self) -> None:
        if self._untouched is not None:
            self._untouched.close()
            self._untouched = None

    def work_root(self, ctx: RunContext) -> Path:
        return self.cfg.work_root or Path(str(ctx.setup["_temp"])) / "work"

    def run_item(self, item: Item, ctx: RunContext) -> CodeTaskResult:
        task, repeat = item.payload
        assert isinstance(task, CodeTask) and self._untouched is not None
        return run_code_task(
            self.cfg,
            task,
            int(repeat),
            item_dir(ctx.out_dir, item.id),
            work_root=self.work_root(ctx),
            results_dir=ctx.out_dir,
            temp=Path(str(ctx.setup["_temp"])),
            untouched=self._untouched,
        )

    # ---- reading results -------------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> CodeSummary:
        return summarise(env)
