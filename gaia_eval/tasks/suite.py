"""The tasks suite on the engine: items are tasks x repeats, one item runs one task
(runner.run_task), a pass after the last task judges them in one batch per repeat, and the
classmethods read a results.json alone (summary, gate rules, headline, report sections).

`ControlsSuite` is the same machinery on three planted attempts at one task, for
`tasks controls`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import cast

from pydantic import BaseModel

from gaia_eval.core.compare.metrics import ItemMetric
from gaia_eval.core.gate import CheckRule, GateRules, MetricRule
from gaia_eval.core.report import Section
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, Metric, RunContext, Suite
from gaia_eval.llm.local_server import RECORD_KEY
from gaia_eval.tasks import report
from gaia_eval.tasks.definitions import task_definition, toybox_digest
from gaia_eval.tasks.gate import (
    MISREPORT_SLACK,
    PASS_SLACK,
    QUALITY_SLACK,
    USAGE_SLACK,
    VERIFIED_SLACK,
)
from gaia_eval.tasks.harnesses.base import Harness
from gaia_eval.tasks.models import TaskResult, TasksSummary
from gaia_eval.tasks.results import (
    item_dir,
    item_id,
    scorecards,
    select_tasks,
    summarise,
)
from gaia_eval.tasks.runner import TasksConfig, run_task


class TasksSuite(Suite):
    name = "tasks"
    title = "Flagship agent tasks"
    item_model = TaskResult
    item_noun = "task"

    def __init__(self, cfg: TasksConfig) -> None:
        self.cfg = cfg

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
        from gaia_eval.tasks.fence import register_run

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
        from gaia_eval.tasks.credentials import for_judge
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

    @classmethod
    def gate_rules(cls) -> GateRules:
        return GateRules(
            metrics=(
                MetricRule("passed", absolute=PASS_SLACK),
                MetricRule("verified", absolute=VERIFIED_SLACK),
                MetricRule("quality", absolute=QUALITY_SLACK),
                MetricRule("misreported", higher_is_better=False, absolute=MISREPORT_SLACK),
                MetricRule("total_tokens", False, absolute=0.0, relative=USAGE_SLACK),
                MetricRule("steps", False, absolute=0.0, relative=USAGE_SLACK),
            ),
            # A coding task's mechanical verdict must still pass; a judged verdict (judge
            # noise) and `verified` flips are listed, not failed on.
            checks=(CheckRule("passed"), CheckRule("*", must_still_pass=False)),
        )

    @classmethod
    def gate_metrics(cls, env: Envelope) -> dict[str, Metric]:
        c = TasksSummary.model_validate(env.summary).counts
        out = {
            "passed": Metric(c.passed, c.tasks),
            "verified": Metric(c.verified, c.coding),
            "total_tokens": Metric(c.total_tokens, c.tasks),
            "steps": Metric(c.steps, c.tasks),
        }
        if c.judged:
            out["quality"] = Metric(c.quality, c.judged)
            out["misreported"] = Metric(c.misreported, c.judged)
        return out

    @classmethod
    def gate_checks(cls, env: Envelope) -> dict[tuple[str, str], bool | None]:
        out: dict[tuple[str, str], bool | None] = {}
        for rec in env.items:
            if rec.status != "ok" or rec.result is None:
                continue
            res = TaskResult.model_validate(rec.result)
            if res.check == "mechanical":
                out[(rec.id, "passed")] = res.passed
                out[(rec.id, "verified")] = res.verified
            else:
                out[(rec.id, "passed (judged)")] = res.passed
        return out

    @classmethod
    def headline(cls, env: Envelope) -> list[tuple[str, str]]:
        return report.headline(TasksSummary.model_validate(env.summary))

    @classmethod
    def report_sections(cls, env: Envelope) -> list[Section]:
        price = env.header.settings.get("price")  # --price, else the rate cards
        return report.sections(
            TasksSummary.model_validate(env.summary),
            scorecards(env),
            price if isinstance(price, list) else None,
        )

    @classmethod
    def compare_metrics(cls, env: Envelope) -> list[ItemMetric]:
        """The gate's item checks per task: a task's repeats (`<task>#<k>`) are repeats of one
        unit, resampled together, so repeat noise is not counted as more tasks."""
        from gaia_eval.tasks.results import split_item_id

        rules = cls.gate_rules().checks
        out: dict[str, ItemMetric] = {}
        for (item, check), ok in cls.gate_checks(env).items():
            if ok is None:
                continue
            gated = next(r for r in rules if fnmatchcase(check, r.pattern)).must_still_pass
            metric = out.setdefault(check, ItemMetric(check, "binary", gated=gated))
            metric.add(split_item_id(item)[0], ok, item)
        return [out[k] for k in sorted(out)]


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
        from gaia_eval.tasks.controls import CONTROL_TASK, SCRIPTS
        from gaia_eval.tasks.harnesses.replay import ReplayHarness

        return ReplayHarness({CONTROL_TASK: SCRIPTS[item.id]})

    @classmethod
    def judge_groups(cls, items: list[str]) -> list[dict[str, str]]:
        # One call with the three attempts side by side, named by their plant.
        return [{i: i for i in items}]
