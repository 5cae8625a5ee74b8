"""The Harness protocol and the launch plan a harness hands the runner.

Only the contract lives here; the concrete harnesses import it and the registry
(`harnesses.registry`) builds them by name, so nothing here knows any harness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from gaia_eval.agents.models import AgentOutcome


@dataclass(frozen=True)
class LaunchPlan:
    """What the runner starts: argv, and bytes for stdin (secrets travel here, never in
    the environment)."""

    argv: list[str]
    stdin: bytes | None = None
    env: Mapping[str, str] | None = None
    """Variables the harness adds to the clean agent environment (its model route; never a
    credential: the gateway holds the key)."""


@runtime_checkable
class Harness(Protocol):
    """How one agent is launched on a task and how its record is read back."""

    name: str

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """Prepare the run; `run_dir` is the harness's private folder outside `workdir`."""
        ...

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        """Read the record back, also after the process was killed at the cap. An outage of
        the model backend is an outcome with error_kind "unavailable" (the runner turns it
        into an InfrastructureError, so the run stops with the item unmeasured)."""
        ...


@runtime_checkable
class ConversationHarness(Protocol):
    """A harness that can hold a conversation: earlier user turns are sent first, each
    answered by the agent (briefly, with no tools), and the last turn is the task itself.
    Session replay uses it to send a follow-up's context as its own turn; a harness
    without it (a one-shot CLI) gets the context folded in before the prompt."""

    def launch_turns(
        self, task_id: str, turns: list[str], workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """Like Harness.launch; `turns[-1]` is the task prompt, the others come first."""
        ...
