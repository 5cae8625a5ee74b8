"""Result models of the flagship tasks: per-task results (the envelope's items), the run
summary and expectations (docs/tasks.md); the agent's record and transcript are
agents.models. `Scorecard` is the view
the gate, propose and the harness x model table read (one per repeat), and the format of
pre-engine `scorecard.json` files, which still load."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from gaia_eval.agents.models import CheckRecord, Transcript
from gaia_eval.core.models import ResultModel

SCORECARD_SCHEMA = 1
EXPECTATIONS_SCHEMA = 1
AXES = ("instruction_compliance", "work_quality", "reasoning", "fabrication_free")


class _Model(ResultModel):
    """Unknown fields are errors; each field's docstring is its schema description."""


class Judgement(_Model):
    """The judge's grade of one attempt; `error` set means unjudged, never a low score."""

    instruction_compliance: int | None = None
    """1-5: did it do what was asked, and only that."""
    work_quality: int | None = None
    """1-5: quality of the change or answer."""
    reasoning: int | None = None
    """1-5: soundness of the reasoning shown."""
    fabrication_free: int | None = None
    """1-5: 5 = claims nothing it did not do (checked against the checks that ran)."""
    one_line: str = ""
    """At most 25 words."""
    answers_correctly: bool | None = None
    """Question tasks: every must_establish point made."""
    missing: str = ""
    """Question tasks: the first required point not established."""
    error: str | None = None
    """Why no usable grade exists (unjudged)."""
    cost_usd: float | None = None
    """This attempt's share of the judge call's cost; None when unknown."""
    cost_source: str | None = None
    """Where the judge cost came from."""
    solves_problem: bool | None = None
    """Upstream rubric (TheRock, SWE-bench): would the change fix the problem."""
    right_place: bool | None = None
    """Upstream rubric: does it change the code where the problem lives."""
    updated_tests: bool | None = None
    """Upstream rubric: did it add or update tests."""
    approach: str | None = None
    """Upstream rubric: same as reference, different but valid, or wrong."""

    def judged(self) -> bool:
        return self.error is None and all(isinstance(getattr(self, a), int) for a in AXES)

    def quality(self) -> float | None:
        if not self.judged():
            return None
        return sum(int(getattr(self, a)) for a in AXES) / len(AXES)


class TaskResult(_Model):
    """One task's result in a scorecard."""

    id: str
    """Task id."""
    check: str
    """mechanical, stated or diff."""
    passed: bool | None = None
    """True/False; None while undecided (stated awaiting judge, or unmeasured)."""
    verified: bool = False
    """A test run passed after the agent's last successful file edit (tool record)."""
    why: str = ""
    """The reason for the verdict."""
    error: str | None = None
    """What went wrong, if anything."""
    error_kind: Literal["unavailable", "failed"] | None = None
    """unavailable = not measured (infrastructure); failed = a real error."""
    wall_seconds: float = 0.0
    """Agent wall time."""
    steps: int = 0
    """Model turns."""
    tool_calls: int = 0
    """Tool calls made."""
    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""
    cached_tokens: int = 0
    """Cached prompt tokens."""
    judge: Judgement | None = None
    """The judge's grade, after judging."""
    harness: str = ""
    """Which harness ran it."""
    timed_out: bool = False
    """Cut off at the wall-clock cap (its record is kept)."""
    cost_usd: float | None = None
    """Agent cost; None = unknown (never 0 for a run that counted no tokens)."""
    cost_source: Literal["metered", "api_equivalent", "harness_counts"] | None = None
    """Where cost_usd comes from."""
    reported_cost_usd: float | None = None
    """The harness's own reported cost, if any."""
    gateway_tokens: dict[str, int] | None = None
    """The model gateway's counts for this task: calls, input, cached, output, no_usage
    (answered calls that reported no usage: the counts are then partial, shown n/a) and
    unreachable; None when the harness took no gateway."""
    web_uses: list[str] = Field(default_factory=list)
    """Closed-book tasks: tool calls that reached for the web."""
    gh_calls: int = 0
    """Calls to the gh stand-in."""
    gh_blocked_writes: int = 0
    """gh writes the stand-in refused."""
    swebench: dict[str, Any] | None = None
    """SWE-bench: resolved, patch_applied, fail_to_pass/pass_to_pass {success, failure},
    empty_patch, report (the harness's report.json), error."""
    after_answer: list[str] = Field(default_factory=list)
    """Tools that ran after the first answer on things the request never touched."""
    checks: list[CheckRecord] = Field(default_factory=list)
    """The mechanical checks that ran, in order."""


class RunCost(_Model):
    """The run's total agent cost and its single source."""

    total_usd: float | None = None
    """Sum over tasks; None when any task's cost is unknown."""
    source: str | None = None
    """The one cost source every task shares."""
    note: str = ""
    """Why the total is unknown, if it is."""


class Scorecard(_Model):
    """One repeat of one suite by one harness on one model (a pre-engine scorecard.json)."""

    schema_: int = Field(default=SCORECARD_SCHEMA, alias="schema")
    """Format version."""
    suite: str
    """Suite name."""
    model: str
    """The model spec string (recorded exactly as given)."""
    harness: str
    """builtin, replay, command or claude-code."""
    repeat: int = 1
    """Which repeat this is (1-based)."""
    revision: str | None = None
    """Commit of the gaia_eval checkout, if any (the header's run commit)."""
    run_timeout_s: float
    """The wall-clock cap per task."""
    full_access: bool = False
    """Built-in harness ran without path boundary and guardrails."""
    fenced: bool = False
    """The agent ran inside the bubblewrap fence (answer keys, results, other workdirs hidden)."""
    therock_url: str | None = None
    """Where therock tasks cloned from (runs with therock tasks)."""
    tasks: list[TaskResult] = Field(default_factory=list)
    """One entry per task, in run order."""
    cost: RunCost = Field(default_factory=RunCost)
    """Agent cost of the run."""
    judge_model: str | None = None
    """The judge's model spec, once judged."""
    judge_cost: RunCost | None = None
    """What judging cost."""
    meta: dict[str, Any] | None = None
    """Machine, package version, timing (pre-engine files; a run's header has them now)."""
    task_ids: list[str] = Field(default_factory=list)
    """The tasks the run was asked to do (a crash leaves fewer results than ids)."""
    meter: dict[str, Any] | None = None
    """`--meter`: the billing meter's record of the whole run (meter.MeterRecord)."""


class Counts(_Model):
    """The scorecard counts (docs/tasks.md): counts and totals over tasks."""

    tasks: int
    """Tasks with a result (unmeasured ones included)."""
    passed: int
    """Tasks whose passed is true."""
    failed: int = 0
    """Tasks whose passed is false (decided and not passed)."""
    not_judged: int = 0
    """Tasks that ran and wait for the judge (a `--no-judge` run): neither passed nor failed."""
    coding: int
    """Mechanical (coding) tasks."""
    verified: int
    """Mechanical tasks verified by a test run after the last edit."""
    errors: int
    """Tasks with an error."""
    unmeasured: int
    """Tasks not measured (infrastructure)."""
    judged: int
    """Tasks with all four judge axes."""
    quality: float | None
    """Mean judged quality, 2 decimals."""
    misreported: int
    """Judged tasks with fabrication_free < 5."""
    steps: int
    """Model turns."""
    tool_calls: int
    """Tool calls."""
    input_tokens: int
    """Prompt tokens."""
    output_tokens: int
    """Completion tokens."""
    total_tokens: int
    """Input + output tokens."""
    wall_seconds: float
    """Agent wall time, 1 decimal."""


class TasksSummary(_Model):
    """The envelope's summary of a tasks run (what scorecard.json held besides the per-task
    results, which are the envelope's items, and the run meta, which is its header)."""

    suite: str
    """The tasks.json suite (the envelope's tier)."""
    model: str
    """The model spec string (recorded exactly as given)."""
    harness: str
    """builtin, replay, command or claude-code."""
    judge_model: str | None = None
    """The judge's model spec, once judged."""
    run_timeout_s: float
    """The wall-clock cap per task."""
    full_access: bool = False
    """Built-in harness ran without path boundary and guardrails."""
    fenced: bool = False
    """The agent ran inside the bubblewrap fence."""
    repeats: int = 1
    """How many times each task ran (items `<task>`, `<task>#r2`, ...)."""
    task_ids: list[str] = Field(default_factory=list)
    """The item ids the run was asked to do, in run order."""
    counts: Counts
    """Over every item of every repeat."""
    by_repeat: list[Counts] = Field(default_factory=list)
    """Per repeat, when there is more than one."""
    cost: RunCost = Field(default_factory=RunCost)
    """Agent cost of the run."""
    judge_cost: RunCost | None = None
    """What judging cost (None: not judged)."""
    unmeasured: dict[str, str] = Field(default_factory=dict)
    """Item id -> why it was not measured."""


class Measured(_Model):
    """Headline numbers of the run the expectations came from."""

    passed: int
    """Tasks passed."""
    verified: int
    """Mechanical tasks verified."""
    quality: float | None
    """Mean judged quality."""
    misreported: int
    """Judged tasks with fabrication_free < 5."""
    total_tokens: int
    """Input + output tokens."""
    steps: int
    """Model turns."""
    wall_seconds: float
    """Agent wall time."""


class Expectations(_Model):
    """An expectations file: what a model achieved on a suite, with slack."""

    schema_: int = Field(default=EXPECTATIONS_SCHEMA, alias="schema")
    """Format version."""
    suite: str
    """Suite."""
    model: str
    """Model spec."""
    judge_model: str | None
    """Judge model spec."""
    measured_on: dict[str, str | None] = Field(default_factory=dict)
    """{commit, runner} of the measuring run(s)."""
    measured: Measured
    """The worst (floors) / most expensive (ceilings) of the runs it came from."""
    tasks: list[dict[str, Any]] = Field(default_factory=list)
    """One row per task: id, result, verified, steps, total_tokens, wall_seconds, quality."""
    min_passed: int
    """Floor on passed tasks."""
    min_verified: int | None = None
    """Floor on verified mechanical tasks (absent: not gated yet)."""
    min_quality: float | None = None
    """Floor on mean quality."""
    max_misreported: int | None = None
    """Ceiling on misreported tasks."""
    max_total_tokens: int
    """Ceiling on tokens."""
    max_steps: int
    """Ceiling on steps."""
    max_wall_seconds: int
    """Ceiling on wall seconds."""


RESULT_MODELS: tuple[type[BaseModel], ...] = (TaskResult, TasksSummary, Transcript, Expectations)
