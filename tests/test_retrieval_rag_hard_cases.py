"""The hard cases can fail: user retrievers with known defects are caught by them."""

from __future__ import annotations

from pathlib import Path

from retrieval_rag_data import QUESTIONS, text_pdf, write_dataset

from gaia_eval.cli.main import main
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.suite import legacy_converters
from gaia_eval.retrieval.models import HardCase, RagSetup
from gaia_eval.retrieval.summary import questions, result_of

PDF_LINES = [
    ["Drilling manual", "Section 1. Casing must be cemented before any test."],
    ["Section 2. Flare stacks stand at least 50 metres from the wellhead."],
]


RAG = ["retrieval", "--component", "rag", "--hard-cases"]


def _load(out: Path) -> Envelope:
    return load_envelope(out / "results.json", suite="retrieval-rag", legacy=legacy_converters())


def _hard(env: Envelope) -> dict[str, HardCase]:
    return {
        r.id.removeprefix("hard/"): res
        for r in env.items
        if isinstance(res := result_of(r), HardCase)
    }


def _cases(tmp_path: Path, factory: str, code: int = 0) -> dict[str, HardCase]:
    data = tmp_path / "data"
    ds = write_dataset(data, extra_docs={"manual": "docs/manual.pdf"})
    (data / "docs" / "manual.pdf").write_bytes(text_pdf(PDF_LINES))
    out = tmp_path / "out"
    args = [*RAG, "--dataset", str(ds), "--out", str(out)]
    assert main([*args, "--system", f"retrieval_rag_toy_system:{factory}"]) == code
    env = _load(out)
    index = RagSetup.model_validate(env.setup).index("toy")
    assert index is not None
    if factory != "make_pdf_blind":
        # The toy system reads text only: the PDF fails, but holds no evidence.
        failed = [(f.doc, f.required, f.status) for f in index.failed]
        assert failed == [("manual", False, "failed")]
    return _hard(env)


def test_a_sound_retriever_passes_the_cases_it_can_run(tmp_path: Path) -> None:
    cases = _cases(tmp_path, "make")
    assert cases["replaced_document"].status == "pass"
    assert cases["replaced_document"].details["new_text_served"] is True
    assert cases["corrupted_pdf"].status == "pass"  # failed, with an error
    assert cases["corrupted_pdf"].finding.startswith("refused as expected")
    assert cases["scanned_pdf"].status == "pass"
    assert cases["scanned_pdf"].details["pages"] == 2
    assert cases["scanned_pdf"].details["status"] == "failed"
    assert cases["scanned_pdf"].finding.startswith("refused as expected")
    assert len(cases) == 6  # none crashed


def test_a_crashing_hard_case_fails_the_run(tmp_path: Path) -> None:
    cases = _cases(tmp_path, "make_fragile", code=1)
    assert "replaced_document" not in cases  # it crashed: no result, an item error
    env = _load(tmp_path / "out")
    rec = env.records()["hard/replaced_document"]
    assert rec.status == "error"
    assert rec.error == "RuntimeError: toy index cannot replace a document"
    assert env.header.item_errors == 1
    assert len(cases) == 5  # the other cases still ran
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| replaced_document | **crashed** |" in report


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


def test_the_reference_system_passes_all_six_pr_cases(tmp_path: Path) -> None:
    """The reference system, hash embedder, a dataset with a two-page PDF and a page label."""
    pdf_question = {
        "id": "toy-006",
        "doc": "manual",
        "question": "How far must flare stacks stand from the wellhead?",
        "answer": "50 metres",
        "answer_type": "numeric",
        "evidence": [
            {"quote": "Flare stacks stand at least 50 metres from the wellhead", "page": 2}
        ],
        "tags": ["pdf"],
    }
    data = tmp_path / "data"
    ds = write_dataset(
        data, questions=[*QUESTIONS, pdf_question], extra_docs={"manual": "docs/manual.pdf"}
    )
    (data / "docs" / "manual.pdf").write_bytes(text_pdf(PDF_LINES))
    out = tmp_path / "out"
    args = [*RAG, "--dataset", str(ds), "--embedder", "hash"]
    assert main([*args, "--out", str(out)]) == 0
    env = _load(out)
    assert env.header.system == "reference"
    assert env.header.embedder == "hash"
    index = RagSetup.model_validate(env.setup).index("toy")
    assert index is not None
    assert index.failed == []
    assert index.cache_on_disk_mb is not None and index.cache_on_disk_mb > 0
    assert index.embedding_dim == 384
    pdf = next(p for p in index.per_document if p.doc == "manual")
    assert pdf.pages == 2
    assert next(q for q in questions(env)["toy"] if q.id == "toy-006").sdk_rank is not None
    cases = _hard(env)
    assert {cid: c.status for cid, c in cases.items()} == {
        "replaced_document": "pass",
        "exact_duplicate": "pass",
        "corrupted_cache": "pass",
        "corrupted_pdf": "pass",
        "capacity_eviction": "pass",
        "scanned_pdf": "pass",
    }
    variants = cases["corrupted_cache"].details["variants"]
    assert set(variants) == {"truncated", "tampered", "unsigned", "garbage"}
    assert all(not v["from_cache"] and not v["canary_served"] for v in variants.values())
    assert cases["capacity_eviction"].details["last_result_evicted"]
    # Findings name files relative to the run's work folder, so reruns compare cleanly.
    assert "<work>/scanned_pdf/scanned-manual.pdf" in cases["scanned_pdf"].finding
    assert "gaia-eval-run-" not in (out / "results.json").read_text()
