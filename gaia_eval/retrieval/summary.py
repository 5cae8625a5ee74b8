"""The RAG suite's summary of an envelope (pure: items and setup in, RagSummary out).

Per dataset: its index statistics (from setup) and the aggregates of both pipelines over
the questions measured (scoring.py); the hard cases' outcomes. Questions are aggregated
in id order, so a resumed, sharded or merged run summarises exactly like a single one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gaia_eval.retrieval import scoring
from gaia_eval.retrieval.models import (
    DatasetSummary,
    HardCase,
    QuestionResult,
    RagItem,
    RagSetup,
    RagSummary,
    ScaleTier,
)

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope, ItemRecord

HARD_PREFIX = "hard/"
SCALE_PREFIX = "scale/"


def is_hard_case(item_id: str) -> bool:
    return item_id.startswith(HARD_PREFIX)


def result_of(rec: ItemRecord) -> QuestionResult | HardCase | ScaleTier | None:
    """A record's result model (None: it crashed or was not measured)."""
    if rec.status != "ok" or rec.result is None:
        return None
    return RagItem.model_validate(rec.result).root


def questions(env: Envelope) -> dict[str, list[QuestionResult]]:
    """Measured questions by dataset id, each list in question-id order."""
    out: dict[str, list[QuestionResult]] = {}
    for rec in env.items:
        res = result_of(rec)
        if isinstance(res, QuestionResult):
            out.setdefault(res.dataset, []).append(res)
    return {ds: sorted(qs, key=lambda q: q.id) for ds, qs in out.items()}


def hard_case_status(rec: ItemRecord) -> str | None:
    """pass / fail / measured / skipped, `error` for a case that crashed, None: unmeasured."""
    if rec.status == "error":
        return "error"
    res = result_of(rec)
    return res.status if isinstance(res, HardCase) else None


def summarise(env: Envelope) -> RagSummary:
    setup = RagSetup.model_validate(env.setup)
    by_ds = questions(env)
    datasets = [
        DatasetSummary(
            dataset=d.dataset,
            description=d.description,
            source=d.source,
            questions_digest=d.questions_digest,
            questions_total=d.questions,
            documents_outside=d.documents_outside,
            index=setup.index(d.dataset),
            summary=scoring.summarize(by_ds.get(d.dataset, [])),
            by_tag=scoring.by_tag(by_ds.get(d.dataset, [])),
        )
        for d in setup.datasets
    ]
    hard: dict[str, str] | None = None
    if any(is_hard_case(i) for i in env.header.item_ids) or any(
        is_hard_case(r.id) for r in env.items
    ):
        hard = {}
        for rec in env.items:
            status = hard_case_status(rec) if is_hard_case(rec.id) else None
            if status is not None:
                hard[rec.id.removeprefix(HARD_PREFIX)] = status
    answered = [q for qs in by_ds.values() for q in qs if q.answer is not None]
    canary = sorted(f"{q.dataset}/{q.id}" for q in answered if q.answer and q.answer.canary)
    return RagSummary(
        datasets=datasets, hard_cases=hard, canary_answers=canary if answered else None
    )
