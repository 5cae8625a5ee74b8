"""`builtin`: our own tool-using agent over any OpenAI-compatible chat endpoint."""

from __future__ import annotations

import os
from pathlib import Path

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.harnesses.child_plan import ChildHarness
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.llm.spec import OPENAI_KEY_ENV, ModelSpec, resolve


class BuiltinHarness(ChildHarness):
    name = "builtin"

    def __init__(
        self,
        model: ModelSpec,
        full_access: bool = False,
        shell_timeout_s: float = 120.0,
        retries: int = 3,
        backoff_s: float = 1.0,
    ) -> None:
        if model.backend not in ("openai", "local"):
            msg = (
                f"--model {model.text!r}: the builtin harness needs an OpenAI-compatible "
                "model ('openai:<base_url>#<model>', a bare name with GAIA_EVAL_OPENAI_BASE_URL, "
                "or 'local')"
            )
            raise InvalidInputError(msg)
        self.model = model
        self.full_access = full_access
        self.shell_timeout_s = shell_timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.route_url: str | None = None
        """The gateway route for the next launch (the runner sets it per task)."""

    def route(self, url: str | None) -> None:
        """Send the next task's model calls through the gateway at `url` (a tagged route
        plus `/v1`); the child then holds no key."""
        self.route_url = url

    def launch_turns(
        self, task_id: str, turns: list[str], workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        """The earlier turns go to the model first as their own messages, each answered
        with no tools; `turns[-1]` is the task."""
        # `local`: the server this process already runs; the agent's child process gets
        # its URL and never starts a server of its own.
        served = resolve(self.model)
        return self.child_plan(
            turns,
            workdir,
            run_dir,
            max_steps,
            shell_timeout_s=self.shell_timeout_s,
            base_url=self.route_url or served.base_url,
            model=served.model,
            # Through the gateway the key stays with the gateway; without one it travels
            # on stdin, never in the environment.
            api_key="" if self.route_url else os.environ.get(OPENAI_KEY_ENV, ""),
            retries=self.retries,
            backoff_s=self.backoff_s,
        )
