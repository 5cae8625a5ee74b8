"""Run the RAG retrieval benchmark (the only module of the suite that does I/O).

load datasets -> build the system -> index every document (per-document stats, RSS
sampled in a thread) -> locate every chunk in its document's text (abort above 1%
unlocated) -> resolve the evidence labels (a wrong label stops the run, naming the
question) -> per question: `sdk` search at depth 20 and `agent` search, first-hit ranks
and latencies -> aggregate -> hard cases -> `results.json` + `report.md`.

Results are written in a `finally`, so a run that crashes partway leaves every finished
question on disk with `meta.complete = false` and the error in `meta.errors`.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from gaia_eval.core.errors import (
    InfrastructureError,
    InvalidInputError,
    NotComparableError,
)
from gaia_eval.core.lock import eval_lock
from gaia_eval.core.progress import track
from gaia_eval.core.results_io import read_json, write_json, write_text
from gaia_eval.core.runmeta import RunClock, timestamp_slug
from gaia_eval.retrieval import gate, report, scoring
from gaia_eval.retrieval.dataset import Dataset, load_beir, load_dataset
from gaia_eval.retrieval.evidence import (
    DocumentText,
    EvidenceLabel,
    LocatedChunks,
    ResolvedEvidence,
    check_unlocated,
    chunk_hits,
    locate_chunks,
    resolve_labels,
)
from gaia_eval.retrieval.models import (
    DENSE_DEPTH,
    SCHEMA_VERSION,
    DatasetResult,
    DocumentStats,
    FailedDocument,
    IndexStats,
    QuestionResult,
    RetrievalMeta,
    RetrievalResults,
    SystemSettings,
    VlmSetting,
)
from gaia_eval.retrieval.rss import RssSampler
from gaia_eval.retrieval.systems import SystemMaker
from gaia_eval.systems.rag.protocol import Retriever, SearchHit

INDEXED_STATUSES = frozenset({"indexed", "cached", "degraded"})
_MB = 2**20


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset comes from."""

    kind: Literal["builtin", "file", "beir"]
    path: Path
    label: str
    """Recorded as the dataset's `source` (`builtin:repo_docs`, a path)."""

    def load(self) -> Dataset:
        return load_beir(self.path) if self.kind == "beir" else load_dataset(self.path)


@dataclass
class RunOptions:
    """Everything a run needs; the CLI builds it from flags."""

    suite: str
    sources: list[DatasetSource]
    maker: SystemMaker
    embedder: str
    """The requested embedder spec (the system's own report replaces it once built)."""
    out_dir: Path | None = None
    hard_cases: bool = True
    keep_work: bool = False
    baseline: RetrievalResults | None = None
    tolerance: float = gate.DEFAULT_TOLERANCE
    command: str = "gaia-eval retrieval --component rag"


@dataclass
class RunOutcome:
    """What a finished run produced."""

    results: RetrievalResults
    out_dir: Path
    verdict: gate.GateVerdict | None = None


@dataclass
class _Indexed:
    """One dataset's index as the scorer needs it."""

    system: Retriever
    paths: dict[str, Path]
    doc_of_path: dict[str, str]
    texts: dict[str, DocumentText] = field(default_factory=dict)
    located: dict[str, LocatedChunks] = field(default_factory=dict)


def default_out_dir(suite: str) -> Path:
    return Path("eval") / "results" / f"retrieval-{suite}-{timestamp_slug()}"


def load_results(path: Path) -> RetrievalResults:
    """Read a RAG retrieval `results.json` (a baseline), with messages naming the problem."""
    data = read_json(path)
    meta = data.get("meta") if isinstance(data, dict) else None
    component = meta.get("component") if isinstance(meta, dict) else None
    if not isinstance(data, dict) or component != "rag":
        msg = (
            f"{path}: not a RAG retrieval results file (meta.component is {component!r}, "
            "expected 'rag'); pass a results.json written by "
            "`gaia-eval retrieval --component rag`"
        )
        raise InvalidInputError(msg)
    version = data.get("schema")
    if version != SCHEMA_VERSION:
        msg = (
            f"{path}: field 'schema' is {version!r}; this gaia-eval reads RAG retrieval results "
            f"of schema {SCHEMA_VERSION}; regenerate the file with this version"
        )
        raise InvalidInputError(msg)
    try:
        return RetrievalResults.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = f"{path}: field '{where}': {first['msg']} ({err.error_count()} problem(s) in all)"
        raise InvalidInputError(msg) from err


def questions_digest(ds: Dataset) -> str:
    """sha256 over what defines the question set: ids, documents, questions and evidence."""
    rows = [
        [q.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]
        for q in ds.questions
    ]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class Terminated(SystemExit):
    """SIGTERM arrived (a CI timeout, `kill`): unwind so the partial results get written."""


@contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    # Python's default SIGTERM action kills the process without running `finally`
    # blocks; raising instead lets the run write what it finished. Signal handlers can
    # only be installed from the main thread.
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Terminated(128 + signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(options: RunOptions) -> RunOutcome:
    """Run the benchmark under the machine-wide eval lock; write results even on a crash
    or a SIGTERM."""
    with eval_lock(options.command), _sigterm_unwinds():
        return _run_locked(options)


def _run_locked(options: RunOptions) -> RunOutcome:
    clock = RunClock()
    out = options.out_dir or default_out_dir(options.suite)
    results = RetrievalResults(
        meta=RetrievalMeta(
            suite=options.suite,
            package_version=clock.meta.package_version,
            started=clock.meta.started,
            git_sha=clock.meta.git_sha,
            git_dirty=clock.meta.git_dirty,
            machine=clock.meta.machine,
            system=options.maker.label,
            embedder=options.embedder,
            vlm=VlmSetting(enabled=False),
        )
    )
    cpu0 = time.process_time()
    work = Path(tempfile.mkdtemp(prefix="gaia-eval-rag-"))
    verdict: gate.GateVerdict | None = None
    refusal: NotComparableError | None = None
    try:
        _execute(options, results, work)
        results.meta.complete = True
    except BaseException as err:
        results.meta.errors.append(describe(err))
        raise
    finally:
        results.meta.duration_s = clock.elapsed()
        results.meta.cpu_s = round(time.process_time() - cpu0, 3)
        if options.keep_work:
            results.meta.work_dir = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
        if options.baseline is not None and results.meta.complete:
            try:
                verdict = gate.compare(options.baseline, results, options.tolerance)
            except NotComparableError as err:
                refusal = err
        write_json(out / "results.json", results.to_json_dict())
        write_text(out / "report.md", report.render(results, verdict))
    if refusal is not None:
        raise refusal
    return RunOutcome(results, out, verdict)


def describe(err: BaseException) -> str:
    if isinstance(err, Terminated):
        return "Terminated: the run received SIGTERM"
    text = str(err) or repr(err)
    return f"{type(err).__name__}: {text}"[:2000]


def _execute(options: RunOptions, results: RetrievalResults, work: Path) -> None:
    # Load and validate every dataset first: bad input stops the run before any indexing.
    loaded = [(src, src.load()) for src in options.sources]
    first: _Indexed | None = None
    for i, (src, ds) in enumerate(loaded):
        indexed = _run_dataset(options, results, src, ds, work / f"dataset-{i}")
        first = first or indexed
    if options.hard_cases and first is not None:
        from gaia_eval.retrieval import hard_cases

        results.hard_cases = []
        ctx = hard_cases.Context(
            dataset=loaded[0][1],
            paths=first.paths,
            texts=first.texts,
            maker=options.maker,
            work=work / "hard-cases",
        )
        for case in track(hard_cases.run_all(ctx), "hard cases", total=len(hard_cases.PR_CASES)):
            results.hard_cases.append(case)


def _run_dataset(
    options: RunOptions, results: RetrievalResults, src: DatasetSource, ds: Dataset, work: Path
) -> _Indexed:
    entry = DatasetResult(
        dataset=ds.id,
        description=ds.description,
        source=src.label,
        questions_digest=questions_digest(ds),
        index=None,
        summary=scoring.summarize([]),
        by_tag={},
        questions=[],
    )
    results.datasets.append(entry)
    try:
        t0 = time.perf_counter()
        system = options.maker.make(work / "cache")
        load_s = time.perf_counter() - t0
        _record_system(options, results, system)
        paths = {d.id: Path(d.path) for d in ds.documents}
        doc_of_path: dict[str, str] = {}
        for doc, path in paths.items():
            doc_of_path[str(path)] = doc
            doc_of_path.setdefault(str(path.resolve()), doc)
        idx = _Indexed(system, paths, doc_of_path)
        entry.index = _index(ds, idx, load_s, work / "cache" if options.maker.reference else None)
        _score(ds, idx, entry)
        return idx
    finally:
        entry.summary = scoring.summarize(entry.questions)
        entry.by_tag = scoring.by_tag(entry.questions)


def _record_system(options: RunOptions, results: RetrievalResults, system: Retriever) -> None:
    info = system.info()
    meta = results.meta
    meta.embedder = info.embedder
    meta.vlm = VlmSetting(enabled=info.vlm is not None, model=info.vlm)
    meta.rag_settings = SystemSettings(
        name=info.name,
        chunk_size=info.chunk_size,
        chunk_overlap=info.chunk_overlap,
        max_chunks=info.max_chunks,
        extra=dict(info.extra),
    )
    if options.baseline is not None:
        # Refuse as soon as the setup is known, not after minutes of indexing.
        gate.refuse_unlike(
            options.baseline,
            suite=options.suite,
            embedder=info.embedder,
            vlm_enabled=info.vlm is not None,
        )


def _folder_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return round(total / _MB, 3)


def _index(ds: Dataset, idx: _Indexed, load_s: float, cache: Path | None) -> IndexStats:
    required = {ev.doc for q in ds.questions for ev in q.evidence}
    per_doc: list[DocumentStats] = []
    failed: list[FailedDocument] = []
    degraded: list[str] = []
    index_s = 0.0
    with RssSampler() as rss:
        for ref in track(ds.documents, f"indexing {ds.id}"):
            path = idx.paths[ref.id]
            t0 = time.perf_counter()
            try:
                res = idx.system.index(path)
            except (InfrastructureError, KeyboardInterrupt):
                raise  # an outage is never a document failure
            except Exception as err:  # the system under test crashed on this document
                seconds = time.perf_counter() - t0
                error: str | None = describe(err)[:300]
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

    total_chunks = 0
    unlocated = 0
    text_bytes = 0
    failed_ids = {f.doc for f in failed}
    for ref in track(ds.documents, f"locating chunks of {ds.id}"):
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
    stats = IndexStats(
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
        per_document=per_doc,
    )
    return stats


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


def _score(ds: Dataset, idx: _Indexed, entry: DatasetResult) -> None:
    assert entry.index is not None
    # Abort when the chunker no longer matches the text: every score would be wrong.
    check_unlocated(entry.index.chunks, entry.index.unlocated_chunks)
    # Resolve every label before the first query, so a wrong label stops the run at once.
    # All labels in one call: the quotes of one document share a pass over its text.
    resolved: dict[str, list[ResolvedEvidence] | None] = {}
    labels: list[EvidenceLabel] = []
    for q in ds.questions:
        if any(ev.doc not in idx.texts for ev in q.evidence):
            resolved[q.id] = None  # evidence not indexed: scored as a miss
            continue
        labels.extend(EvidenceLabel(q.id, ev.doc, ev.quote, ev.page, ev.near) for ev in q.evidence)
    by_question: dict[str, list[ResolvedEvidence]] = defaultdict(list)
    for label, ev_resolved in zip(labels, resolve_labels(idx.texts, labels), strict=True):
        by_question[label.question_id].append(ev_resolved)
    resolved.update(by_question)
    for q in track(ds.questions, f"querying {ds.id}"):
        t0 = time.perf_counter()
        sdk_hits = idx.system.search(q.question, DENSE_DEPTH)[:DENSE_DEPTH]
        sdk_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        agent_hits = idx.system.agent_search(q.question)
        agent_s = time.perf_counter() - t0
        evidence = resolved[q.id]
        ev_docs = {ev.doc for ev in q.evidence}
        entry.questions.append(
            QuestionResult(
                id=q.id,
                dataset=ds.id,
                doc=q.doc,
                tags=list(q.tags),
                language=q.language,
                answer_type=q.answer_type,
                sdk_rank=_first_hit(idx, sdk_hits, evidence),
                sdk_doc_rank=None
                if evidence is None
                else _first(idx.doc_of_path.get(h.path) in ev_docs for h in sdk_hits),
                agent_rank=_first_hit(idx, agent_hits, evidence),
                agent_returned=len(agent_hits),
                sdk_latency_s=round(sdk_s, 6),
                agent_latency_s=round(agent_s, 6),
                evidence_not_indexed=evidence is None,
            )
        )


def _first(flags: Iterable[bool]) -> int | None:
    for rank, flag in enumerate(flags, start=1):
        if flag:
            return rank
    return None


def _hits(idx: _Indexed, hit: SearchHit, evidence: list[ResolvedEvidence]) -> bool:
    doc = idx.doc_of_path.get(hit.path)
    if doc is None:
        return False
    located = idx.located.get(doc)
    if located is None or not 0 <= hit.chunk_index < len(located):
        return False
    loc = located[hit.chunk_index]
    return any(chunk_hits(doc, loc, ev) for ev in evidence)


def _first_hit(
    idx: _Indexed, hits: list[SearchHit], evidence: list[ResolvedEvidence] | None
) -> int | None:
    if evidence is None:
        return None
    for rank, hit in enumerate(hits, start=1):
        if _hits(idx, hit, evidence):
            return rank
    return None


__all__ = [
    "DatasetSource",
    "RunOptions",
    "RunOutcome",
    "load_results",
    "questions_digest",
    "run",
]
