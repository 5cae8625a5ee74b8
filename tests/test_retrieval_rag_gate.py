"""Every rule of the RAG retrieval gate (reference-behaviour §2.9)."""

from __future__ import annotations

import pytest
from retrieval_rag_helpers import case, dataset, question, results

from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.retrieval import gate
from gaia_eval.retrieval.models import FailedDocument, QuestionResult, RetrievalResults

CASES = ["replaced_document", "exact_duplicate", "corrupted_cache"]


def _questions(n: int = 48, misses: int = 8) -> list[QuestionResult]:
    return [question(f"q{i:02d}", None if i < misses else 1, 1) for i in range(n)]


def _run(qs: list[QuestionResult] | None = None, **kw: object) -> RetrievalResults:
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
    verdict = gate.compare(base, base, tolerance=0.0)
    assert verdict.passed, verdict.failures
    assert not verdict.flips
    assert {c.metric for c in verdict.checks} == {
        "sdk recall@5",
        "sdk mrr",
        "agent recall@returned",
    }


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [("suite", "full", "suite"), ("embedder", "onnx:x", "embedder"), ("vlm", True, "VLM")],
)
def test_unlike_runs_are_refused(field: str, value: object, needle: str) -> None:
    base = _run()
    cur = _run(**{field: value})
    with pytest.raises(NotComparableError, match=needle):
        gate.compare(base, cur)


def test_a_different_question_set_is_refused() -> None:
    with pytest.raises(NotComparableError, match="question set"):
        gate.compare(_run(digest="one"), _run(digest="two"))


def test_one_question_drop_passes_two_fail_at_n48() -> None:
    base_qs = _questions()
    base = _run(base_qs)
    one = gate.compare(base, _run(_drop(base_qs, ["q40"])))
    assert one.passed, one.failures  # 1/48 = 0.0208 < 1.5/48 = 0.03125
    assert [(f.question, f.now_passes) for f in one.flips] == [("q40", False)]
    two = gate.compare(base, _run(_drop(base_qs, ["q40", "q41"])))
    assert not two.passed
    assert any("sdk recall@5 dropped" in f for f in two.failures)
    assert any("sdk mrr dropped" in f for f in two.failures)
    assert {f.question for f in two.flips} == {"q40", "q41"}


def test_allowed_drop_is_the_larger_of_tolerance_and_one_and_a_half_questions() -> None:
    base_qs = _questions()
    cur = _run(_drop(base_qs, ["q40", "q41"]))
    assert gate.compare(_run(base_qs), cur, tolerance=0.05).passed
    checks = gate.compare(_run(base_qs), cur, tolerance=0.05).checks
    assert all(c.allowed_drop == 0.05 for c in checks)
    assert all(c.allowed_drop == round(1.5 / 48, 4) for c in gate.compare(_run(), _run()).checks)


def test_agent_recall_at_returned_is_gated() -> None:
    base_qs = _questions()
    cur_qs = [q.model_copy(update={"agent_rank": None}) if q.id < "q03" else q for q in base_qs]
    verdict = gate.compare(_run(base_qs), _run(cur_qs))
    assert any("agent recall@returned dropped" in f for f in verdict.failures)


def test_improvements_pass_and_are_listed_as_flips() -> None:
    base_qs = _questions()
    better = [q.model_copy(update={"sdk_rank": 2}) if q.id == "q00" else q for q in base_qs]
    verdict = gate.compare(_run(base_qs), _run(better), tolerance=0.0)
    assert verdict.passed
    assert [(f.question, f.baseline_rank, f.current_rank) for f in verdict.flips] == [
        ("q00", None, 2)
    ]


def test_a_missing_dataset_fails() -> None:
    base = _run()
    cur = results([dataset(_questions(), name="other")], hard_cases=base.hard_cases)
    verdict = gate.compare(base, cur)
    assert any("'toy' is in the baseline but was not run" in f for f in verdict.failures)


def test_more_required_documents_failing_fails() -> None:
    failed = [FailedDocument(doc="d2", required=True, status="failed", error="boom")]
    verdict = gate.compare(_run(), _run(failed=failed))
    assert any("evidence documents failed to index" in f and "d2" in f for f in verdict.failures)
    optional = [FailedDocument(doc="d3", required=False, status="failed")]
    assert gate.compare(_run(), _run(failed=optional)).passed


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
    verdict = gate.compare(base, cur)
    assert verdict.passed is passes
    if needle:
        assert any(needle in line for line in verdict.failures + verdict.notes)


def test_a_new_error_case_fails_even_without_baseline_cases() -> None:
    verdict = gate.compare(_run(hard_cases=None), _run(hard_cases=[case("x", "error", "boom")]))
    assert not verdict.passed


def test_incomplete_runs() -> None:
    with pytest.raises(InvalidInputError, match="did not complete"):
        gate.compare(_run(complete=False), _run())
    cur = _run(complete=False, errors=["RuntimeError: died"])
    verdict = gate.compare(_run(), cur)
    assert any("did not complete: RuntimeError: died" in f for f in verdict.failures)


def test_missing_baseline_questions_fail() -> None:
    base_qs = _questions()
    # Same digest (the dataset did not change) but the run lost questions: it crashed.
    verdict = gate.compare(_run(base_qs), _run(base_qs[:-1]))
    assert any("baseline questions were not run: q47" in f for f in verdict.failures)


def test_negative_tolerance_is_invalid() -> None:
    with pytest.raises(InvalidInputError, match="tolerance"):
        gate.compare(_run(), _run(), tolerance=-0.1)
