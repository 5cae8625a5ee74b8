"""What an agent run hands back, whichever suite ran it: the tool record, the outcome, the
transcript written for one item, and one mechanical check's record."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gaia_eval.core.models import ResultModel


class _Model(ResultModel):
    """Unknown fields are errors; each field's docstring is its schema description."""


class ToolCall(_Model):
    """One tool call in an agent's record, in the order it ran."""

    index: int
    """Position in the record (0-based)."""
    name: str
    """Tool name as the harness called it (read_file, run_shell, Edit, ...)."""
    args: dict[str, Any] = Field(default_factory=dict)
    """Arguments as sent."""
    result: str = ""
    """What the tool returned (capped)."""
    is_error: bool = False
    """True when the tool reported failure or refused (guardrail, path boundary)."""
    check_passed: bool | None = None
    """A test tool's own structured verdict, when it has one (wins over parsing)."""
    t: float = 0.0
    """Seconds since the agent started."""


class AgentOutcome(_Model):
    """What a harness hands back: the answer and the record, even for a cut-off run."""

    answer: str = ""
    """The agent's final answer text."""
    first_answer_at: int | None = None
    """Number of tool calls made before the first answer (None: never answered)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """The tool record."""
    steps: int = 0
    """Model turns (LLM calls), or the harness's own step count."""
    input_tokens: int = 0
    """Prompt tokens over all model calls (cached included)."""
    output_tokens: int = 0
    """Completion tokens over all model calls."""
    cached_tokens: int = 0
    """Prompt tokens served from the backend's cache."""
    reported_cost_usd: float | None = None
    """A harness's own cost figure (Claude Code's total_cost_usd), when it reports one."""
    error: str | None = None
    """Why the agent stopped abnormally."""
    error_kind: Literal["unavailable", "failed"] | None = None
    """unavailable: the model backend could not be reached (unmeasured); failed: other."""


class CheckRecord(_Model):
    """One mechanical check that ran."""

    kind: Literal["unchanged", "tests_pass", "probe", "gate"]
    """Which check."""
    passed: bool
    """Its verdict."""
    detail: str = ""
    """The reason (last output line on failure)."""


class Transcript(_Model):
    """transcript.json: what one agent did on one task."""

    schema_: int = Field(default=1, alias="schema")
    """Format version."""
    task: str
    """Task id."""
    prompt: str
    """The prompt as sent (with its workdir prefix)."""
    outcome: AgentOutcome
    """Answer and tool record."""
    stdout_tail: str = ""
    """Last 4,000 characters of the harness's stdout."""
    stderr_tail: str = ""
    """Last 4,000 characters of its stderr."""
