"""Set-up of the RAG suite: index a dataset's documents, locate the chunks, resolve labels.

Index build statistics (per-document status and timing, failed documents and whether they
hold evidence, chunks, throughput, resident memory sampled in a thread, sizes) come from
here; the runner records them in the run's setup and queries the resulting `Indexed`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.progress import track
from gaia_eval.retrieval.dataset import Dataset
from gaia_eval.retrieval.evidence import (
    DocumentText,
    EvidenceLabel,
    LabelError,
    LocatedChunks,
    ResolvedEvidence,
    locate_chunks,
    resolve_labels,
)
from gaia_eval.retrieval.models import DocumentStats, FailedDocument, IndexStats
from gaia_eval.retrieval.rss import RssSampler
from gaia_eval.systems.rag.protocol import Retriever

INDEXED_STATUSES = frozenset({"indexed", "cached", "degraded"})
_MB = 2**20


@dataclass
class Indexed:
    """One dataset's index as the queries need it."""

    system: Retriever
    paths: dict[str, Path]
    doc_of_path: dict[str, str]
    texts: dict[str, DocumentText] = field(default_factory=dict)
    located: dict[str, LocatedChunks] = field(default_factory=dict)
    resolved: dict[str, list[ResolvedEvidence] | None] = field(default_factory=dict)


def _folder_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return round(total / _MB, 3)


def _describe(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err) or repr(err)}"[:300]


_SNIFF = 8192


def check_documents_have_text(ds: Dataset, paths: dict[str, Path]) -> None:
    """Every document holds text to retrieve from, before the system under test sees it: a
    file that is empty, only white space, or binary (NUL bytes; PDFs aside) is an input
    error naming every such file, not a document the system "failed" (a dataset of only
    such files read "5/5 measured, R@5 0.000", exit 0)."""
    problems = []
    for ref in ds.documents:
        path = paths[ref.id]
        try:
            with path.open("rb") as fh:
                head = fh.read(_SNIFF)
        except OSError:
            continue  # unreadable: the dataset loader names it
        if path.suffix.lower() == ".pdf":
            continue  # the extractor tells an empty PDF (it has pages and no text)
        if not head.strip() or b"\x00" in head:
            why = "empty" if not head.strip() else "binary: NUL bytes"
            problems.append(
                f"{path}: document {ref.id!r} of dataset {ds.id!r} extracts to no text ({why})"
            )
    if problems:
        n = len(problems)
        msg = "; ".join(problems) + (
            f" ({n} document{'s' if n > 1 else ''}; fix the files or drop them from the dataset)"
        )
        raise InvalidInputError(msg)


def index_dataset(ds: Dataset, idx: Indexed, load_s: float, cache: Path | None) -> IndexStats:
    """Index every document (a crash on one is that document's failure, an outage stops
    the run), then locate every chunk in its document's text; the dataset's statistics."""
    check_documents_have_text(ds, idx.paths)
    required = {ev.doc for q in ds.questions for ev in q.evidence}
    per_doc: list[DocumentStats] = []
    failed: list[FailedDocument] = []
    degraded: list[str] = []
    index_s = 0.0
    before = _vector_counts(idx.system)
    with RssSampler() as rss:
        for ref in track(ds.documents, f"indexing {ds.id}", unit="document"):
            path = idx.paths[ref.id]
            t0 = time.perf_counter()
            try:
                res = idx.system.index(path)
            except (InfrastructureError, KeyboardInterrupt):
                raise  # an outage is never a document failure
            except Exception as err:  # the system under test crashed on this document
                seconds = time.perf_counter() - t0
                error: str | None = _describe(err)
                per_doc.append(
                    DocumentStats(
                        doc=ref.id,
                        status="error",
                        seconds=round(seconds, 4),
                        chunks=0,
                        pages=0,
                        from_cache=False,
                        bytes=path.stat().st_size,
                        error=error,
                    )
                )
                failed.append(
                    FailedDocument(
                        doc=ref.id, required=ref.id in required, status="error", error=error
                    )
                )
                index_s += seconds
                continue
            if res.status == "empty" and path.suffix.lower() != ".pdf":
                # (A PDF of scans is empty only without a vision model: with --no-vlm that
                # is the configuration's failure to read it, measured as a failed document.)
                # Nothing to retrieve from it: every question on it would score 0 as if
                # the system had failed (all documents empty read "5/5 measured, R@5 0").
                msg = (
                    f"{path}: document {ref.id!r} of dataset {ds.id!r} extracts to no text "
                    "(empty, or no readable characters); fix the file or drop it from the "
                    "dataset"
                )
                raise InvalidInputError(msg)
            seconds = time.perf_counter() - t0
            index_s += seconds
            error = res.error[:300] if res.error else None
            per_doc.append(
                DocumentStats(
                    doc=ref.id,
                    status=res.status,
                    seconds=round(seconds, 4),
                    chunks=res.chunks,
                    pages=res.pages,
                    from_cache=res.from_cache,
                    bytes=path.stat().st_size,
                    error=error,
                    notes=[n[:300] for n in res.notes],
                )
            )
            if res.status not in INDEXED_STATUSES:
                failed.append(
                    FailedDocument(
                        doc=ref.id, required=ref.id in required, status=res.status, error=error
                    )
                )
            elif res.status == "degraded":
                degraded.append(ref.id)

    after = _vector_counts(idx.system)
    from_cache = computed = None
    if before is not None and after is not None:
        from_cache, computed = after[0] - before[0], after[1] - before[1]
    total_chunks = unlocated = text_bytes = 0
    failed_ids = {f.doc for f in failed}
    for ref in track(ds.documents, f"locating chunks of {ds.id}", unit="document"):
        if ref.id in failed_ids:
            continue
        path = idx.paths[ref.id]
        text = DocumentText(ref.id, idx.system.extracted_text(path))
        chunks = idx.system.chunks(path)
        located = locate_chunks(text, chunks, set(idx.system.split_chunks(path)))
        idx.texts[ref.id] = text
        idx.located[ref.id] = located
        total_chunks += len(chunks)
        unlocated += located.unlocated
        text_bytes += sum(len(c.encode("utf-8")) for c in chunks)

    dim = _embedding_dim(idx.system)
    indexed = len(ds.documents) - len(failed)
    return IndexStats(
        documents=len(ds.documents),
        indexed=indexed,
        failed=failed,
        required_failed=sum(1 for f in failed if f.required),
        degraded=degraded,
        chunks=total_chunks,
        embedding_dim=dim,
        embedder_load_s=round(load_s, 3),
        index_s=round(index_s, 3),
        docs_per_s=round(indexed / index_s, 3) if index_s > 0 else 0.0,
        chunks_per_s=round(total_chunks / index_s, 1) if index_s > 0 else 0.0,
        rss_start_mb=round(rss.start_mb, 1),
        rss_peak_mb=round(rss.peak_mb, 1),
        rss_end_mb=round(rss.end_mb, 1),
        rss_growth_mb=round(rss.peak_mb - rss.start_mb, 1),
        vectors_mb=round(total_chunks * dim * 4 / _MB, 3) if dim else None,
        chunk_text_mb=round(text_bytes / _MB, 3),
        cache_on_disk_mb=_folder_mb(cache) if cache is not None else None,
        unlocated_chunks=unlocated,
        vectors_from_cache=from_cache,
        vectors_computed=computed,
        per_document=per_doc,
    )


def _vector_counts(system: Retriever) -> tuple[int, int] | None:
    """(chunk vectors from the embedding cache, computed) so far, from the system's
    stats(); None when it does not count them (an uncached embedder, a plug-in)."""
    stats = getattr(system, "stats", None)
    if not callable(stats):
        return None
    values = stats()
    hits, computed = values.get("vectors_from_cache"), values.get("vectors_computed")
    if isinstance(hits, int) and isinstance(computed, int):
        return hits, computed
    return None


def _embedding_dim(system: Retriever) -> int | None:
    # Not part of the protocol: the reference system reports it in stats(); others may
    # put it in info().extra.
    stats = getattr(system, "stats", None)
    if callable(stats):
        value = stats().get("embedding_dim")
        if isinstance(value, int):
            return value
    value = system.info().extra.get("embedding_dim")
    return value if isinstance(value, int) else None


def resolve(ds: Dataset, idx: Indexed) -> dict[str, list[ResolvedEvidence] | None]:
    """Every question's evidence, resolved before the first query so a wrong label stops
    the run at once. All labels in one call: the quotes of one document share a pass over
    its text. None: an evidence document did not index (scored as a miss)."""
    resolved: dict[str, list[ResolvedEvidence] | None] = {}
    labels: list[EvidenceLabel] = []
    for q in ds.questions:
        if any(ev.doc not in idx.texts for ev in q.evidence):
            resolved[q.id] = None
            continue
        labels.extend(EvidenceLabel(q.id, ev.doc, ev.quote, ev.page, ev.near) for ev in q.evidence)
    try:
        found = resolve_labels(idx.texts, labels)
    except LabelError:
        raise _label_problems(ds, idx) from None
    by_question: dict[str, list[ResolvedEvidence]] = defaultdict(list)
    for label, ev_resolved in zip(labels, found, strict=True):
        by_question[label.question_id].append(ev_resolved)
    resolved.update(by_question)
    return resolved


def _label_problems(ds: Dataset, idx: Indexed) -> LabelError:
    """Every evidence entry that is not in its extracted document (a PDF's, known only
    once extracted), each with the dataset file, its field path and the question."""
    problems: list[str] = []
    for i, q in enumerate(ds.questions):
        for j, ev in enumerate(q.evidence):
            if ev.doc not in idx.texts:
                continue
            label = EvidenceLabel(q.id, ev.doc, ev.quote, ev.page, ev.near)
            try:
                resolve_labels(idx.texts, [label])
            except LabelError as err:
                problems.append(f"questions[{i}].evidence[{j}]: {err}")
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    lines = "".join(f"\n  {p}" for p in problems[:20])
    more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
    return LabelError(f"{ds.source}: evidence not in its document ({count}):{lines}{more}")
