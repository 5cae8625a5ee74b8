"""One task, start to finish: the item logic of the tasks suite. It does not print.

A fresh toybox copy with its setup, a baseline snapshot, the harness in its own process
group under the wall-clock cap, then the checks; the scrubbed transcript and diffs go to
the item's folder. Everything around it (the lock, signals, saving after every task,
resume, shards, the report) is the run loop's (core.runloop).
"""

from __future__ import annotations

import copy
import dataclasses
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia_eval.agents import gateway, ghstub
from gaia_eval.agents.harnesses.base import Harness
from gaia_eval.agents.isolation import agent_env
from gaia_eval.agents.models import AgentOutcome, Transcript
from gaia_eval.agents.run import Fence, agent_cost, run_agent, tail
from gaia_eval.agents.workspace import Workspace, copy_project, touched_files, tree_diff
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.results_io import write_json, write_text
from gaia_eval.llm.local_server import LocalServerInfo
from gaia_eval.tasks.checks import after_answer, decide_mechanical, evaluate, verified, web_uses
from gaia_eval.tasks.definitions import TaskDef, data_dir, toybox_dir
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.setups import SETUPS, cache_file_for

DEFAULT_RUN_TIMEOUT_S = 1800.0
TAIL = 4000


@dataclass
class TasksConfig:
    """Everything a tasks run needs; the CLI builds it from flags and variables."""

    suite: str
    """The tasks.json suite (the run's tier)."""
    tasks: list[TaskDef]
    """Every task of the suite, in run order (the definition digest covers them all)."""
    harness: Harness
    model: str
    judge_model: str | None = None
    judge_attempts: int = 2
    run_timeout_s: float = DEFAULT_RUN_TIMEOUT_S
    work_root: Path | None = None
    """Where task workdirs live; None: inside the run's temporary folder."""
    repeats: int = 1
    only: list[str] | None = None
    """Run only these task ids (`--tasks`): a filtered run."""
    full_access: bool = False
    fence: bool = False
    price_override: tuple[float, float] | None = None
    keep_workdirs: bool = False
    tests_timeout_s: float = 240.0
    system: str | None = None
    """The header's system (default: the harness name), e.g. `replay:reference`."""
    harness_settings: dict[str, Any] = field(default_factory=dict)
    """Harness options that change the numbers (recorded in the header's settings)."""
    local_model: LocalServerInfo | None = None
    """The embedded local server behind a `local` agent or judge, already running."""
    git_mirror: Path | None = None
    """Repository tasks: a folder of clones named owner+name instead of GitHub."""
    therock_url: str | None = None
    """TheRock-style tasks clone from here (default tasks.therock.DEFAULT_URL)."""
    swebench: Any = None
    """SWE-bench grading options (tasks.swebench.SwebenchOptions) for --suite swebench."""
    gateway_url: str | None = None
    """The model gateway the harness's calls go through (ours or `--gateway-url`)."""
    gateway_suffix: str = ""
    """What the harness appends to its tagged gateway route (`/v1` for OpenAI clients)."""
    meter: dict[str, Any] | None = None
    """`--meter`: the billing meter's record with its opening snapshot (meter.MeterRecord)."""


def task_env(root: Path, task: TaskDef) -> dict[str, str]:
    """The agent env plus the task's offline gh stand-in first on PATH."""
    env = agent_env()
    gh_bin = ghstub.install(root, task.gh)
    env["PATH"] = os.pathsep.join([str(gh_bin), env["PATH"]])
    env["GH_CONFIG_DIR"] = str(root / "gh" / "config")
    env["GH_PROMPT_DISABLED"] = "1"
    env["GH_NO_UPDATE_NOTIFIER"] = "1"
    return env


def prepare(task: TaskDef, work_root: Path, source: Path | None = None) -> Workspace:
    """Copy the toybox, apply the task's setup, snapshot the result; its cache file goes
    with the workspace."""
    setup = SETUPS[task.setup] if task.setup else None
    ws = copy_project(source or toybox_dir(), work_root, prefix=task.id, setup=setup)
    return dataclasses.replace(ws, leftovers=(cache_file_for(ws.project),))


def run_task(
    cfg: TasksConfig,
    task: TaskDef,
    task_dir: Path,
    *,
    work_root: Path,
    results_dir: Path,
    harness: Harness | None = None,
) -> TaskResult:
    """Run `task` once; raises InfrastructureError when the model backend was down."""
    # A copy of its own: the gateway route is set on the harness per item, and with
    # --jobs several items launch at once.
    harness = copy.copy(harness or cfg.harness)
    task_dir.mkdir(parents=True, exist_ok=True)
    from gaia_eval.agents.grader import remember_runner

    remember_runner()  # before any agent: the checks' runner as it was
    # Absolute: the harness child runs in the project folder, so a relative path would
    # point it at a different place than the one the record is read back from.
    from gaia_eval.agents.fence import FenceExtra
    from gaia_eval.tasks.kinds import kind_for

    kind = kind_for(task)
    ws = (
        kind.prepare(cfg, task, work_root.resolve()) if kind else prepare(task, work_root.resolve())
    )
    try:
        if task.setup:
            write_text(task_dir / "setup.diff", tree_diff(ws.pristine, ws.baseline))
        prompt = f"You are working in {ws.project}.\n\n{task.prompt}"
        # The raw record (progress.jsonl, stdout, stderr) stays in the temporary workspace:
        # only its scrubbed transcript reaches the results folder.
        agent_dir = ws.root / "agent"
        agent_dir.mkdir(exist_ok=True)
        tag = _gateway_tag(cfg, harness, task)
        env = task_env(ws.root, task)
        if kind:
            env = kind.env(cfg, task, env)
        stdout, stderr = agent_dir / "stdout.txt", agent_dir / "stderr.txt"
        # The answer keys (task definitions, reference attempts), every results folder,
        # every other task's workdir and cache and this task's baseline are invisible to
        # the agent (agents.fence).
        from gaia_eval.agents import fence as fence_mod

        extra = kind.fence(cfg, task, harness.name) if kind and cfg.fence else FenceExtra()
        fence = (
            Fence(
                hide=[*fence_mod.standard_hide(data_dir(), results_dir, work_root), *extra.hide],
                expose=[ws.root],
                rehide=[ws.baseline],
                keep_ro=list(extra.keep_ro),
            )
            if cfg.fence
            else None
        )
        outcome, done = run_agent(
            harness,
            task_id=task.id,
            prompt=prompt,
            project=ws.project,
            agent_dir=agent_dir,
            max_steps=task.max_steps,
            env=env,
            timeout_s=cfg.run_timeout_s,
            fence=fence,
        )
        gateway_tokens = _gateway_counts(cfg, tag, outcome, timed_out=done.timed_out)
        # Counted before the checks: probes call gh too, and those calls are not the agent's.
        gh_counts = ghstub.counts(ws.root)
        transcript = Transcript(
            task=task.id,
            prompt=prompt,
            outcome=outcome,
            stdout_tail=tail(stdout, TAIL),
            stderr_tail=tail(stderr, TAIL),
        )
        write_json(task_dir / "transcript.json", transcript.model_dump(mode="json", by_alias=True))
        if outcome.error_kind == "unavailable":
            # An outage, not the agent's failure: the item is unmeasured and the run stops.
            msg = f"the model backend was unavailable: {outcome.error}"
            raise InfrastructureError(msg)
        result = score_task(
            cfg,
            harness,
            task=task,
            project=ws.project,
            baseline=ws.baseline,
            outcome=outcome,
            env=env,
            wall=done.wall_seconds,
            gateway_tokens=gateway_tokens,
        )
        result.timed_out = done.timed_out
        if kind:
            # After the agent exited: answers (reference diffs, gold patches) are read now.
            kind.finish(cfg, task, ws=ws, result=result, task_dir=task_dir, results_dir=results_dir)
        result.gh_calls, result.gh_blocked_writes = gh_counts
        write_text(task_dir / "workspace.diff", tree_diff(ws.baseline, ws.project))
        return result
    finally:
        if not cfg.keep_workdirs:
            ws.cleanup()


def score_task(
    cfg: TasksConfig,
    harness: Harness,
    *,
    task: TaskDef,
    project: Path,
    baseline: Path,
    outcome: AgentOutcome,
    env: dict[str, str],
    wall: float,
    gateway_tokens: dict[str, int] | None = None,
) -> TaskResult:
    cost, source = agent_cost(cfg.model, harness, outcome, cfg.price_override, gateway_tokens)
    result = TaskResult(
        id=task.id,
        check=task.check,
        harness=harness.name,
        wall_seconds=wall,
        steps=outcome.steps,
        tool_calls=len(outcome.tool_calls),
        input_tokens=outcome.input_tokens,
        output_tokens=outcome.output_tokens,
        cached_tokens=outcome.cached_tokens,
        verified=task.check == "mechanical" and verified(outcome.tool_calls),
        error=outcome.error,
        error_kind=outcome.error_kind,
        reported_cost_usd=outcome.reported_cost_usd,
        cost_usd=cost,
        cost_source=source,
        web_uses=web_uses(outcome.tool_calls) if task.closed_book else [],
        gateway_tokens=gateway_tokens,
    )
    if task.check == "mechanical" and task.expect is not None:
        result.checks = evaluate(
            task.expect, project, baseline, env, tests_timeout_s=cfg.tests_timeout_s
        )
        result.passed, result.why = decide_mechanical(task, result.checks)
    else:
        result.passed = None
        result.why = "awaiting judge"
    result.after_answer = after_answer(outcome, task.prompt, touched_files(baseline, project))
    if result.after_answer:
        result.passed = False
        result.why = f"kept working after its answer: {result.after_answer[0]}"
    return result


def _gateway_tag(cfg: TasksConfig, harness: Harness, task: TaskDef) -> str | None:
    """Route this task's model calls through the gateway under a tag of its own (so one
    gateway counts many tasks and runs apart); None when the harness takes no gateway."""
    route_to = getattr(harness, "route", None)
    if cfg.gateway_url is None or route_to is None:
        return None
    tag = f"{os.getpid()}-{secrets.token_hex(4)}-{task.id}"
    route_to(gateway.route(cfg.gateway_url, tag) + cfg.gateway_suffix)
    return tag


def _gateway_counts(
    cfg: TasksConfig, tag: str | None, outcome: AgentOutcome, *, timed_out: bool
) -> dict[str, int] | None:
    """The gateway's counts for the task, applied where they are the better record: Claude
    Code on an open model (its own counts are the server's, often none), and a run cut off
    at the cap (the agent never wrote its last counts). A task that failed while the
    gateway could not reach the model is an outage, not the agent's failure."""
    if tag is None or cfg.gateway_url is None:
        return None
    totals = gateway.fetch_totals(cfg.gateway_url, tag)
    if totals is None:
        return None
    if totals.get("unreachable") and outcome.error:
        outcome.error_kind = "unavailable"
    if cfg.harness.name == "claude-code" or timed_out:
        if gateway.tokens_known(totals):
            outcome.input_tokens, outcome.output_tokens = totals["input"], totals["output"]
            outcome.cached_tokens = totals["cached"]
        elif cfg.harness.name == "claude-code":
            # No usage from the server: the tokens are unknown (n/a), never 0 priced as $0.
            outcome.input_tokens = outcome.output_tokens = outcome.cached_tokens = 0
    return totals
