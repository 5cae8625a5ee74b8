"""Per-case results and the scorecard of a session-replay run."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope

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


def summarise(env: Envelope) -> Scorecard:
    """The scorecard of a run's measured cases (pure: the envelope alone)."""
    results = [CaseResult.model_validate(r.result) for r in env.items if r.result is not None]
    crashed = sum(1 for r in env.items if r.status == "error")
    scores = [r.score for r in results if r.score is not None]
    per_tag: dict[str, TagStats] = {}
    for tag in sorted({t for r in results for t in (r.tags or ["other"])}):
        rows = [r for r in results if tag in (r.tags or ["other"])]
        got = [r.score for r in rows if r.score is not None]
        per_tag[tag] = TagStats(
            cases=len(rows),
            scored=len(got),
            mean_score=round(statistics.fmean(got), 3) if got else None,
            passed=sum(1 for s in got if s >= PASS_SCORE),
        )
    by_case: dict[str, list[float]] = {}
    for r in results:
        if r.score is not None:
            by_case.setdefault(r.case, []).append(r.score)
    spread = {
        case: Spread(
            scores=got,
            min=min(got),
            max=max(got),
            stdev=round(statistics.pstdev(got), 3),
        )
        for case, got in by_case.items()
        if len(got) > 1
    }
    passed = sum(1 for s in scores if s >= PASS_SCORE)
    return Scorecard(
        cases=len(results) + crashed,
        scored=len(scores),
        errors=len(results) - len(scores) + crashed,
        mean_score=round(statistics.fmean(scores), 3) if scores else None,
        median_score=statistics.median(scores) if scores else None,
        passed=passed,
        pass_rate=round(100 * passed / len(scores)) if scores else None,
        matched_or_exceeded=sum(1 for s in scores if s >= MATCH_SCORE),
        dishonest=sum(1 for s in scores if s == 0),
        no_repo=sum(1 for r in results if r.no_repo),
        per_tag=per_tag,
        spread=spread,
    )
