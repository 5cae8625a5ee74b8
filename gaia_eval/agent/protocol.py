"""The `ChatAgent` protocol: what the scenario suite needs from any chat agent.

Plug your own in with `gaia-eval agent --system module:factory`; the factory takes no
arguments and returns an object with these methods:

    info() -> AgentInfo                      name and the model it is configured for
    reset(documents) -> int                  new conversation; index these files; chunks indexed
    send(message) -> AgentReply              one user message -> the reply, tools, token stats
    close() -> None

Optionally, `state() -> AgentState` shows what the agent holds after a turn: its current
(and superseded, forgotten) memories and the folder it writes files in. State checks
(`checks:` in a scenario turn) and `VERIFY VIA MCP:` memory verification read it; an
agent without it leaves those unverified (a check) or fails them (VERIFY VIA MCP).

`AgentReply.model` is the model that actually answered (read back from the backend); with
`--agent-model M` a scenario whose replies name another model is discarded as INFRA_ERROR.
Raise `gaia_eval.core.errors.InfrastructureError` when the agent's own backend is down (the
run stops resumably); any other exception makes the scenario ERRORED.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class AgentInfo:
    name: str
    model: str | None = None
    settings: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolCallRecord:
    name: str
    arguments: str = ""
    output: str = ""
    by: str = "model"
    """`model` (the model asked for it) or `pipeline` (the agent ran it unasked)."""


@dataclass
class AgentReply:
    text: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    time_to_first_token: float | None = None
    tokens_per_second: float | None = None
    model: str | None = None


@dataclass(frozen=True)
class MemoryRecord:
    """One memory the agent holds, as its memory read tools would list it."""

    key: str
    """What it is about (an attribute, a title)."""
    value: str | None
    """The remembered text; None once forgotten."""
    state: str = "current"
    """current, superseded or forgotten."""
    id: str = ""
    superseded_by: str | None = None


@dataclass
class AgentState:
    """What the agent holds after a turn (`state()`); None fields: it has no such thing."""

    memories: list[MemoryRecord] | None = None
    """Every memory, superseded and forgotten ones included; None: no memory to show."""
    workspace: Path | None = None
    """The folder the agent writes files in; None: it writes no files."""


@runtime_checkable
class ChatAgent(Protocol):
    def info(self) -> AgentInfo: ...

    def reset(self, documents: list[Path]) -> int:
        """Start a new conversation with these documents indexed; the chunks indexed."""
        ...

    def send(self, message: str) -> AgentReply: ...

    def close(self) -> None: ...
