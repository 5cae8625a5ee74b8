"""The Harness protocol and the factory that picks one by name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.tasks.models import AgentOutcome

HARNESSES = ("builtin", "replay", "command", "claude-code")


@dataclass(frozen=True)
class LaunchPlan:
    """What the runner starts: argv, and bytes for stdin (secrets travel here, never in
    the environment)."""

    argv: list[str]
    stdin: bytes | None = None


class Harness(Protocol):
    name: str

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """Prepare the run; `run_dir` is the harness's private folder outside `workdir`."""
        ...

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        """Read the record back, also after the process was killed at the cap."""
        ...


def make_harness(name: str, **options: Any) -> Harness:
    if name == "builtin":
        from gaia_eval.tasks.harnesses.builtin import BuiltinHarness

        return BuiltinHarness(**options)
    if name == "replay":
        from gaia_eval.tasks.harnesses.replay import ReplayHarness

        return ReplayHarness(**options)
    if name == "command":
        from gaia_eval.tasks.harnesses.command import CommandHarness

        return CommandHarness(**options)
    if name == "claude-code":
        from gaia_eval.tasks.harnesses.claude_code import ClaudeCodeHarness

        return ClaudeCodeHarness(**options)
    msg = f"--harness {name!r}: expected one of {list(HARNESSES)}"
    raise InvalidInputError(msg)
