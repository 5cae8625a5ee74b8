"""Result models of the memory benchmark: one `ScenarioResult` per item (a scenario, or one
repeat of it in `full`), made of probes and their checks, plus the scenario's timeline, its
database growth and the latency of each memory operation."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gaia_eval.core.models import ResultModel

CheckKind = Literal[
    "must_show", "must_not_show", "store_must", "store_must_not", "answer_must", "judge",
    "abstain", "abstain_store", "abstain_answer", "aggregate",
]  # fmt: skip
METRIC_OF: dict[str, str] = {
    "must_show": "shown_recall",
    "aggregate": "shown_recall",
    "abstain": "shown_clean",
    "abstain_store": "store_accuracy",
    "abstain_answer": "answer_accuracy",
    "must_not_show": "shown_clean",
    "store_must": "store_accuracy",
    "store_must_not": "store_accuracy",
    "answer_must": "answer_accuracy",
    "judge": "answer_accuracy",
}
METRICS = ("shown_recall", "shown_clean", "store_accuracy", "answer_accuracy")


class CheckResult(ResultModel):
    """One deterministic check of one probe."""

    id: str
    """`<scenario>/<probe>/<check>/<n>`: stable across runs, the gate's unit."""
    probe: str
    """The probe's id."""
    kind: str
    """The probe's kind: update, forget, provenance, lesson, reminder, temporal, recall,
    abstention, aggregation."""
    check: CheckKind
    """Which list of the probe the check comes from."""
    label: str
    """What the check looks for (a text, or a store pattern)."""
    passed: bool
    """True when the check held."""
    detail: str = ""
    """Why it failed, in a line: what was missing, or what was found that should not be."""
    held: list[str] = Field(default_factory=list)
    """What the store held about the label when the check failed (rows, with states)."""
    rank: int | None = None
    """must_show: the 1-based position of the first shown memory line (`- ...`) holding
    the label, None when not shown; recall@k and MRR are read from it."""


class ProbeResult(ResultModel):
    """One probe: the request at its time, what was shown, and its checks."""

    id: str
    """The probe's id in the scenario."""
    kind: str
    """The probe's kind."""
    at: str
    """When it ran (simulated time, ISO)."""
    request: str
    """The request the agent was shown memory for."""
    shown: str
    """Exactly what was shown: the system section, then the turn context."""
    shown_tokens: int
    """Approximate tokens of `shown` (words and punctuation marks)."""
    answer: str | None = None
    """`full`: the model's answer to the request with that memory."""
    checks: list[CheckResult]
    """Every check of the probe, in file order."""


class TimelineRow(ResultModel):
    """One stored item over simulated time, for the report's timeline."""

    id: str
    """The system's id of the row."""
    label: str
    """`attribute: value` (or `(forgotten)`)."""
    kind: str
    """fact, preference, lesson or reminder."""
    state: str
    """current, superseded or forgotten at the scenario's end."""
    start: str
    """When it became true (valid_from, else created)."""
    end: str | None
    """When it stopped being true (superseded or forgotten), else None."""


class DbSize(ResultModel):
    """The database's size after a chat."""

    at: str
    """Simulated time after the chat (ISO)."""
    bytes: int
    """Size of the database file plus its WAL."""


class OpTiming(ResultModel):
    """Wall-clock latency of one memory operation (measured; not part of the verdict)."""

    op: str
    """upkeep, process_turn, remember, update, forget, shown, dump."""
    count: int
    """How many calls."""
    mean_ms: float
    """Mean milliseconds per call."""
    p95_ms: float
    """95th percentile (nearest rank)."""
    max_ms: float
    """Slowest call."""


class ScenarioResult(ResultModel):
    """The result of one item: one scenario replayed once through the system under test."""

    scenario: str
    """The scenario's id (its file name without .yaml)."""
    repeat: int = 1
    """Which repeat this is (`full --repeats N`); 1 in `pr`."""
    persona: str
    """Whose months these are."""
    start: str
    """Simulated start (ISO)."""
    end: str
    """Simulated end (ISO)."""
    chats: int
    """Chats replayed."""
    turns: int
    """Turns replayed."""
    probes: list[ProbeResult]
    """Every probe, in time order."""
    timeline: list[TimelineRow]
    """The store's rows at the end, with their time spans."""
    db_bytes: list[DbSize]
    """Database size after each chat."""
    timings: list[OpTiming]
    """Latency per operation (wall clock, so it differs run to run)."""
    extract_unmatched: int = 0
    """Turns the extractor had no answer for (scripted: the system asked about text the
    scenario never said)."""
    extract_failures: int = 0
    """`full`: model replies that did not parse as candidates (extracted nothing)."""
    model_tokens: dict[str, int] = Field(default_factory=dict)
    """`full`: input and output tokens the model spent (extract, consolidate, answer)."""


RESULT_MODELS = (ScenarioResult,)
"""The item result inside a memory results.json envelope (`gaia-eval schema`)."""
