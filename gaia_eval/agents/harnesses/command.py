"""`command`: any CLI agent, given the prompt through a template.

The template is split like a shell line first and the placeholders ({prompt}, {workdir},
{model}) are filled into single arguments afterwards, so a prompt can never inject shell
syntax. The agent's stdout is its answer; it has no tool record we can read, so
`verified` is always false for it.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.models import AgentOutcome
from gaia_eval.core.errors import InvalidInputError

ANSWER_CAP = 8000


class CommandHarness:
    name = "command"

    def __init__(self, template: str, model: str = "") -> None:
        if not template or "{prompt}" not in template:
            msg = "--command-template: required for --harness command and must contain {prompt}"
            raise InvalidInputError(msg)
        try:
            self.words = shlex.split(template)
        except ValueError as err:
            msg = f"--command-template {template!r}: {err}"
            raise InvalidInputError(msg) from err
        self.model = model

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        values = {"prompt": prompt, "workdir": str(workdir), "model": self.model}
        argv = [w.format_map(values) for w in self.words]
        return LaunchPlan(argv)

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        text = stdout.read_text(encoding="utf-8", errors="replace") if stdout.exists() else ""
        answer = text.strip()[-ANSWER_CAP:]
        return AgentOutcome(answer=answer, first_answer_at=0 if answer else None)
