"""The tasks suite on the engine: items are tasks x repeats, one item runs one task
(runner.run_task), a pass after the last task judges them in one batch per repeat, and the
classmethods read a results.json alone (summary, gate rules, headline, report sections).

`ControlsSuite` is the same machinery on three planted attempts at one task, for
`tasks controls`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

from pydantic import BaseModel

from gaia_eval.agents.harnesses.base import Harness
from gaia_eval.core.items import item_dir, item_id, select_tasks
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results import Envelope, ItemRecord
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.llm.local_server import RECORD_KEY
from gaia_eval.tasks.definitions import task_definition, toybox_digest
from gaia_eval.tasks.gate import GATE
from gaia_eval.tasks.models import TaskResult, TasksSummary
from gaia_eval.tasks.report import REPORT
from gaia_eval.tasks.results import summarise
from gaia_eval.tasks.runner import TasksConfig, run_task


class TasksSuite(Suite):
    name = "tasks"
    title = "Flagship agent tasks"
    item_model = TaskResult
    item_noun = "task"
    # Each task has its own workspace (mkdtemp), results folder, harness copy (its
    # gateway route) and agent process: safe to run several at once.
    concurrent_items = True
    gate = GATE
    report = REPORT

    def __init__(self, cfg: TasksConfig) -> None:
        self.cfg = cfg

    def default_jobs(self) -> int:
        from gaia_eval.llm.spec import default_jobs_for

        return default_jobs_for(self.cfg.model)

    @classmethod
    def item_cost_usd(cls, record: ItemRecord) -> float | None:
        """The agent's cost (for --budget-usd); None when unknown."""
        cost = (record.result or {}).get("cost_usd")
        return float(cost) if isinstance(cost, int | float) else None

    # ---- one configured run --------------------------------------------------------------

    def header_fields(self) -> HeaderFields:
        c = self.cfg
        settings: dict[str, object] = {
            "harness": c.harness.name,
            "run_timeout_s": c.run_timeout_s,
            "repeats": c.repeats,
            "full_access": c.full_access,
            "fenced": c.fence,
            "toybox": toybox_digest(),
            **c.harness_settings,
        }
        if c.price_override is not None:
            settings["price"] = list(c.price_override)
        if c.judge_model:
            settings["judge_attempts"] = c.judge_attempts
        if c.local_model is not None:
            settings[RECORD_KEY] = c.local_model.comparable()
        if c.swebench is not None:
            settings["docker_platform"] = c.swebench.docker_platform
        if any(t.therock for t in c.tasks):
            from gaia_eval.tasks.therock import url_of

            settings["therock_url"] = url_of(c)
        return HeaderFields(
            tier=c.suite,
            system=c.system or c.harness.name,
            model=c.model,
            judge=c.judge_model,
            settings=settings,
        )

    def endpoints(self) -> list[Endpoint]:
        """The remotes the selected tasks clone from (tasks.clones); options.config dials
        them once before the local model starts, the engine again before the lock."""
        from gaia_eval.tasks.clones import clone_endpoints

        return clone_endpoints(self.cfg)

    def items(self) -> list[Item]:
        return [
            Item(item_id(t.id, r), definition=task_definition(t), payload=t)
            for r in range(1, self.cfg.repeats + 1)
            for t in self.cfg.tasks
        ]

    def select(self, items: Sequence[Item]) -> Sequence[Item]:
        return select_tasks(items, self.cfg.only)

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        # Unmeasured items have no result to say what kind of task they were.
        ctx.setup["checks"] = {t.id: t.check for t in self.cfg.tasks}
        from gaia_eval.agents.fence import register_run

        # Every run, fenced or not, so that later fenced runs hide it wherever it is.
        register_run(ctx.out_dir)
        if self.cfg.local_model is not None:
            ctx.setup[RECORD_KEY] = self.cfg.local_model.model_dump(mode="json")
        if self.cfg.keep_workdirs:
            ctx.setup["work_root"] = str(self.work_root(ctx))
        if self.cfg.meter is not None:
            ctx.setup["meter"] = self.cfg.meter

    def work_root(self, ctx: RunContext) -> Path:
        """--work-root, or the run's temporary folder (removed with it, stale ones too)."""
        return self.cfg.work_root or Path(str(ctx.setup["_temp"])) / "work"

    def harness_for(self, item: Item) -> Harness:
        return self.cfg.harness

    def run_item(self, item: Item, ctx: RunContext) -> TaskResult:
        return run_task(
            self.cfg,
            item.payload,
            item_dir(ctx.out_dir, item.id),
            work_root=self.work_root(ctx),
            results_dir=ctx.out_dir,
            harness=self.harness_for(item),
        )

    @classmethod
    def judge_groups(cls, items: list[str]) -> list[dict[str, str]]:
        """Attempt id -> item id per judge call: one call per repeat."""
        from gaia_eval.tasks.grading import repeat_groups

        return repeat_groups(items)

    def after_items(self, ctx: RunContext, results: dict[str, BaseModel]) -> None:
        """Grade SWE-bench predictions (official harness), then judge every task without
        a grade, one batched call per repeat."""
        sw = self.cfg.swebench
        if sw is not None and sw.evaluate:
            from gaia_eval.tasks.swebench_grade import grade_results, run_id_for

            typed_sw = cast(dict[str, TaskResult], results)
            grade_results(ctx.out_dir, typed_sw, sw, run_id_for(ctx.out_dir))
        if not self.cfg.judge_model:
            return
        from gaia_eval.agents.credentials import for_judge
        from gaia_eval.tasks.grading import grade, needs_grade

        typed = cast(dict[str, TaskResult], results)
        todo = [i for i, r in typed.items() if needs_grade(r)]
        if not todo:
            return
        with for_judge():  # the run held the judge's credentials back until now
            grade(
                typed,
                self.judge_groups(todo),
                folder=ctx.out_dir,
                tasks={t.id: t for t in self.cfg.tasks},
                judge_model=self.cfg.judge_model,
                attempts_allowed=self.cfg.judge_attempts,
                therock_url=self.cfg.therock_url,
                work_root=self.cfg.work_root,
            )

    # ---- reading results -------------------------------------------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> TasksSummary:
        return summarise(env)


class ControlsSuite(TasksSuite):
    """Three planted attempts at one task whose verdicts are known (`tasks controls`)."""

    name = "tasks-controls"
    title = "Tasks judge controls"
    item_noun = "planted attempt"

    def items(self) -> list[Item]:
        from gaia_eval.tasks.controls import SCRIPTS

        (task,) = self.cfg.tasks
        return [
            Item(name, definition={"task": task_definition(task), "script": script}, payload=task)
            for name, script in SCRIPTS.items()
        ]

    def harness_for(self, item: Item) -> Harness:
        from gaia_eval.agents.harnesses.replay import ReplayHarness
        from gaia_eval.tasks.controls import CONTROL_TASK, SCRIPTS

        return ReplayHarness({CONTROL_TASK: SCRIPTS[item.id]})

    @classmethod
    def judge_groups(cls, items: list[str]) -> list[dict[str, str]]:
        # One call with the three attempts side by side, named by their plant.
        return [{i: i for i in items}]
