"""The RAG retrieval suite on the suite engine: set-up indexes, each item queries.

setup: per dataset, build the system -> index every document (per-document stats, RSS
sampled in a thread) -> locate every chunk in its document's text (abort above 1%
unlocated) -> resolve the evidence labels (a wrong label stops the run, naming the
question). run_item: a question -> `sdk` search at depth 20 and `agent` search, first-hit
ranks and latencies; with an answer model, the `sdk` top chunks -> the model -> a
graded answer (answering.py; a fresh conversation per question); a hard case -> the case
against fresh system instances.

The engine (core/runloop.py) owns the rest: the lock, signals, saving after every item,
--resume, --shard, the gate and the report files. The summary is in summary.py, the gate
rules in gate.py, the report sections in report.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.suite import Item, RunContext, Suite
from gaia_eval.retrieval import (
    answering,
    full_cases,
    hard_cases,
    scale,
    scoring,
)
from gaia_eval.retrieval.dataset import Dataset, Question, load_beir, load_dataset
from gaia_eval.retrieval.evidence import ResolvedEvidence, check_unlocated, chunk_hits
from gaia_eval.retrieval.indexing import Indexed, index_dataset, resolve
from gaia_eval.retrieval.models import (
    DENSE_DEPTH,
    DatasetSetup,
    HardCase,
    QuestionResult,
    ScaleTier,
    SystemSettings,
)
from gaia_eval.retrieval.sources import PINNED_KEY
from gaia_eval.retrieval.systems import SystemMaker
from gaia_eval.systems.rag.protocol import SearchHit

if TYPE_CHECKING:
    from gaia_eval.llm.local_server import LocalServerInfo
    from gaia_eval.llm.spec import ModelSpec

SUITE = "retrieval-rag"
LABEL_CHARS = 2000
"""The annotator text's leading characters the label sanity check reads."""
_WORD = re.compile(r"\w+")
# Comparable fields a --system retriever reports only once built.
PLUGIN_PENDING = ("embedder", "model", "VLM on")


@dataclass(frozen=True)
class DatasetSource:
    """Where a dataset comes from."""

    kind: Literal["builtin", "file", "beir", "corpus"]
    path: Path
    label: str
    """Recorded as the dataset's `source` (`builtin:repo_docs`, a path, `corpus:<name>`)."""
    loader: Callable[[], Dataset] | None = None
    """Builds a `corpus` dataset from the checked cache (full.py)."""
    allow_outside: bool = False
    """Admit document files outside the dataset's folder (`--allow-outside`)."""
    split: str = "test"
    """The qrels split of a BEIR folder (`--beir-split`)."""

    def load(self) -> Dataset:
        if self.loader is not None:
            return self.loader()
        if self.kind == "beir":
            return load_beir(self.path, split=self.split)
        return load_dataset(self.path, allow_outside=self.allow_outside)


def questions_digest(ds: Dataset) -> str:
    """sha256 over what defines the question set: ids, documents, questions and evidence."""
    rows = [
        [q.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]
        for q in ds.questions
    ]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def definition(ds: Dataset, q: Question) -> list[Any]:
    """What defines one question item (the definition digest covers it)."""
    return [ds.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]


class RagRun(Suite):
    """The item logic of `RagSuite` (suite.py, the declaration): set-up (index, locate,
    resolve), one item (a question, a scale tier, a hard case), teardown. It reads the
    configuration the declaration holds."""

    sources: list[DatasetSource]
    maker: SystemMaker
    embedder: str
    answer_model: ModelSpec | None
    judge: ModelSpec | None
    scale_plan: scale.ScalePlan | None
    wikipedia: Path | None
    near_duplicates: dict[str, list[Path]] | None
    local_model: LocalServerInfo | None
    license_notes: dict[str, dict[str, str]] | None
    pinned_files: list[str] | None

    def __init__(self) -> None:
        self._context_chunks = 0
        self._indexed: dict[str, Indexed] = {}
        self._work: Path | None = None
        self._distractors: list[Any] = []
        self._page_words: dict[tuple[int, str, int], set[str]] = {}
        # With --jobs only the answer model's calls overlap: retrieval, hard cases and
        # scale tiers hold this (the index and its caches are one shared system, and its
        # latencies are measured alone); re-entrant: _scale_tier measures inside it.
        self._search_lock = threading.RLock()

    @abstractmethod
    def datasets(self) -> list[Dataset]:
        """Every dataset, loaded and validated once."""

    @abstractmethod
    def _settings(self, vlm: bool | None) -> dict[str, Any]:
        """The header's settings, given whether the built system reads images."""

    # ---- set-up: index, locate, resolve --------------------------------------------------

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        self._work = Path(ctx.setup["_temp"])
        if self.local_model is not None:
            from gaia_eval.llm.local_server import RECORD_KEY

            # The report prints its note before any number.
            ctx.setup[RECORD_KEY] = self.local_model.model_dump(mode="json")
        if self.license_notes is not None:
            ctx.setup["sources"] = self.license_notes
        if self.pinned_files:
            ctx.setup[PINNED_KEY] = self.pinned_files
        loaded = self.datasets()
        ctx.setup["datasets"] = [
            DatasetSetup(
                dataset=ds.id,
                description=ds.description,
                source=src.label,
                questions_digest=questions_digest(ds),
                questions=len(ds.questions),
                documents=len(ds.documents),
                documents_outside=ds.documents_outside(),
            ).model_dump(mode="json")
            for src, ds in zip(self.sources, loaded, strict=True)
        ]
        # Index what the items to run need: their datasets, and the first for hard cases.
        wanted = {
            i.payload[0]
            for i in items
            if isinstance(i.payload, tuple) and isinstance(i.payload[0], int)
        }
        if any(callable(i.payload) for i in items):
            wanted.add(0)
        tiers = [
            i.payload[1] for i in items if isinstance(i.payload, tuple) and i.payload[0] == "scale"
        ]
        if tiers:
            self._prepare_distractors(max(tiers))
        for n in sorted(wanted):
            self._indexed[loaded[n].id] = self._set_up(ctx, loaded[n], self._work / f"dataset-{n}")

    def _set_up(self, ctx: RunContext, ds: Dataset, work: Path) -> Indexed:
        t0 = time.perf_counter()
        system = self.maker.make(work / "cache")
        load_s = time.perf_counter() - t0
        paths = {d.id: Path(d.path) for d in ds.documents}
        doc_of_path: dict[str, str] = {}
        for doc, path in paths.items():
            doc_of_path[str(path)] = doc
            doc_of_path.setdefault(str(path.resolve()), doc)
        idx = Indexed(system, paths, doc_of_path)
        self._indexed[ds.id] = idx  # closed by teardown, even if the rest fails
        info = system.info()
        self._context_chunks = info.max_chunks or answering.DEFAULT_CONTEXT_CHUNKS
        ctx.setup["system"] = SystemSettings(
            name=info.name,
            chunk_size=info.chunk_size,
            chunk_overlap=info.chunk_overlap,
            max_chunks=info.max_chunks,
            extra=dict(info.extra),
        ).model_dump(mode="json")
        # Refuse an unlike run (embedder, VLM) now, not after minutes of indexing.
        ctx.learn_header(
            embedder=info.embedder,
            model=info.vlm,
            settings=self._settings(info.vlm is not None),
        )
        cache = work / "cache" if self.maker.reference else None
        stats = index_dataset(ds, idx, load_s, cache)
        ctx.setup[f"index/{ds.id}"] = stats.model_dump(mode="json")
        # Abort when the chunker no longer matches the text: every score would be wrong.
        check_unlocated(stats.chunks, stats.unlocated_chunks)
        idx.resolved = resolve(ds, idx)
        return idx

    def teardown(self) -> None:
        for idx in self._indexed.values():
            idx.system.close()
        self._indexed.clear()

    # ---- one item ------------------------------------------------------------------------

    def run_item(self, item: Item, ctx: RunContext) -> BaseModel:
        if callable(item.payload):
            with self._search_lock:
                return self._hard_case(item.payload)
        if item.payload[0] == "scale":
            with self._search_lock:
                return self._scale_tier(item.payload[1])
        n, q = item.payload
        ds = self.datasets()[n]
        return self._measure(self._indexed[ds.id], ds, q, answers=True)

    def _measure(self, idx: Indexed, ds: Dataset, q: Question, *, answers: bool) -> QuestionResult:
        with self._search_lock:
            t0 = time.perf_counter()
            sdk_hits = idx.system.search(q.question, DENSE_DEPTH)[:DENSE_DEPTH]
            sdk_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            agent_hits = idx.system.agent_search(q.question)
            agent_s = time.perf_counter() - t0
            overlap = self._label_overlap(idx, q)
        evidence = idx.resolved[q.id]
        ev_docs = {ev.doc for ev in q.evidence}
        answer = None
        if answers and self.answer_model is not None:
            sent = [
                answering.ContextChunk(
                    source=Path(h.path).name,
                    text=h.text,
                    hits_evidence=evidence is not None and _hits(idx, h, evidence),
                )
                for h in sdk_hits[: self._context_chunks]
            ]
            answer = answering.answer_question(q, sent, self.answer_model, self.judge)
        return QuestionResult(
            id=q.id,
            dataset=ds.id,
            doc=q.doc,
            question=q.question,
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
            answer=answer,
            label_overlap=overlap,
        )

    def _label_overlap(self, idx: Indexed, q: Question) -> float | None:
        best: float | None = None
        for ev in q.evidence:
            text = idx.texts.get(ev.doc)
            if not ev.label_text or ev.page is None or text is None or not text.paged:
                continue
            key = (id(idx), ev.doc, ev.page)
            if key not in self._page_words:
                start, end = text.page_segment(ev.page)
                self._page_words[key] = set(_WORD.findall(text.normalized[start:end].lower()))
            words = _WORD.findall(ev.label_text[:LABEL_CHARS].lower())
            if words:
                share = sum(w in self._page_words[key] for w in words) / len(words)
                best = share if best is None else max(best, share)
        return None if best is None else round(best, 4)

    # ---- scale tiers ---------------------------------------------------------------------

    def _prepare_distractors(self, largest: int) -> None:
        assert self._work is not None and self.scale_plan is not None
        need = max(0, largest - scale.TARGETS)
        if self.scale_plan.distractors == "wikipedia":
            if self.wikipedia is None:
                msg = "the scale tiers' Wikipedia distractors were asked for but not fetched"
                raise InvalidInputError(msg)
            articles = scale.wikipedia_articles(self.wikipedia, need)
        else:
            articles = scale.generated_articles(need)
        self._distractors = scale.write_distractors(self._work / "distractors", articles)

    def _scale_tier(self, tier: int) -> ScaleTier:
        assert self._work is not None and self.scale_plan is not None
        base = self.datasets()[0]
        ds = scale.tier_dataset(base, tier, self._distractors)
        work = self._work / f"scale-{tier}"
        t0 = time.perf_counter()
        system = self.maker.make(work / "cache")
        load_s = time.perf_counter() - t0
        paths = {d.id: Path(d.path) for d in ds.documents}
        doc_of_path = {str(p): d for d, p in paths.items()}
        doc_of_path.update({str(p.resolve()): d for d, p in paths.items()})
        idx = Indexed(system, paths, doc_of_path)
        try:
            stats = index_dataset(ds, idx, load_s, work / "cache" if self.maker.reference else None)
            check_unlocated(stats.chunks, stats.unlocated_chunks)
            idx.resolved = resolve(ds, idx)
            results = [self._measure(idx, ds, q, answers=False) for q in ds.questions]
            slowest = sorted(stats.per_document, key=lambda d: -d.seconds)[:5]
            out = ScaleTier(
                tier=tier,
                targets=[d.id for d in ds.documents if not d.id.startswith("distractor-")],
                distractors=self.scale_plan.distractors,
                embedder=system.info().embedder,
                ok=stats.required_failed == 0,
                index=stats.model_copy(update={"per_document": []}),
                slowest=slowest,
                summary=scoring.summarize(results),
                faiss_index=scale.faiss_index_type(system),
            )
            vectors = scale.system_vectors(system)
            queries = scale.query_vectors(system, [q.question for q in ds.questions])
            if tier >= self.scale_plan.ann_from and vectors is not None and queries is not None:
                (p50, p95), trials = scale.ann_trials(vectors, queries)
                out = out.model_copy(update={"flat_p50_ms": p50, "flat_p95_ms": p95, "ann": trials})
            return out
        finally:
            system.close()
            shutil.rmtree(work, ignore_errors=True)  # a 5,000-document tier is large

    def _near_duplicates(self, ctx: hard_cases.Context) -> HardCase:
        assert self.near_duplicates is not None
        asked = [q for ds in self.datasets() if ds.id == "financebench" for q in ds.questions]
        return full_cases.near_duplicate_filings(ctx, self.near_duplicates, asked)

    def _hard_case(self, fn: Callable[[hard_cases.Context], HardCase]) -> HardCase:
        assert self._work is not None
        first = self.datasets()[0]
        idx = self._indexed[first.id]
        hc = hard_cases.Context(
            dataset=first,
            paths=idx.paths,
            texts=idx.texts,
            maker=self.maker,
            work=self._work / "hard-cases",
        )
        return hard_cases.run_case(fn, hc)


# ---- scoring one question's hits ---------------------------------------------------------


def _first(flags: Iterable[bool]) -> int | None:
    for rank, flag in enumerate(flags, start=1):
        if flag:
            return rank
    return None


def _hits(idx: Indexed, hit: SearchHit, evidence: list[ResolvedEvidence]) -> bool:
    doc = idx.doc_of_path.get(hit.path)
    if doc is None:
        return False
    located = idx.located.get(doc)
    if located is None or not 0 <= hit.chunk_index < len(located):
        return False
    loc = located[hit.chunk_index]
    return any(chunk_hits(doc, loc, ev) for ev in evidence)


def _first_hit(
    idx: Indexed, hits: list[SearchHit], evidence: list[ResolvedEvidence] | None
) -> int | None:
    if evidence is None:
        return None
    return _first(_hits(idx, hit, evidence) for hit in hits)


__all__ = ["SUITE", "DatasetSource", "RagRun", "questions_digest"]
