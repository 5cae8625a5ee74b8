"""The hard cases can fail: user retrievers with known defects are caught by them."""

from __future__ import annotations

from pathlib import Path

from retrieval_rag_data import text_pdf, write_dataset

from gaia_eval.cli.main import main
from gaia_eval.retrieval.models import HardCase
from gaia_eval.retrieval.runner import load_results

PDF_LINES = [
    ["Drilling manual", "Section 1. Casing must be cemented before any test."],
    ["Section 2. Flare stacks stand at least 50 metres from the wellhead."],
]


def _cases(tmp_path: Path, factory: str) -> dict[str, HardCase]:
    data = tmp_path / "data"
    ds = write_dataset(data, extra_docs={"manual": "docs/manual.pdf"})
    (data / "docs" / "manual.pdf").write_bytes(text_pdf(PDF_LINES))
    out = tmp_path / "out"
    args = ["retrieval", "--component", "rag", "--dataset", str(ds), "--out", str(out)]
    assert main([*args, "--system", f"retrieval_rag_toy_system:{factory}"]) == 0
    results = load_results(out / "results.json")
    index = results.datasets[0].index
    assert index is not None
    if factory != "make_pdf_blind":
        # The toy system reads text only: the PDF fails, but holds no evidence.
        failed = [(f.doc, f.required, f.status) for f in index.failed]
        assert failed == [("manual", False, "failed")]
    return {c.id: c for c in results.hard_cases or []}


def test_a_sound_retriever_passes_the_cases_it_can_run(tmp_path: Path) -> None:
    cases = _cases(tmp_path, "make")
    assert cases["replaced_document"].status == "pass"
    assert cases["replaced_document"].details["new_text_served"] is True
    assert cases["corrupted_pdf"].status == "pass"  # failed, with an error
    assert cases["scanned_pdf"].status == "pass"
    assert cases["scanned_pdf"].details["pages"] == 2
    assert cases["scanned_pdf"].details["status"] == "failed"
    assert not any(c.status == "error" for c in cases.values())


def test_a_stale_retriever_fails_replaced_document(tmp_path: Path) -> None:
    case = _cases(tmp_path, "make_stale")["replaced_document"]
    assert case.status == "fail"
    assert case.details["reindex_already_indexed"] is True
    assert case.details["old_text_served_after"] is True
    assert "still serves the old text" in case.finding


def test_a_retriever_that_indexes_unreadable_pdfs_fails_both_pdf_cases(tmp_path: Path) -> None:
    cases = _cases(tmp_path, "make_pdf_blind")
    assert cases["scanned_pdf"].status == "fail"
    assert cases["corrupted_pdf"].status == "fail"
    assert "silently partial" in cases["corrupted_pdf"].finding
