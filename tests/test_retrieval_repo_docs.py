"""The committed repo_docs dataset: big enough, real, and every label found verbatim."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gaia_eval.retrieval.dataset import (
    QUOTE_MAX,
    QUOTE_MIN,
    Dataset,
    builtin_dataset_path,
    collapse,
    load_dataset,
)
from gaia_eval.retrieval.evidence import DocumentText, LabelError, resolve_evidence
from gaia_eval.systems.rag.extract import extract


@pytest.fixture(scope="module")
def ds() -> Dataset:
    return load_dataset(builtin_dataset_path("repo_docs"))


@pytest.fixture(scope="module")
def texts(ds: Dataset) -> dict[str, DocumentText]:
    out = {}
    for d in ds.documents:
        got = extract(d.path)
        assert got.status == "ok", (d.id, got.status, got.error)
        out[d.id] = DocumentText(d.id, got.text)
    return out


def test_size_and_shape(ds: Dataset) -> None:
    assert len(ds.questions) >= 40
    assert len(ds.documents) >= 15
    assert len({q.id for q in ds.questions}) == len(ds.questions)
    assert {q.doc for q in ds.questions} == {d.id for d in ds.documents}  # no idle document
    # Files ship inside the package, next to the dataset.
    corpus = builtin_dataset_path("repo_docs").parent / "corpus"
    assert all(d.path.parent == corpus.resolve() for d in ds.documents)
    assert sum(p.stat().st_size for p in corpus.iterdir()) < 3_000_000


def test_every_quote_is_20_to_200_characters(ds: Dataset) -> None:
    quotes = [e.quote for q in ds.questions for e in q.evidence if e.quote is not None]
    assert quotes
    assert all(QUOTE_MIN <= len(collapse(quote)) <= QUOTE_MAX for quote in quotes)


def test_every_label_is_found_verbatim_in_the_extracted_text(
    ds: Dataset, texts: dict[str, DocumentText]
) -> None:
    for q in ds.questions:
        for ev in q.evidence:
            got = resolve_evidence(
                texts[ev.doc], quote=ev.quote, page=ev.page, near=ev.near, question_id=q.id
            )
            if ev.quote is not None:
                assert got.start is not None and got.end is not None
                assert texts[ev.doc].normalized[got.start : got.end] == collapse(ev.quote)
            if ev.page is not None and got.start is not None:
                assert texts[ev.doc].pages_of(got.start, got.end) == (ev.page,)


def test_a_wrong_page_would_stop_the_run(ds: Dataset, texts: dict[str, DocumentText]) -> None:
    q = next(q for q in ds.questions if q.evidence[0].page == 1 and q.evidence[0].quote)
    with pytest.raises(LabelError, match=f"question {q.id}"):
        resolve_evidence(
            texts[q.doc], quote=q.evidence[0].quote, page=2, near=None, question_id=q.id
        )


def test_real_multi_page_pdf_with_page_labels(ds: Dataset, texts: dict[str, DocumentText]) -> None:
    pdfs = [d for d in ds.documents if d.path.suffix == ".pdf"]
    assert pdfs
    pdf = pdfs[0]
    assert texts[pdf.id].paged and len(texts[pdf.id].markers) >= 10
    paged = [q for q in ds.questions if q.doc == pdf.id]
    assert len(paged) >= 8 and all(e.page is not None for q in paged for e in q.evidence)
    assert any(e.quote is None for q in paged for e in q.evidence)  # page-only evidence too


def test_near_hint_picks_a_later_copy_of_a_repeated_quote(
    ds: Dataset, texts: dict[str, DocumentText]
) -> None:
    moved = 0
    for q in ds.questions:
        for ev in q.evidence:
            if ev.near is None or ev.quote is None:
                continue
            text = texts[ev.doc]
            assert text.normalized.count(collapse(ev.quote)) >= 2
            got = resolve_evidence(text, quote=ev.quote, page=ev.page, near=None, question_id=q.id)
            hinted = resolve_evidence(
                text, quote=ev.quote, page=ev.page, near=ev.near, question_id=q.id
            )
            moved += hinted.start != got.start
    assert moved >= 1


def test_kinds_are_covered(ds: Dataset) -> None:
    tags = Counter(t for q in ds.questions for t in q.tags)
    for kind in ("pdf", "text", "markdown", "table", "numeric", "long_doc", "multi_evidence"):
        assert tags[kind] >= 2, kind
    assert any(d.path.stat().st_size >= 50_000 and d.path.suffix != ".pdf" for d in ds.documents)
    assert {q.answer_type for q in ds.questions} == {"numeric", "exact", "judge"}


def test_licenses_file_names_every_document(ds: Dataset) -> None:
    licenses = (builtin_dataset_path("repo_docs").parent / "corpus" / "LICENSES.md").read_text()
    for d in ds.documents:
        assert f"`{Path(d.path).name}`" in licenses, d.path.name


@pytest.mark.parametrize("embedder", ["hash", "onnx:"])
def test_reference_chunks_all_locate_and_every_label_is_hittable(
    ds: Dataset, texts: dict[str, DocumentText], embedder: str
) -> None:
    """The reference RAG chunker against the kernel: no unlocated chunk, and every
    evidence entry overlapped enough by some chunk. With the onnx embedder's 256-token
    limit most windows are cut into pieces, which exercises the split-chunk rule."""
    from gaia_eval.embed import from_spec
    from gaia_eval.retrieval.evidence import check_unlocated, chunk_hits, locate_chunks
    from gaia_eval.systems.rag.chunker import chunk_text

    if embedder.startswith("onnx"):
        pytest.importorskip("onnxruntime")
    emb = from_spec(embedder)
    located = {}
    total = unlocated = pieces = 0
    for d in ds.documents:
        chunking = chunk_text(extract(d.path).text, embedder=emb)
        located[d.id] = locate_chunks(texts[d.id], chunking.chunks, chunking.split)
        total += len(located[d.id])
        unlocated += sum(c is None for c in located[d.id])
        pieces += len(chunking.split)
    assert unlocated == 0
    check_unlocated(total, unlocated)
    assert pieces > 0 if embedder.startswith("onnx") else pieces == 0
    for q in ds.questions:
        for ev in q.evidence:
            got = resolve_evidence(
                texts[ev.doc], quote=ev.quote, page=ev.page, near=ev.near, question_id=q.id
            )
            assert any(chunk_hits(ev.doc, c, got) for c in located[ev.doc]), (q.id, ev)


def test_corpus_files_are_unedited_copies() -> None:
    """Pinned by sha256: a formatter or an editor must never touch the verbatim texts."""
    import hashlib

    corpus = builtin_dataset_path("repo_docs").parent / "corpus"
    pinned = {}
    for line in (corpus / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        pinned[name] = digest
    files = {p.name for p in corpus.iterdir()} - {"LICENSES.md", "SHA256SUMS"}
    assert set(pinned) == files
    for name, digest in pinned.items():
        assert hashlib.sha256((corpus / name).read_bytes()).hexdigest() == digest, name
