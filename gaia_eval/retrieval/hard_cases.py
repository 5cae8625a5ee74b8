"""The six PR hard cases (docs/retrieval-rag.md), run against fresh system instances.

Each case returns a `HardCase` with status pass, fail, measured or skipped (always with
the reason); a case that raises is an item error of the run, which fails it. Cases work
on copies in their own work folder and never touch the dataset's files. Two cases need
the reference system's internals (its chunk cache files, its capacity setting); for a
`--system` retriever they are skipped and say so.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InfrastructureError
from gaia_eval.core.extras import install_hint
from gaia_eval.retrieval.dataset import Dataset, Question
from gaia_eval.retrieval.evidence import DocumentText, chunk_hits, locate_chunks, resolve_evidence
from gaia_eval.retrieval.models import DENSE_DEPTH, HardCase, HardCaseStatus
from gaia_eval.retrieval.systems import CAPACITY_SETTINGS, SystemMaker
from gaia_eval.systems.rag.protocol import IndexResult, Retriever, SearchHit

REPLACED_TOKEN = "ZQX-4471-REPLACED"
CANARY = "TAMPERED-CANARY-9K2"
DUPLICATE_SHARE_LIMIT = 0.2
SCAN_DPI = 150


@dataclass(frozen=True)
class Context:
    """What the cases draw on: the main run's dataset, its files and extracted texts."""

    dataset: Dataset
    paths: dict[str, Path]
    texts: dict[str, DocumentText]
    maker: SystemMaker
    work: Path


def _norm(text: str) -> str:
    return " ".join(text.split())


def pick_questions(ctx: Context, n: int) -> list[Question]:
    """Questions a text edit can target: exact or numeric, one .txt/.md document, an answer
    of at least 5 characters occurring exactly once in the text; one per document."""
    picked: list[Question] = []
    docs: set[str] = set()
    # Smallest documents first (then dataset order): the cases re-index them several
    # times, and the suite must stay fast; the order is still deterministic.
    order = sorted(
        range(len(ctx.dataset.questions)),
        key=lambda i: (_size(ctx.paths.get(ctx.dataset.questions[i].doc)), i),
    )
    for q in (ctx.dataset.questions[i] for i in order):
        if len(picked) == n:
            break
        path = ctx.paths.get(q.doc)
        text = ctx.texts.get(q.doc)
        answer = _norm(q.answer)
        if (
            q.answer_type in ("exact", "numeric")
            and {ev.doc for ev in q.evidence} == {q.doc}
            and len(answer) >= 5
            and path is not None
            and path.suffix.lower() in (".txt", ".md")
            and text is not None
            and text.normalized.count(answer) == 1
            and q.doc not in docs
            # The edit cases rewrite the raw file, so the answer must be there once too.
            and len(_answer_pattern(answer).findall(_raw_text(path))) == 1
        ):
            picked.append(q)
            docs.add(q.doc)
    return picked


def _size(path: Path | None) -> int:
    try:
        return path.stat().st_size if path is not None else 1 << 62
    except OSError:
        return 1 << 62


def _raw_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""  # not editable as UTF-8 text: never picked


def _answer_pattern(answer: str) -> re.Pattern[str]:
    # The raw file may break the answer across lines; match any whitespace run between words.
    return re.compile(r"\s+".join(re.escape(w) for w in answer.split()))


def _case(
    cid: str,
    title: str,
    status: HardCaseStatus,
    finding: str,
    details: dict[str, Any] | None = None,
) -> HardCase:
    return HardCase(id=cid, title=title, status=status, finding=finding, details=details or {})


def _from(hits: list[SearchHit], path: Path) -> list[SearchHit]:
    return [h for h in hits if h.path in (str(path), str(path.resolve()))]


def _rank_of(system: Retriever, path: Path, doc: str, q: Question) -> int | None:
    """First-hit rank of `q` in the sdk top 20 of `system`, scored with the evidence kernel."""
    text = DocumentText(doc, system.extracted_text(path))
    located = locate_chunks(text, system.chunks(path), set(system.split_chunks(path)))
    evidence = [
        resolve_evidence(text, quote=ev.quote, page=ev.page, near=ev.near, question_id=q.id)
        for ev in q.evidence
    ]
    for rank, hit in enumerate(_from(system.search(q.question, DENSE_DEPTH), path), start=1):
        if 0 <= hit.chunk_index < len(located) and any(
            chunk_hits(doc, located[hit.chunk_index], ev) for ev in evidence
        ):
            return rank
    return None


def replaced_document(ctx: Context) -> HardCase:
    cid, title = "replaced_document", "Document replaced after indexing"
    picks = pick_questions(ctx, 1)
    if not picks:
        return _case(cid, title, "skipped", "no question fits (exact/numeric, .txt/.md, unique)")
    q = picks[0]
    folder = ctx.work / cid
    copy = folder / "docs" / ctx.paths[q.doc].name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ctx.paths[q.doc], copy)
    answer = _norm(q.answer)

    def served(system: Retriever) -> tuple[bool, bool]:
        texts = [_norm(h.text) for h in _from(system.search(q.question, DENSE_DEPTH), copy)]
        return any(REPLACED_TOKEN in t for t in texts), any(answer in t for t in texts)

    system = ctx.maker.make(folder / "cache")
    try:
        first = system.index(copy)
        _, old_before = served(system)
        raw = copy.read_text(encoding="utf-8")
        copy.write_text(_answer_pattern(answer).sub(REPLACED_TOKEN, raw, count=1), encoding="utf-8")
        second = system.index(copy)
        new_after, old_after = served(system)
        in_chunks = any(REPLACED_TOKEN in c for c in system.chunks(copy))
    finally:
        system.close()
    session = ctx.maker.make(folder / "cache")
    try:
        third = session.index(copy)
        new_session, old_session = served(session)
    finally:
        session.close()
    details = {
        "question": q.id,
        "old_answer_served_before": old_before,
        "reindex_status": second.status,
        "reindex_already_indexed": second.already_indexed,
        "new_text_in_chunks": in_chunks,
        "new_text_served": new_after,
        "old_text_served_after": old_after,
        "new_session_status": third.status,
        "new_session_serves_new_text": new_session and not old_session,
        "first_status": first.status,
    }
    if new_after and not old_after:
        return _case(
            cid, title, "pass", "re-indexing the changed path serves the new text", details
        )
    what = "still serves the old text" if old_after else "does not serve the new text"
    extra = " (it reported already_indexed)" if second.already_indexed else ""
    return _case(cid, title, "fail", f"re-indexing the changed path {what}{extra}", details)


def exact_duplicate(ctx: Context) -> HardCase:
    cid, title = "exact_duplicate", "Identical copy under another name"
    picks = pick_questions(ctx, 3)
    if not picks:
        return _case(cid, title, "skipped", "no question fits (exact/numeric, .txt/.md, unique)")
    folder = ctx.work / cid
    files = []
    for q in picks:
        src = ctx.paths[q.doc]
        original = folder / "docs" / src.name
        duplicate = folder / "docs" / f"copy-of-{src.name}"
        original.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, original)
        shutil.copyfile(src, duplicate)
        files += [original, duplicate]
    system = ctx.maker.make(folder / "cache")
    shares: dict[str, float] = {}
    try:
        for f in files:
            system.index(f)
        per_pipeline: dict[str, list[int]] = {"sdk": [0, 0], "agent": [0, 0]}
        for q in picks:
            for name, hits in (
                ("sdk", system.search(q.question, DENSE_DEPTH)[:5]),
                ("agent", system.agent_search(q.question)[:5]),
            ):
                seen: dict[str, str] = {}
                for h in hits:
                    key = _norm(h.text)
                    # A slot is a duplicate when the same text from another file ranked higher.
                    if key in seen and seen[key] != h.path:
                        per_pipeline[name][0] += 1
                    seen.setdefault(key, h.path)
                    per_pipeline[name][1] += 1
        for name, (dup, total) in per_pipeline.items():
            shares[name] = round(dup / total, 4) if total else 0.0
    finally:
        system.close()
    details: dict[str, Any] = {
        "questions": [q.id for q in picks],
        "duplicate_share_top5": shares,
        "limit": DUPLICATE_SHARE_LIMIT,
    }
    worst = max(shares.values())
    status: HardCaseStatus = "pass" if worst <= DUPLICATE_SHARE_LIMIT else "fail"
    finding = (
        f"duplicates take {shares['sdk']:.0%} (sdk) and {shares['agent']:.0%} (agent) of the "
        f"top-5 slots; limit {DUPLICATE_SHARE_LIMIT:.0%}"
    )
    return _case(cid, title, status, finding, details)


def _first_pdf(ctx: Context) -> Path | None:
    for ref in ctx.dataset.documents:
        path = ctx.paths.get(ref.id)
        if path is not None and path.suffix.lower() == ".pdf":
            return path
    return None


def _index_quietly(system: Retriever, path: Path) -> tuple[IndexResult | None, str | None]:
    try:
        return system.index(path), None
    except (KeyboardInterrupt, InfrastructureError):
        raise  # an outage or a stop is never the system refusing the file
    except Exception as err:
        return None, f"{type(err).__name__}: {err}"[:300]


def scanned_pdf(ctx: Context) -> HardCase:
    cid, title = "scanned_pdf", "Scanned (image-only) PDF"
    pdf = _first_pdf(ctx)
    if pdf is None:
        return _case(cid, title, "skipped", "the dataset has no PDF to rasterize")
    try:
        from gaia_eval.retrieval.pdfimage import image_only_pdf, render_pages
    except ImportError as err:  # pragma: no cover - numpy is a core dependency
        return _case(cid, title, "skipped", f"cannot rasterize: {err}")
    try:
        pages = render_pages(pdf, dpi=SCAN_DPI)
    except ImportError:
        return _case(
            cid,
            title,
            "skipped",
            f"rasterizing needs pypdfium2: {install_hint('pdf')}",
        )
    folder = ctx.work / cid
    scan = folder / f"scanned-{pdf.name}"
    scan.parent.mkdir(parents=True, exist_ok=True)
    scan.write_bytes(image_only_pdf(pages, dpi=SCAN_DPI))
    system = ctx.maker.make(folder / "cache")
    try:
        vlm = system.info().vlm
        result, raised = _index_quietly(system, scan)
        recall = _scan_recall(ctx, system, pdf, scan) if vlm is not None and result else None
    finally:
        system.close()
    details: dict[str, Any] = {
        "source": pdf.name,
        "pages": len(pages),
        "dpi": SCAN_DPI,
        "status": result.status if result else "raised",
        "chunks": result.chunks if result else 0,
        "error": (result.error if result else raised),
    }
    if vlm is not None:
        if recall is None or result is None or result.chunks == 0:
            finding = f"VLM on, but the scan was not indexed (status {details['status']})"
            return _case(cid, title, "fail", finding, details)
        details |= recall
        hit, n = recall["hits@5"], recall["questions"]
        read = f"read by the VLM ({result.chunks} chunks)"
        if n:
            finding = f"{read}; page-level recall@5 on the scan {hit}/{n}"
        else:
            finding = f"{read}; no page-labelled question on it"
        return _case(cid, title, "measured", finding, details)
    refused = (result is None and raised) or (
        result is not None and result.status in ("empty", "failed") and result.error
    )
    if refused and (result is None or result.chunks == 0):
        return _case(
            cid,
            title,
            "pass",
            f"refused as expected (no VLM): {details['error']}",
            details,
        )
    return _case(
        cid,
        title,
        "fail",
        f"an image-only PDF without a VLM was not refused with an error "
        f"(status {details['status']}, {details['chunks']} chunks)",
        details,
    )


def _scan_recall(ctx: Context, system: Retriever, pdf: Path, scan: Path) -> dict[str, Any]:
    """Page-level recall@5 of the source PDF's page-labelled questions on the scan alone."""
    doc = next((d for d, p in ctx.paths.items() if p == pdf), None)
    asked = [
        q
        for q in ctx.dataset.questions
        if q.doc == doc and all(e.doc == doc and e.page for e in q.evidence)
    ]
    text = DocumentText(str(doc), system.extracted_text(scan))
    located = locate_chunks(text, system.chunks(scan), set(system.split_chunks(scan)))
    hits = 0
    for q in asked:
        pages = {e.page for e in q.evidence}
        for h in _from(system.search(q.question, 5), scan):
            loc = located[h.chunk_index] if 0 <= h.chunk_index < len(located) else None
            if loc is not None and pages & set(loc.pages):
                hits += 1
                break
    return {"questions": len(asked), "hits@5": hits}


def corrupted_pdf(ctx: Context) -> HardCase:
    cid, title = "corrupted_pdf", "Truncated PDF (40% of its bytes)"
    pdf = _first_pdf(ctx)
    if pdf is None:
        return _case(cid, title, "skipped", "the dataset has no PDF to truncate")
    folder = ctx.work / cid
    cut = folder / f"truncated-{pdf.name}"
    cut.parent.mkdir(parents=True, exist_ok=True)
    data = pdf.read_bytes()
    cut.write_bytes(data[: int(len(data) * 0.4)])
    system = ctx.maker.make(folder / "cache")
    try:
        result, raised = _index_quietly(system, cut)
    finally:
        system.close()
    details: dict[str, Any] = {
        "bytes": len(data),
        "kept_bytes": int(len(data) * 0.4),
        "status": result.status if result else "raised",
        "chunks": result.chunks if result else 0,
        "error": result.error if result else raised,
    }
    if result is None:
        return _case(cid, title, "pass", f"refused as expected (index raised): {raised}", details)
    if result.status in ("failed", "degraded", "empty") and result.error:
        how = "flagged as degraded" if result.status == "degraded" else "refused as expected"
        return _case(cid, title, "pass", f"{how} ({result.status}): {result.error}", details)
    return _case(
        cid,
        title,
        "fail",
        f"a truncated PDF indexed as {result.status!r} without an error (silently partial)",
        details,
    )


def _damage(entry: Path, variant: str) -> None:
    if variant == "truncated":
        raw = entry.read_bytes()
        entry.write_bytes(raw[: len(raw) // 2])
    elif variant == "garbage":
        entry.write_bytes(bytes((i * 37 + 11) % 256 for i in range(128)))
    elif variant == "tampered":
        data = json.loads(entry.read_text(encoding="utf-8"))
        chunks = data["chunks"]
        if isinstance(chunks[0], dict):
            chunks[0]["text"] = f"{CANARY} {CANARY}"
        else:
            chunks[0] = f"{CANARY} {CANARY}"
        entry.write_text(json.dumps(data), encoding="utf-8")
    elif variant == "unsigned":
        sigs = [p for p in (entry.with_suffix(".sig"), entry.with_name(entry.name + ".sig"))]
        found = [p for p in sigs if p.exists()]
        for sig in found:
            sig.unlink()
        if not found:  # the signature may live inside the entry
            data = json.loads(entry.read_text(encoding="utf-8"))
            popped = [data.pop(k) for k in ("sig", "signature", "digest", "sha256") if k in data]
            if not popped:
                msg = f"cannot find the signature of cache entry {entry.name} to remove"
                raise RuntimeError(msg)
            entry.write_text(json.dumps(data), encoding="utf-8")


def corrupted_cache(ctx: Context) -> HardCase:
    cid, title = "corrupted_cache", "Corrupted index cache (4 variants)"
    if not ctx.maker.reference:
        return _case(cid, title, "skipped", "needs the reference system's chunk cache files")
    picks = pick_questions(ctx, 1)
    if not picks:
        return _case(cid, title, "skipped", "no question fits (exact/numeric, .txt/.md, unique)")
    q = picks[0]
    folder = ctx.work / cid
    doc = folder / "docs" / ctx.paths[q.doc].name
    doc.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ctx.paths[q.doc], doc)
    clean_cache = folder / "clean"
    system = ctx.maker.make(clean_cache)
    try:
        system.index(doc)
        clean_rank = _rank_of(system, doc, q.doc, q)
        locate = getattr(system, "cache_entry", None)
        entry = locate(doc) if callable(locate) else None
    finally:
        system.close()
    if not isinstance(entry, Path):
        entries = sorted(p for p in clean_cache.rglob("*.json") if p.is_file())
        if len(entries) != 1:
            msg = f"expected one chunk-cache JSON after indexing one document, found {len(entries)}"
            raise RuntimeError(msg)
        entry = entries[0]
    variants: dict[str, dict[str, Any]] = {}
    for variant in ("truncated", "tampered", "unsigned", "garbage"):
        cache = folder / variant
        shutil.copytree(clean_cache, cache)
        _damage(cache / entry.relative_to(clean_cache), variant)
        system = ctx.maker.make(cache)
        try:
            result = system.index(doc)
            rank = _rank_of(system, doc, q.doc, q)
            served_canary = any(
                CANARY in h.text for h in system.search(q.question, DENSE_DEPTH)
            ) or any(CANARY in c for c in system.chunks(doc))
        finally:
            system.close()
        variants[variant] = {
            "status": result.status,
            "from_cache": result.from_cache,
            "rank": rank,
            "canary_served": served_canary,
            "ok": not result.from_cache and not served_canary and rank == clean_rank,
        }
    details = {"question": q.id, "clean_rank": clean_rank, "variants": variants}
    bad = [v for v, d in variants.items() if not d["ok"]]
    if not bad:
        return _case(
            cid, title, "pass", "every damaged entry was rebuilt and ranks as clean", details
        )
    return _case(cid, title, "fail", f"served or kept damaged cache: {', '.join(bad)}", details)


def capacity_eviction(ctx: Context) -> HardCase:
    cid, title = "capacity_eviction", "Indexing past the document cap"
    if not ctx.maker.reference:
        return _case(cid, title, "skipped", "needs the reference system's capacity setting")
    picks = pick_questions(ctx, 4)
    if len(picks) < 4:
        return _case(cid, title, "skipped", "needs four documents with a fitting question")
    folder = ctx.work / cid
    copies = []
    for q in picks:
        dst = folder / "docs" / ctx.paths[q.doc].name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ctx.paths[q.doc], dst)
        copies.append(dst)
    system = ctx.maker.make(folder / "cache", **CAPACITY_SETTINGS)
    try:
        results = [system.index(p) for p in copies]
        searchable = [
            bool(_from(system.search(q.question, DENSE_DEPTH), p))
            for q, p in zip(picks, copies, strict=True)
        ]
    finally:
        system.close()
    evicted = list(results[-1].evicted)
    details: dict[str, Any] = {
        "settings": CAPACITY_SETTINGS,
        "documents": [p.name for p in copies],
        "last_result_evicted": evicted,
        "searchable": dict(zip([p.name for p in copies], searchable, strict=True)),
    }
    silently_gone = [
        p.name for p, ok in zip(copies, searchable, strict=True) if not ok and str(p) not in evicted
    ]
    if silently_gone:
        return _case(
            cid,
            title,
            "fail",
            "documents vanished from search without being reported evicted: "
            + ", ".join(silently_gone),
            details,
        )
    if evicted:
        return _case(
            cid,
            title,
            "pass",
            f"the evicting index() result names {', '.join(Path(e).name for e in evicted)}",
            details,
        )
    if searchable[0]:
        return _case(
            cid, title, "pass", "the first document is still indexed (nothing evicted)", details
        )
    return _case(
        cid, title, "fail", "the first document is gone and nothing reported an eviction", details
    )


PR_CASES: tuple[Callable[[Context], HardCase], ...] = (
    replaced_document,
    exact_duplicate,
    corrupted_cache,
    corrupted_pdf,
    capacity_eviction,
    scanned_pdf,
)
TITLES = {
    "replaced_document": "Document replaced after indexing",
    "exact_duplicate": "Identical copy under another name",
    "corrupted_cache": "Corrupted index cache (4 variants)",
    "corrupted_pdf": "Truncated PDF (40% of its bytes)",
    "capacity_eviction": "Indexing past the document cap",
    "scanned_pdf": "Scanned (image-only) PDF",
    "prompt_injection": "Prompt injection in a document",
}
"""Each case's title, for the report of a case that crashed (and returned none)."""


def _unwork(case: HardCase, work: Path) -> HardCase:
    # Findings name files in the run's temporary folder; show them relative to it, so two
    # runs' results differ only where their behaviour does.
    raw = json.dumps(case.model_dump(mode="json"), ensure_ascii=False)
    for prefix in {str(work), str(work.resolve())}:
        raw = raw.replace(json.dumps(prefix)[1:-1], "<work>")
    return HardCase.model_validate(json.loads(raw))


def run_case(fn: Callable[[Context], HardCase], ctx: Context) -> HardCase:
    """Run one case. It raises when it crashes: the engine records that as the item's
    error, which fails the run (a crash is never a finding); an InfrastructureError leaves
    it unmeasured."""
    return _unwork(fn(ctx), ctx.work)
