"""The RAG retrieval gate's rules, on the one gate engine (core/gate.py).

Rules (docs/retrieval-rag.md):
1. Refuse (NotComparableError, exit 3) when the suite tier, the system, the embedder or
   the VLM setting differ, or a dataset's question set differs (its questions digest):
   such numbers measure different things (`comparable_fields`).
2. A baseline dataset not run now fails.
3. Gated metrics per dataset: sdk recall@5, sdk MRR, agent recall@returned. The allowed
   drop is max(tolerance, 1.5 / n), n = current question count, so on small sets one
   flipped question passes and two fail (the engine's rule with `widen_items=1.5`).
   Absent in the baseline: not gated; absent now: fail.
4. More evidence documents failing to index than in the baseline fails.
5. Every question whose sdk hit@5 flipped is listed (information, both directions), with
   its first-hit ranks; a baseline question not run now fails.
6. Hard cases: a case that passed in the baseline but was not run now (or was skipped)
   fails; pass -> fail fails; a case that crashed fails (the engine: an item error);
   other changes are information.
7. Answers (with `--model`) are reported, never gated: the answer model and the judge are
   left out of the fields a baseline must share (`gate_comparable_fields`), and a change of
   an answers-only hard case (`prompt_injection`) is a note.
A baseline compared with itself passes at tolerance 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gaia_eval.core.gate import CheckRule, GateRules, Metric, MetricRule
from gaia_eval.retrieval.models import QuestionResult, RagSummary
from gaia_eval.retrieval.summary import HARD_PREFIX, hard_case_status, is_hard_case, result_of

if TYPE_CHECKING:
    from gaia_eval.core.compare.metrics import ItemMetric
    from gaia_eval.core.results import Envelope, Header

DEFAULT_TOLERANCE = 0.02
WIDEN_ITEMS = 1.5
"""The allowed drop is at least 1.5 questions' worth (1.5 / n)."""
HIT_CHECK = "sdk hit@5"

GATED_METRICS: tuple[tuple[str, str, str], ...] = (
    ("sdk recall@5", "sdk", "recall@5"),
    ("sdk mrr", "sdk", "mrr"),
    ("agent recall@returned", "agent", "recall@returned"),
)


def comparable_fields(header: Header) -> dict[str, Any]:
    """What must be equal to gate, resume or merge, named as a user would look for it.

    The question sets are compared per dataset (their digests), not through the engine's
    definition digest: that one also covers the hard cases, whose absence is a gate
    failure (rule 6), not a reason to refuse.
    """
    settings = dict(header.settings)
    digests: dict[str, str] = settings.pop("questions_digest", None) or {}
    fields: dict[str, Any] = {
        "suite": header.suite,
        "tier (--suite)": header.tier,
        "system": header.system,
        "embedder": header.embedder,
        "model": header.model,
        "judge": header.judge,
        "VLM on": settings.pop("vlm", None),
        "dense depth": settings.pop("dense_depth", None),
    }
    fields |= {f"question set of dataset {ds}": d for ds, d in sorted(digests.items())}
    fields |= {f"settings.{k}": v for k, v in sorted(settings.items())}
    return fields


ANSWER_FIELDS = ("judge", "settings.answer_model")
"""Answers never enter the gate, so a run with answers gates against a retrieval-only
baseline (and the other way round); resume and merge still compare these."""


ANSWER_CASES = frozenset({"prompt_injection"})
"""Hard cases that run only with answers; reported, never gated."""


def gate_comparable_fields(header: Header) -> dict[str, Any]:
    """`comparable_fields` without the answer model and the judge."""
    fields = comparable_fields(header)
    for key in ANSWER_FIELDS:
        fields.pop(key, None)
    return fields


def metrics(env: Envelope) -> dict[str, Metric]:
    out: dict[str, Metric] = {}
    for ds in RagSummary.model_validate(env.summary).datasets:
        values = ds.summary.model_dump(by_alias=True)
        for label, pipeline, key in GATED_METRICS:
            value = (values.get(pipeline) or {}).get(key)
            out[f"{ds.dataset}/{label}"] = Metric(
                None if value is None else float(value), ds.summary.questions
            )
    return out


def _hit5(rank: int | None) -> bool:
    return rank is not None and rank <= 5


def checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    return {
        (rec.id, HIT_CHECK): _hit5(res.sdk_rank)
        for rec in env.items
        if isinstance(res := result_of(rec), QuestionResult)
    }


def _expected(current: Envelope) -> Any:
    """Whether the current run was meant to run an item: a shard only its own part."""
    shard = current.header.shard
    if not shard:
        return lambda _item: True
    from gaia_eval.core.runloop import Shard

    part = Shard.parse(shard)
    return part.holds


def _rank(rank: int | None) -> str:
    return "miss" if rank is None else str(rank)


def extra(baseline: Envelope, current: Envelope) -> tuple[list[str], list[str]]:
    """Rules 2, 4, 5 (ranks, questions outside the asked set) and 6."""
    failures: list[str] = []
    notes: list[str] = []
    expected = _expected(current)
    asked = set(current.header.item_ids)
    now = current.records()
    before = RagSummary.model_validate(baseline.summary)
    after = {d.dataset: d for d in RagSummary.model_validate(current.summary).datasets}
    base_ids: dict[str, list[str]] = {}
    for rec in baseline.items:
        res = result_of(rec)
        if isinstance(res, QuestionResult):
            base_ids.setdefault(res.dataset, []).append(rec.id)
    # An unedited baseline summarises every dataset its items measured; one that does not
    # (`summary.datasets: []` with questions in it) would gate nothing and pass (issue 12).
    unsummarised = sorted(set(base_ids) - {d.dataset for d in before.datasets})
    if unsummarised:
        failures.append(
            f"the baseline's items measure dataset(s) {', '.join(map(repr, unsummarised))} "
            "that its summary does not list (an edited file?); gate against the unedited "
            "results.json of a real run"
        )
    for base in before.datasets:
        ids = [i for i in base_ids.get(base.dataset, []) if expected(i)]
        cur = after.get(base.dataset)
        if cur is None or (cur.summary.questions == 0 and ids):
            failures.append(f"dataset {base.dataset!r} is in the baseline but was not run")
            continue
        base_failed = base.index.required_failed if base.index else 0
        if cur.index is None:
            failures.append(f"{cur.dataset}: indexing did not finish")
        elif cur.index.required_failed > base_failed:
            names = ", ".join(f.doc for f in cur.index.failed if f.required)
            failures.append(
                f"{cur.dataset}: {cur.index.required_failed} evidence documents failed to "
                f"index (baseline {base_failed}): {names}"
            )
        # Questions the run was asked for are the engine's (missing items); these are the
        # ones it silently left out of its item set.
        lost = [i.split("/", 1)[1] for i in ids if i not in now and i not in asked]
        if lost:
            failures.append(
                f"{cur.dataset}: {len(lost)} baseline questions were not run: {', '.join(lost)}"
            )
    flipped = []
    for rec in baseline.items:
        old, new = result_of(rec), result_of(now[rec.id]) if rec.id in now else None
        if (
            isinstance(old, QuestionResult)
            and isinstance(new, QuestionResult)
            and _hit5(old.sdk_rank) != _hit5(new.sdk_rank)
        ):
            flipped.append(f"{rec.id} {_rank(old.sdk_rank)} -> {_rank(new.sdk_rank)}")
    if flipped:
        notes.append("sdk first-hit rank of the flipped questions: " + ", ".join(flipped))
    _hard_cases(baseline, current, expected, failures, notes)
    return failures, notes


def _hard_cases(
    baseline: Envelope,
    current: Envelope,
    expected: Any,
    failures: list[str],
    notes: list[str],
) -> None:
    def statuses(env: Envelope) -> dict[str, tuple[str, str]]:
        out = {}
        for rec in env.items:
            if is_hard_case(rec.id) and (status := hard_case_status(rec)) is not None:
                res = result_of(rec)
                finding = getattr(res, "finding", None) or rec.error or ""
                out[rec.id.removeprefix(HARD_PREFIX)] = (status, finding)
        return out

    before, after = statuses(baseline), statuses(current)
    for cid, (status, _) in before.items():
        if not expected(f"{HARD_PREFIX}{cid}"):
            continue
        now, finding = after.get(cid, (None, ""))
        if cid in ANSWER_CASES:
            # Answers never enter the gate: an answers-only case's change is information.
            if now not in (status, "error"):
                notes.append(
                    f"hard case {cid} (answers, not gated): {status} -> {now or 'not run'}"
                )
        elif status == "pass" and now in (None, "skipped"):
            failures.append(f"hard case {cid} passed in the baseline but was not run")
        elif status == "pass" and now == "fail":
            failures.append(f"hard case {cid}: pass -> fail ({finding})")
        elif now is not None and now not in (status, "error"):
            notes.append(f"hard case {cid}: {status} -> {now}")
    for cid, (now, _) in after.items():
        # A crash (`error`) is already a failure: the engine fails every crashed item.
        if now != "error" and cid not in before:
            notes.append(f"hard case {cid} is new: {now}")


def compare_metrics(env: Envelope) -> list[ItemMetric]:
    """For `gaia-eval compare`, per question: the sdk pipeline's hit@5 (the first hit's rank
    moved past 5 is a flip) and reciprocal rank, the agent pipeline's hit, all gated as the
    gate gates recall@5, mrr and recall@returned; sdk latency is reported, not gated."""
    from gaia_eval.core.compare.metrics import collect

    rows = [(rec.id, res) for rec in env.items if isinstance(res := result_of(rec), QuestionResult)]
    return [
        collect("sdk hit@5", "binary", ((i, _hit5(r.sdk_rank), None) for i, r in rows), gated=True),
        collect(
            "sdk rr",
            "continuous",
            ((i, 1 / r.sdk_rank if r.sdk_rank else 0.0, None) for i, r in rows),
            gated=True,
        ),
        collect(
            "agent hit@returned",
            "binary",
            ((i, r.agent_rank is not None, None) for i, r in rows),
            gated=True,
        ),
        collect(
            "sdk latency (s)",
            "continuous",
            ((i, r.sdk_latency_s, None) for i, r in rows),
            higher_is_better=False,
        ),
    ]


GATE = GateRules(
    metrics=tuple(
        MetricRule(f"*/{label}", widen_items=WIDEN_ITEMS) for label, _, _ in GATED_METRICS
    ),
    checks=(CheckRule(HIT_CHECK, must_still_pass=False),),
    default_tolerance=DEFAULT_TOLERANCE,
    read_metrics=metrics,
    read_checks=checks,
    extra=extra,
    comparable=gate_comparable_fields,
    item_metrics=compare_metrics,
)
