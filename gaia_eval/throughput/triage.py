"""Score triage answers against the corpus labels (spec §9 acceptance metrics). Pure."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gaia_eval.throughput.models import TriageScore
from gaia_eval.throughput.workloads import CATEGORIES, URGENT_AT

THROUGHPUT_BAR_TPS = 10.0
STRETCH_TPS = 30.0


@dataclass(frozen=True)
class Step:
    """One email's outcome at one level."""

    labels: dict[str, Any]
    answer: str | None
    """The answer text; None when the request failed."""
    ttft_ms: float | None
    tpot_ms: float | None
    input_tokens: int | None
    output_tokens: int | None


def parse_answer(text: str) -> tuple[str, dict[str, Any] | None]:
    """('ok', prediction) | ('error', None) for JSON-like text that does not parse or breaks
    the schema | ('skipped', None) for text that is not JSON at all."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    if not body.startswith(("{", "[")):
        return "skipped", None
    try:
        obj = json.loads(body)
    except ValueError:
        return "error", None
    if not isinstance(obj, dict):
        return "error", None
    urgency, category, personal = obj.get("urgency"), obj.get("category"), obj.get("personal")
    if (
        not isinstance(urgency, int)
        or isinstance(urgency, bool)
        or not 1 <= urgency <= 5
        or category not in CATEGORIES
        or not isinstance(personal, bool)
    ):
        return "error", None
    return "ok", {"urgency": urgency, "category": category, "personal": personal}


def _share(hits: int, n: int) -> float | None:
    return round(hits / n, 4) if n else None


def score(steps: Sequence[Step], pipeline_s: float) -> TriageScore:
    """The acceptance metrics over the emails the model classified."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    parse_errors = skipped = request_errors = 0
    tokens = out_tokens = 0
    ttfts: list[float] = []
    rates: list[float] = []
    for step in steps:
        if step.answer is None:
            request_errors += 1
            continue
        if step.ttft_ms is not None and step.ttft_ms > 0:
            ttfts.append(step.ttft_ms)
        if step.tpot_ms is not None and step.tpot_ms > 0:
            rates.append(1000.0 / step.tpot_ms)
        state, pred = parse_answer(step.answer)
        if state == "error":
            parse_errors += 1
            continue
        if state == "skipped" or pred is None:
            skipped += 1
            continue
        pairs.append((step.labels, pred))
        tokens += (step.input_tokens or 0) + (step.output_tokens or 0)
        out_tokens += step.output_tokens or 0
    n = len(pairs)
    urgent = [(g, p) for g, p in pairs if g["urgency"] >= URGENT_AT]
    personal = [(g, p) for g, p in pairs if g["personal"]]
    avg_tps = round(sum(rates) / len(rates), 3) if rates else None
    return TriageScore(
        emails=len(steps),
        classified=n,
        parse_errors=parse_errors,
        skipped=skipped,
        request_errors=request_errors,
        within_one_bucket_accuracy=_share(
            sum(abs(g["urgency"] - p["urgency"]) <= 1 for g, p in pairs), n
        ),
        urgent_vs_not_accuracy=_share(
            sum((g["urgency"] >= URGENT_AT) == (p["urgency"] >= URGENT_AT) for g, p in pairs), n
        ),
        urgent_recall=_share(sum(p["urgency"] >= URGENT_AT for _, p in urgent), len(urgent)),
        personal_recall=_share(sum(bool(p["personal"]) for _, p in personal), len(personal)),
        category_accuracy=_share(sum(g["category"] == p["category"] for g, p in pairs), n),
        tokens_per_triage=round(tokens / n, 2) if n else None,
        output_tokens_per_triage=round(out_tokens / n, 2) if n else None,
        avg_ttft_ms=round(sum(ttfts) / len(ttfts), 3) if ttfts else None,
        avg_tokens_per_second=avg_tps,
        meets_throughput_bar=avg_tps is not None and avg_tps >= THROUGHPUT_BAR_TPS,
        pipeline_s=round(pipeline_s, 3),
        status="PASS" if n else "FAIL",
    )
