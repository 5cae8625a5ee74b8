"""The RAG retrieval gate: a current run against a committed baseline (pure).

Rules (reference-behaviour §2.9):
1. Refuse (NotComparableError, exit 3) when the suite, the embedder or the VLM setting
   differ, or a dataset's question set differs: such numbers measure different things.
2. A baseline dataset missing from the current run fails.
3. Gated metrics per dataset: sdk recall@5, sdk MRR, agent recall@returned. The allowed
   drop is max(tolerance, 1.5 / n), n = current question count, so on small sets one
   flipped question passes and two fail. Absent in the baseline: skipped; absent now: fail.
4. More evidence documents failing to index than in the baseline fails.
5. Every question whose sdk hit@5 flipped is listed (information, both directions).
6. Hard cases: a case that passed in the baseline but was not run now fails; any case
   with status `error` fails; pass -> fail fails; other changes are information.
A baseline compared with itself passes at tolerance 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.retrieval.models import DatasetResult, HardCase, RetrievalResults

DEFAULT_TOLERANCE = 0.02
# Float slack so that equal metrics written with 4 decimals never fail on rounding.
_EPS = 1e-9

GATED_METRICS: tuple[tuple[str, str, str], ...] = (
    ("sdk recall@5", "sdk", "recall@5"),
    ("sdk mrr", "sdk", "mrr"),
    ("agent recall@returned", "agent", "recall@returned"),
)


@dataclass(frozen=True)
class MetricCheck:
    """One gated metric of one dataset."""

    dataset: str
    metric: str
    baseline: float
    current: float | None
    allowed_drop: float
    passed: bool


@dataclass(frozen=True)
class Flip:
    """A question whose sdk hit@5 changed."""

    dataset: str
    question: str
    baseline_rank: int | None
    current_rank: int | None

    @property
    def now_passes(self) -> bool:
        return self.current_rank is not None and self.current_rank <= 5


@dataclass
class GateVerdict:
    """What the gate decided and why."""

    tolerance: float
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    checks: list[MetricCheck] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def refuse_unlike(
    baseline: RetrievalResults,
    *,
    suite: str,
    embedder: str | None,
    vlm_enabled: bool | None,
) -> None:
    """Raise NotComparableError when the run differs in suite, embedder or VLM setting.

    `embedder` / `vlm_enabled` may be None before the system is built (not checked yet).
    """
    meta = baseline.meta
    if meta.suite != suite:
        msg = (
            f"baseline is suite {meta.suite!r}, this run is suite {suite!r}; "
            "compare runs of the same suite"
        )
        raise NotComparableError(msg)
    if embedder is not None and meta.embedder != embedder:
        msg = (
            f"baseline embedder {meta.embedder!r} differs from this run's {embedder!r}; "
            f"rerun with --embedder {meta.embedder} or gate against a baseline of {embedder}"
        )
        raise NotComparableError(msg)
    if vlm_enabled is not None and meta.vlm.enabled != vlm_enabled:
        on_off = {True: "on", False: "off"}
        msg = (
            f"baseline ran with the VLM {on_off[meta.vlm.enabled]}, this run with it "
            f"{on_off[vlm_enabled]}; the VLM changes PDF chunks, so the runs are not comparable"
        )
        raise NotComparableError(msg)


def _metric(ds: DatasetResult, pipeline: str, key: str) -> float | None:
    summary: dict[str, Any] = ds.summary.model_dump(by_alias=True)
    value = (summary.get(pipeline) or {}).get(key)
    return None if value is None else float(value)


def _hit5(rank: int | None) -> bool:
    return rank is not None and rank <= 5


def compare(
    baseline: RetrievalResults, current: RetrievalResults, tolerance: float = DEFAULT_TOLERANCE
) -> GateVerdict:
    """Gate `current` against `baseline`; raises NotComparableError for unlike runs."""
    if tolerance < 0:
        msg = f"--tolerance must be >= 0, got {tolerance}"
        raise InvalidInputError(msg)
    if not baseline.meta.complete:
        msg = (
            "the baseline comes from a run that did not complete (meta.complete is false); "
            "use the results.json of a finished run"
        )
        raise InvalidInputError(msg)
    refuse_unlike(
        baseline,
        suite=current.meta.suite,
        embedder=current.meta.embedder,
        vlm_enabled=current.meta.vlm.enabled,
    )
    current_sets = {d.dataset: d for d in current.datasets}
    for base in baseline.datasets:
        cur = current_sets.get(base.dataset)
        if cur is not None and cur.questions_digest != base.questions_digest:
            msg = (
                f"dataset {base.dataset!r} has a different question set than the baseline "
                "(questions or evidence labels changed); replace the baseline with a real run "
                "of the new dataset"
            )
            raise NotComparableError(msg)

    verdict = GateVerdict(tolerance=tolerance)
    if not current.meta.complete:
        verdict.failures.append(
            "the current run did not complete: " + ("; ".join(current.meta.errors) or "unknown")
        )
    for base in baseline.datasets:
        cur = current_sets.get(base.dataset)
        if cur is None:
            verdict.failures.append(f"dataset {base.dataset!r} is in the baseline but was not run")
            continue
        _gate_dataset(verdict, base, cur, tolerance)
    _gate_hard_cases(verdict, baseline.hard_cases, current.hard_cases)
    return verdict


def _gate_dataset(
    verdict: GateVerdict, base: DatasetResult, cur: DatasetResult, tolerance: float
) -> None:
    n = cur.summary.questions
    allowed = max(tolerance, 1.5 / n) if n else tolerance
    for label, pipeline, key in GATED_METRICS:
        old = _metric(base, pipeline, key)
        if old is None:
            continue
        new = _metric(cur, pipeline, key)
        ok = new is not None and new >= old - allowed - _EPS
        verdict.checks.append(MetricCheck(base.dataset, label, old, new, round(allowed, 4), ok))
        if new is None:
            verdict.failures.append(f"{base.dataset}: {label} is in the baseline but missing now")
        elif not ok:
            verdict.failures.append(
                f"{base.dataset}: {label} dropped {old:.4f} -> {new:.4f} "
                f"(allowed drop {allowed:.4f} = max(tolerance {tolerance}, 1.5/{n}))"
            )

    base_failed = base.index.required_failed if base.index else 0
    if cur.index is None:
        verdict.failures.append(f"{cur.dataset}: indexing did not finish")
    elif cur.index.required_failed > base_failed:
        names = ", ".join(f.doc for f in cur.index.failed if f.required)
        verdict.failures.append(
            f"{cur.dataset}: {cur.index.required_failed} evidence documents failed to index "
            f"(baseline {base_failed}): {names}"
        )

    current_q = {q.id: q for q in cur.questions}
    missing = [q.id for q in base.questions if q.id not in current_q]
    if missing:
        verdict.failures.append(
            f"{cur.dataset}: {len(missing)} baseline questions were not run: {', '.join(missing)}"
        )
    for q in base.questions:
        now = current_q.get(q.id)
        if now is not None and _hit5(q.sdk_rank) != _hit5(now.sdk_rank):
            verdict.flips.append(Flip(cur.dataset, q.id, q.sdk_rank, now.sdk_rank))


def _gate_hard_cases(
    verdict: GateVerdict, base: list[HardCase] | None, cur: list[HardCase] | None
) -> None:
    before = {c.id: c for c in base or []}
    after = {c.id: c for c in cur or []}
    for cid, case in before.items():
        now = after.get(cid)
        if case.status == "pass" and (now is None or now.status == "skipped"):
            verdict.failures.append(f"hard case {cid} passed in the baseline but was not run")
        elif now is not None and case.status == "pass" and now.status == "fail":
            verdict.failures.append(f"hard case {cid}: pass -> fail ({now.finding})")
        elif now is not None and now.status not in (case.status, "error"):
            verdict.notes.append(f"hard case {cid}: {case.status} -> {now.status}")
    for cid, case in after.items():
        if case.status == "error":
            verdict.failures.append(f"hard case {cid} crashed: {case.finding}")
        elif cid not in before:
            verdict.notes.append(f"hard case {cid} is new: {case.status}")
