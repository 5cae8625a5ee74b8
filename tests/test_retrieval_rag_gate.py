"""Every rule of the RAG retrieval gate (docs/retrieval-rag.md), on the gate engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from retrieval_rag_helpers import case, dataset, question, results

from gaia_eval.core import gate as engine
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.results import Envelope, Verdict, load_envelope
from gaia_eval.core.runloop import Shard
from gaia_eval.core.suite import legacy_converters
from gaia_eval.retrieval.models import FailedDocument, HardCase, QuestionResult
from gaia_eval.retrieval.suite import RagSuite

CASES = ["replaced_document", "exact_duplicate", "corrupted_cache"]
BASELINE = Path(__file__).parents[1] / "gaia_eval" / "baselines" / "retrieval" / "pr.json"


def compare(base: Envelope, cur: Envelope, tolerance: float | None = None) -> Verdict:
    return engine.compare(RagSuite, base, cur, tolerance=tolerance)


def _questions(n: int = 48, misses: int = 8) -> list[QuestionResult]:
    return [question(f"q{i:02d}", None if i < misses else 1, 1) for i in range(n)]


def _run(qs: list[QuestionResult] | None = None, **kw: object) -> Envelope:
    hard = kw.pop("hard_cases", [case(c, "pass") for c in CASES])
    ds_kw = {k: kw.pop(k) for k in ("digest", "failed") if k in kw}
    return results([dataset(qs or _questions(), **ds_kw)], hard_cases=hard, **kw)  # type: ignore[arg-type]


def _drop(qs: list[QuestionResult], ids: list[str]) -> list[QuestionResult]:
    return [
        q.model_copy(update={"sdk_rank": None, "sdk_doc_rank": None}) if q.id in ids else q
        for q in qs
    ]


def test_baseline_against_itself_passes_at_tolerance_zero() -> None:
    base = _run()
    verdict = compare(base, base, tolerance=0.0)
    assert verdict.passed, verdict.failures
    assert not verdict.flips
    assert {m.name for m in verdict.metrics} == {
        "toy/sdk recall@5",
        "toy/sdk mrr",
        "toy/agent recall@returned",
    }


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [("suite", "full", "suite"), ("embedder", "onnx:x", "embedder"), ("vlm", True, "VLM")],
)
def test_unlike_runs_are_refused(field: str, value: object, needle: str) -> None:
    base = _run()
    cur = _run(**{field: value})
    with pytest.raises(NotComparableError, match=needle):
        compare(base, cur)


def test_a_different_question_set_is_refused() -> None:
    with pytest.raises(NotComparableError, match="question set"):
        compare(_run(digest="one"), _run(digest="two"))


def test_one_question_drop_passes_two_fail_at_n48() -> None:
    base_qs = _questions()
    base = _run(base_qs)
    one = compare(base, _run(_drop(base_qs, ["q40"])))
    assert one.passed, one.failures  # 1/48 = 0.0208 < 1.5/48 = 0.03125
    assert [(f.item, f.after) for f in one.flips] == [("toy/q40", False)]
    two = compare(base, _run(_drop(base_qs, ["q40", "q41"])))
    assert not two.passed
    assert any("sdk recall@5 dropped" in f for f in two.failures)
    assert any("sdk mrr dropped" in f for f in two.failures)
    assert {f.item for f in two.flips} == {"toy/q40", "toy/q41"}
    # The rule with its numbers, as the report shows it.
    assert {m.rule for m in two.metrics} == {"max(0.02, 1.5/48) = 0.0312"}


def test_allowed_drop_is_the_larger_of_tolerance_and_one_and_a_half_questions() -> None:
    base_qs = _questions()
    cur = _run(_drop(base_qs, ["q40", "q41"]))
    assert compare(_run(base_qs), cur, tolerance=0.05).passed
    checks = compare(_run(base_qs), cur, tolerance=0.05).metrics
    assert all(c.allowed == 0.05 for c in checks)
    assert all(round(c.allowed, 4) == round(1.5 / 48, 4) for c in compare(_run(), _run()).metrics)


def test_agent_recall_at_returned_is_gated() -> None:
    base_qs = _questions()
    cur_qs = [q.model_copy(update={"agent_rank": None}) if q.id < "q03" else q for q in base_qs]
    verdict = compare(_run(base_qs), _run(cur_qs))
    assert any("agent recall@returned dropped" in f for f in verdict.failures)


def test_improvements_pass_and_are_listed_as_flips() -> None:
    base_qs = _questions()
    better = [q.model_copy(update={"sdk_rank": 2}) if q.id == "q00" else q for q in base_qs]
    verdict = compare(_run(base_qs), _run(better), tolerance=0.0)
    assert verdict.passed
    assert [(f.item, f.before, f.after, f.gated) for f in verdict.flips] == [
        ("toy/q00", False, True, False)
    ]
    # the first-hit ranks behind the flip: miss -> 2
    assert any("toy/q00 miss -> 2" in n for n in verdict.notes)


def test_a_missing_dataset_fails() -> None:
    base = _run()
    # The same suite definition (the toy question set), but no toy question ran.
    cur = results([dataset([], name="toy")], hard_cases=base_cases(base))
    verdict = compare(base, cur)
    assert any("'toy' is in the baseline but was not run" in f for f in verdict.failures)
    # Another dataset in its place is another suite definition: refused, not gated.
    other = results([dataset(_questions(), name="other")], hard_cases=base_cases(base))
    with pytest.raises(NotComparableError, match="question set of dataset"):
        compare(base, other)


def base_cases(env: Envelope) -> list[HardCase]:
    return [HardCase.model_validate(r.result) for r in env.items if r.id.startswith("hard/")]


def test_more_required_documents_failing_fails() -> None:
    failed = [FailedDocument(doc="d2", required=True, status="failed", error="boom")]
    verdict = compare(_run(), _run(failed=failed))
    assert any("evidence documents failed to index" in f and "d2" in f for f in verdict.failures)
    optional = [FailedDocument(doc="d3", required=False, status="failed")]
    assert compare(_run(), _run(failed=optional)).passed


@pytest.mark.parametrize(
    ("before", "after", "passes", "needle"),
    [
        ("pass", None, False, "was not run"),
        ("pass", "skipped", False, "was not run"),
        ("pass", "fail", False, "pass -> fail"),
        ("fail", "error", False, "crashed"),
        ("measured", "error", False, "crashed"),
        ("fail", "pass", True, "fail -> pass"),
        ("skipped", "measured", True, "skipped -> measured"),
        ("fail", "fail", True, None),
    ],
)
def test_hard_case_rules(before: str, after: str | None, passes: bool, needle: str | None) -> None:
    base = _run(hard_cases=[case("scanned_pdf", before)])
    cur = _run(hard_cases=[] if after is None else [case("scanned_pdf", after)])
    verdict = compare(base, cur)
    assert verdict.passed is passes
    if needle:
        assert any(needle in line for line in verdict.failures + verdict.notes)


@pytest.mark.parametrize("after", [None, "fail", "skipped"])
def test_answers_only_hard_cases_are_reported_never_gated(after: str | None) -> None:
    base = _run(hard_cases=[case("prompt_injection", "pass")])
    cur = _run(hard_cases=[] if after is None else [case("prompt_injection", after)])
    verdict = compare(base, cur)
    assert verdict.passed, verdict.failures
    assert any("prompt_injection (answers, not gated): pass ->" in n for n in verdict.notes)


def test_a_new_error_case_fails_even_without_baseline_cases() -> None:
    verdict = compare(_run(hard_cases=None), _run(hard_cases=[case("x", "error", "boom")]))
    assert not verdict.passed


def test_incomplete_runs() -> None:
    with pytest.raises(InvalidInputError, match="did not complete"):
        compare(_run(complete=False), _run())
    cur = _run(complete=False, errors=["RuntimeError: died"])
    verdict = compare(_run(), cur)
    assert any("did not complete: RuntimeError: died" in f for f in verdict.failures)


def test_missing_baseline_questions_fail() -> None:
    base_qs = _questions()
    # Same digest (the dataset did not change) but the run lost questions: it crashed.
    verdict = compare(_run(base_qs), _run(base_qs[:-1]))
    assert any("baseline questions were not run: q47" in f for f in verdict.failures)
    # Asked for but not measured (an interrupted run): the engine's missing items.
    asked = _run(base_qs[:-1], item_ids=_run(base_qs).header.item_ids)
    verdict = compare(_run(base_qs), asked)
    assert verdict.missing_items == ["toy/q47"] and not verdict.passed


@pytest.mark.parametrize("bad", [-0.1, float("nan"), float("inf")])
def test_negative_or_non_finite_tolerance_is_invalid(bad: float) -> None:
    with pytest.raises(InvalidInputError, match="tolerance"):
        compare(_run(), _run(), tolerance=bad)


def test_a_shard_is_gated_on_its_own_part() -> None:
    base = _run()
    part = Shard(1, 2)
    ids = [i for i in base.header.item_ids if part.holds(i)]
    qs = [q for q in _questions() if part.holds(f"toy/{q.id}")]
    cases = [case(c, "pass") for c in CASES if part.holds(f"hard/{c}")]
    shard = _run(qs, hard_cases=cases, item_ids=ids, shard="1/2")
    verdict = compare(base, shard)
    # (the metrics move: the shard holds other questions; the item rules must not fail)
    assert not verdict.missing_items
    assert not [f for f in verdict.failures if "not run" in f], verdict.failures


def test_the_committed_baseline_loads_and_gates_with_its_numbers() -> None:
    env = load_envelope(BASELINE, suite="retrieval-rag", legacy=legacy_converters())
    raw = json.loads(BASELINE.read_text())
    (ds,) = raw["datasets"]
    metrics = RagSuite.gate.read_metrics(env)
    assert metrics["repo_docs/sdk recall@5"].value == ds["summary"]["sdk"]["recall@5"]
    assert metrics["repo_docs/sdk mrr"].value == ds["summary"]["sdk"]["mrr"]
    assert (
        metrics["repo_docs/agent recall@returned"].value
        == ds["summary"]["agent"]["recall@returned"]
    )
    assert metrics["repo_docs/sdk recall@5"].n == len(ds["questions"]) == 55
    # The summary carried over equals the one the suite computes from the items.
    assert RagSuite.summarise(env).model_dump(mode="json", by_alias=True) == env.summary
    assert env.header.complete and env.header.tier == "pr"
    assert env.header.settings["questions_digest"] == {"repo_docs": ds["questions_digest"]}
    assert len(env.items) == 55 + 6
    verdict = compare(env, env, tolerance=0.0)
    assert verdict.passed and len(verdict.metrics) == 3


def test_a_baseline_that_measured_nothing_is_refused(tmp_path: Path) -> None:
    raw = json.loads(BASELINE.read_text())
    raw["datasets"], raw["hard_cases"] = [], None
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(raw))
    with pytest.raises(InvalidInputError, match=r"empty\.json: .*measured nothing"):
        load_envelope(empty, suite="retrieval-rag", legacy=legacy_converters())
    # An envelope without a measured item is refused by the engine.
    nothing = _run()
    nothing.items = []
    with pytest.raises(InvalidInputError, match="measured nothing"):
        compare(nothing, _run())
