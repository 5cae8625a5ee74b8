"""The case and dataset models of session replay (dataset.json)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gaia_eval.sessions.results import CaseResult, Scorecard


class ReferenceUsage(BaseModel):
    """Tokens Claude Code spent on the reference answer, deduped by message.id + requestId."""

    input_tokens: int = 0
    """Uncached input tokens."""
    output_tokens: int = 0
    """Output tokens."""
    cache_creation_input_tokens: int = 0
    """Input tokens written to the prompt cache."""
    cache_read_input_tokens: int = 0
    """Input tokens read from the prompt cache."""
    requests: int = 0
    """Distinct API requests the turn made (split messages counted once)."""
    model: str | None = None
    """The model that wrote the reference, as recorded."""
    cost_usd: float | None = None
    """Cost at the known list price of `model`; None when the price is unknown."""


class SessionCase(BaseModel):
    """One recorded exchange: what the user asked and what Claude Code finally answered."""

    id: str
    """First 8 characters of the session file stem, '-', a 3-digit turn index."""
    session: str
    """The session file stem."""
    project: str
    """The project folder under the Claude directory."""
    prompt: str
    """What the user typed."""
    reference: str
    """The last text block of the answer: what the user finally read."""
    tools_used: list[str] = Field(default_factory=list)
    """Tool names the reference turn called (sorted, unique)."""
    timestamp: str | None = None
    """The prompt record's timestamp."""
    context: str | None = None
    """The previous exchange (prompt 400 chars, answer 900), replayed as its own turn."""
    tags: list[str] = Field(default_factory=list)
    """Keyword tags: code, repo, explain, search, docs."""
    query: str
    """The prompt, with the context folded in before it when there is one."""
    cwd: str | None = None
    """The session's working directory, as recorded."""
    git_branch: str | None = None
    """The git branch recorded with the prompt."""
    usage: ReferenceUsage = Field(default_factory=ReferenceUsage)
    """What the reference cost."""


class SessionDataset(BaseModel):
    """dataset.json: the selected cases and how many records were read to find them."""

    source: str = "claude-code-sessions"
    """Always 'claude-code-sessions'."""
    sessions_scanned: int
    """Session files read."""
    turns_extracted: int
    """Exchanges extracted before selection."""
    focus: str | None = None
    """The --focus tag, if any."""
    limit: int
    """The --limit asked for."""
    lines_skipped: dict[str, int] = Field(default_factory=dict)
    """Lines not read: blank, unparseable, truncated."""
    cases: list[SessionCase]
    """The selected cases, in selection order."""


RESULT_MODELS: tuple[type[BaseModel], ...] = (SessionDataset, CaseResult, Scorecard)
