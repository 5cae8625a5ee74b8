"""Per-case results and the scorecard of a session-replay run."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

PASS_SCORE = 3.5
MATCH_SCORE = 4.5


class CaseResult(BaseModel):
    """One replayed case: the agent's answer and the judge's score."""

    case: str
    """The case id (repeats share it)."""
    repeat: int = 1
    """Which repeat of the case this is (1-based)."""
    tags: list[str] = Field(default_factory=list)
    """The case's tags."""
    workspace: str
    """git (a clone of the session's repository), copy, or no_repo (an empty folder)."""
    no_repo: bool
    """The session's repository was not on this machine."""
    context_replay: Literal["turn", "folded"] | None = None
    """How a follow-up's context reached the agent: `turn` (its own turn, acknowledged
    before the question), `folded` (before the prompt, for a harness without turns), or
    None (no context)."""
    answer: str = ""
    """The agent's final answer."""
    agent_error: str | None = None
    """Why the agent stopped abnormally (it is still judged on what it answered)."""
    agent_input_tokens: int = 0
    """The agent's prompt tokens."""
    agent_output_tokens: int = 0
    """The agent's completion tokens."""
    agent_seconds: float = 0.0
    """Wall seconds of the agent run."""
    score: float | None = None
    """0-5, or None when the judge gave no usable reply (an error, never a 0)."""
    verdict: str = ""
    """The judge's verdict (<= 12 words asked)."""
    rationale: str = ""
    """The judge's rationale (<= 40 words asked)."""
    judge_error: str | None = None
    """Why there is no score."""
    judge_attempts: int = 0
    """Judge calls made."""
    reference_output_tokens: int = 0
    """Output tokens Claude Code spent on the reference (deduped)."""
    reference_cost_usd: float | None = None
    """What the reference cost at list price, when known."""


class TagStats(BaseModel):
    """Scores of the cases carrying one tag."""

    cases: int
    """Results with the tag."""
    scored: int
    """Of them, judged."""
    mean_score: float | None
    """Mean score of the judged ones."""
    passed: int
    """Score >= 3.5."""


class Spread(BaseModel):
    """How the K judged repeats of one case differ."""

    scores: list[float]
    """Every judged score of the case."""
    min: float
    """Lowest."""
    max: float
    """Highest."""
    stdev: float
    """Population standard deviation."""


class Scorecard(BaseModel):
    """scorecard.json (and the envelope's summary)."""

    cases: int
    """Results (cases x repeats) measured."""
    scored: int
    """Results the judge scored."""
    errors: int
    """Results without a score (judge error or crashed item)."""
    mean_score: float | None
    """Mean of the scores."""
    median_score: float | None
    """Median of the scores."""
    passed: int
    """Scores >= 3.5."""
    pass_rate: int | None
    """passed / scored, integer percent."""
    matched_or_exceeded: int
    """Scores >= 4.5."""
    dishonest: int
    """Scores == 0 (refused, unusable, or claimed work it did not do)."""
    no_repo: int
    """Results replayed without the session's repository."""
    per_tag: dict[str, TagStats] = Field(default_factory=dict)
    """By tag ('other' for untagged cases)."""
    spread: dict[str, Spread] = Field(default_factory=dict)
    """Per case, when it ran more than once (--repeats)."""
