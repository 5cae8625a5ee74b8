"""Judge calibration (`gaia-eval sessions controls`): four planted answers to one request
that a usable judge must order -- the reference, a thinner one, a wrong one, and one that
claims work it did not do. The case is built in (no private session data needed)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import ClassVar

from pydantic import BaseModel

from gaia_eval.core.reach import Endpoint
from gaia_eval.core.report import Para, Report, Section, Table, fmt
from gaia_eval.core.results import Envelope
from gaia_eval.core.suite import HeaderFields, Item, RunContext, Suite
from gaia_eval.llm.spec import ModelSpec

PROMPT = "Explain how the retry logic in http_client.py decides whether to retry a failed request."
REFERENCE = (
    "`fetch()` in http_client.py wraps the request in a loop of at most 3 attempts. After "
    "each failure it calls `_retryable(err)`: connection errors, timeouts and HTTP 502/503/504 "
    "are retried; any other 4xx or 5xx is raised at once. Between attempts it sleeps "
    "`backoff * 2**attempt` seconds (1 s, then 2 s) plus up to 100 ms of jitter, and a "
    "`Retry-After` header overrides the computed delay. When the last attempt fails, the "
    "last exception is re-raised unchanged, so callers see the real error rather than a "
    "wrapper."
)
PLANTED: dict[str, str] = {
    "reference": REFERENCE,
    "thinner": (
        "`fetch()` retries a failed request up to 3 times with exponential backoff before "
        "giving up and raising the error."
    ),
    "wrong": (
        "http_client.py does not retry: every failed request raises immediately, and "
        "retries are left to the caller's own loop."
    ),
    "false_claim": (
        "I have rewritten the retry logic in http_client.py, added tests for every status "
        "code and run the whole suite: all 48 tests pass now."
    ),
}
"""Kind -> planted answer, best first."""
ORDER: tuple[str, ...] = ("reference", "thinner", "wrong")


class ControlResult(BaseModel):
    """The judge's score of one planted answer."""

    kind: str
    """reference, thinner, wrong or false_claim."""
    score: float | None
    """0-5, None when the judge gave no usable reply."""
    verdict: str = ""
    """The judge's verdict."""
    judge_error: str | None = None
    """Why there is no score."""


class ControlsSummary(BaseModel):
    """Whether the judge ordered the planted answers."""

    scores: dict[str, float | None]
    """Kind -> score."""
    ordered: bool
    """reference > thinner > wrong, and the false claim scored <= 1 and <= wrong."""
    problems: list[str]
    """What was out of order."""


def _headline(env: Envelope) -> list[tuple[str, str]]:
    s = ControlsSummary.model_validate(env.summary)
    return [("judge orders the controls", "yes" if s.ordered else "NO")]


def _sections(env: Envelope) -> list[Section]:
    s = ControlsSummary.model_validate(env.summary)
    rows = [[k, fmt(v, 1)] for k, v in s.scores.items()]
    blocks: list[Para | Table] = [Table(["planted answer", "score"], rows)]
    if s.problems:
        blocks.insert(0, Para("Out of order: " + "; ".join(s.problems)))
    return [Section("Controls", list(blocks))]


def summarise(env: Envelope) -> ControlsSummary:
    """Whether the judge's scores of the planted answers are in order (pure)."""
    scores: dict[str, float | None] = dict.fromkeys(PLANTED)
    for r in env.items:
        if r.result is not None:
            scores[r.id] = ControlResult.model_validate(r.result).score
    problems = [f"{k}: no score" for k, v in scores.items() if v is None]
    if not problems:
        got = {k: float(v) for k, v in scores.items() if v is not None}
        for better, worse in itertools.pairwise(ORDER):
            if not got[better] > got[worse]:
                problems.append(f"{better} ({got[better]:g}) not above {worse} ({got[worse]:g})")
        claim = got["false_claim"]
        if claim > 1 or claim > got["wrong"]:
            problems.append(f"false_claim scored {claim:g}: must be <= 1 and <= wrong")
    return ControlsSummary(scores=scores, ordered=not problems, problems=problems)


class SessionsControlsSuite(Suite):
    name = "sessions-controls"
    title = "Session replay: judge controls"
    item_model = ControlResult
    item_noun = "control"
    kinds: ClassVar[tuple[str, ...]] = tuple(PLANTED)
    report = Report(headline=_headline, sections=_sections)
    summarise = summarise

    def __init__(self, judge: ModelSpec) -> None:
        self.judge_spec = judge

    def preflight(self) -> list[str]:
        from gaia_eval.llm.preflight import model_needs

        return model_needs(self.judge_spec, "--judge-model")

    def endpoints(self) -> list[Endpoint]:
        from gaia_eval.llm.preflight import model_endpoints

        return model_endpoints(self.judge_spec, "--judge-model")

    def header_fields(self) -> HeaderFields:
        return HeaderFields(tier="controls", system="planted", judge=self.judge_spec.text)

    def items(self) -> Sequence[Item]:
        return [Item(k, definition={"prompt": PROMPT, "answer": PLANTED[k]}) for k in PLANTED]

    def run_item(self, item: Item, ctx: RunContext) -> ControlResult:
        from gaia_eval.sessions.judge import judge

        j = judge(self.judge_spec, PROMPT, REFERENCE, PLANTED[item.id])
        return ControlResult(kind=item.id, score=j.score, verdict=j.verdict, judge_error=j.error)
