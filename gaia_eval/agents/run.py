"""Run one agent on one prompt in one project, whichever suite asks: the harness in its own
process group under the wall-clock cap (fenced when asked), its record read back, and what
the run cost. The suite's item logic (what to copy, what to check) stays in the suite."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gaia_eval.agents.harnesses.base import Harness, LaunchPlan
from gaia_eval.agents.isolation import Completed, run_capped
from gaia_eval.agents.models import AgentOutcome
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.llm.pricing import price

if TYPE_CHECKING:
    from gaia_eval.agents.fence import FencePlan


@dataclass(frozen=True)
class Fence:
    """What the fence hides from an agent (agents.fence: bubblewrap or sandbox-exec), in
    order: `hide`, then `expose` (the task's folder, first entry) and `keep_ro` bound back,
    then `rehide`."""

    hide: list[Path]
    expose: list[Path]
    rehide: list[Path]
    keep_ro: list[Path] = field(default_factory=list)

    def plan(self) -> FencePlan:
        from gaia_eval.agents import fence

        return fence.plan(
            task_root=self.expose[0], hide=self.hide, rehide=self.rehide, keep_ro=self.keep_ro
        )


def run_agent(
    harness: Harness,
    *,
    task_id: str,
    prompt: str,
    project: Path,
    agent_dir: Path,
    max_steps: int,
    env: dict[str, str],
    timeout_s: float,
    fence: Fence | None = None,
    plan: LaunchPlan | None = None,
) -> tuple[AgentOutcome, Completed]:
    """Launch `harness` on `prompt` in `project` under the wall-clock cap (fenced when
    asked) and read its record back. A harness that cannot start is an
    InfrastructureError; a cut-off or failed agent is an outcome with its error set.
    `plan`: one the caller made (a conversation's `launch_turns`) instead of `launch`."""
    if plan is None:
        plan = harness.launch(task_id, prompt, project, agent_dir, max_steps)
    env = {**env, **(plan.env or {})}  # the harness's model route, if it has one
    stdout, stderr = agent_dir / "stdout.txt", agent_dir / "stderr.txt"
    argv = plan.argv
    if fence is not None:
        from gaia_eval.agents.fence import wrap

        argv = wrap(argv, fence.plan())
    try:
        done = run_capped(
            argv,
            cwd=project,
            env=env,
            timeout_s=timeout_s,
            stdout=stdout,
            stderr=stderr,
            stdin=plan.stdin,
        )
    except OSError as err:
        msg = f"harness {harness.name} could not start {plan.argv[0]!r}: {err}"
        raise InfrastructureError(msg) from err
    outcome = harness.collect(agent_dir, stdout, stderr)
    if done.timed_out and not outcome.error:
        outcome.error = f"cut off at the {timeout_s:g}s wall-clock cap"
        outcome.error_kind = "failed"
    elif done.returncode != 0 and not outcome.error:
        outcome.error = f"agent exited with status {done.returncode}: {tail(stderr, 300)}"
        outcome.error_kind = "failed"
    return outcome, done


CostSource = Literal["metered", "api_equivalent", "harness_counts"]


def agent_cost(
    model: str,
    harness: Harness,
    outcome: AgentOutcome,
    price_override: tuple[float, float] | None = None,
    gateway_tokens: dict[str, int] | None = None,
) -> tuple[float | None, CostSource | None]:
    """(cost in USD or None when unknown, its source) of one agent run. Claude Code on an
    open model (its calls went through the gateway) is priced from the counts, never from
    its own figure, which is an Anthropic list price."""
    cost = price(model, outcome.input_tokens, outcome.output_tokens, price_override)
    source: CostSource | None = "harness_counts" if outcome.steps or gateway_tokens else None
    routed = gateway_tokens is not None and harness.name == "claude-code"
    if outcome.reported_cost_usd is not None and harness.name == "claude-code" and not routed:
        # Claude Code's own figure: the list price of its tokens, not money spent.
        cost, source = outcome.reported_cost_usd, "api_equivalent"
    return cost, source


def tail(path: Path, n: int) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-n:].decode("utf-8", "replace")
