"""The RAG retrieval suite on the suite engine: set-up indexes, each item queries.

setup: per dataset, build the system -> index every document (per-document stats, RSS
sampled in a thread) -> locate every chunk in its document's text (abort above 1%
unlocated) -> resolve the evidence labels (a wrong label stops the run, naming the
question). run_item: a question -> `sdk` search at depth 20 and `agent` search, first-hit
ranks and latencies; a hard case -> the case against fresh system instances.

The engine (core/runloop.py) owns the rest: the lock, signals, saving after every item,
--resume, --shard, the gate and the report files. The summary is in summary.py, the gate
rules in gate.py, the report sections in report.py.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.progress import track
from gaia_eval.core.suite import HeaderFields, Item, Metric, RunContext, Suite
from gaia_eval.retrieval import hard_cases
from gaia_eval.retrieval.dataset import Dataset, Question, load_beir, load_dataset
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
    DatasetSetup,
    DocumentStats,
    FailedDocument,
    HardCase,
    IndexStats,
    QuestionResult,
    RagItem,
    SystemSettings,
)
from gaia_eval.retrieval.rss import RssSampler
from gaia_eval.retrieval.summary import HARD_PREFIX
from gaia_eval.retrieval.systems import SystemMaker
from gaia_eval.systems.rag.protocol import Retriever, SearchHit

if TYPE_CHECKING:
    from gaia_eval.core.gate import GateRules
    from gaia_eval.core.report import Section
    from gaia_eval.core.results import Envelope, Header

SUITE = "retrieval-rag"
INDEXED_STATUSES = frozenset({"indexed", "cached", "degraded"})
# Comparable fields a --system retriever reports only once built.
PLUGIN_PENDING = ("embedder", "model", "VLM on")
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
class _Indexed:
    """One dataset's index as the queries need it."""

    system: Retriever
    paths: dict[str, Path]
    doc_of_path: dict[str, str]
    texts: dict[str, DocumentText] = field(default_factory=dict)
    located: dict[str, LocatedChunks] = field(default_factory=dict)
    resolved: dict[str, list[ResolvedEvidence] | None] = field(default_factory=dict)


def questions_digest(ds: Dataset) -> str:
    """sha256 over what defines the question set: ids, documents, questions and evidence."""
    rows = [
        [q.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]
        for q in ds.questions
    ]
    blob = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _definition(ds: Dataset, q: Question) -> list[Any]:
    return [ds.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]


class RagSuite(Suite):
    """Document retrieval: is the labelled evidence found, by which pipeline, at what cost."""

    name: ClassVar[str] = SUITE
    title: ClassVar[str] = "RAG retrieval"
    item_model: ClassVar[type[BaseModel]] = RagItem
    item_noun: ClassVar[str] = "item"

    def __init__(
        self,
        *,
        tier: str | None,
        sources: Sequence[DatasetSource],
        maker: SystemMaker,
        embedder: str,
        hard_cases: bool,
    ) -> None:
        self.tier = tier
        self.sources = list(sources)
        self.maker = maker
        self.embedder = embedder
        self.hard_cases = hard_cases
        self._loaded: list[Dataset] | None = None
        self._indexed: dict[str, _Indexed] = {}
        self._work: Path | None = None

    # ---- definition ----------------------------------------------------------------------

    def datasets(self) -> list[Dataset]:
        """Every dataset, loaded and validated once (bad input stops before any indexing)."""
        if self._loaded is None:
            loaded = [src.load() for src in self.sources]
            seen: dict[str, Path] = {}
            for ds in loaded:
                if ds.id in seen:
                    msg = (
                        f"{ds.source}: dataset id {ds.id!r} is also the id of {seen[ds.id]}; "
                        "give each dataset of one run its own id"
                    )
                    raise InvalidInputError(msg)
                seen[ds.id] = ds.source
                for what, n in (("questions", len(ds.questions)), ("documents", len(ds.documents))):
                    if n == 0:
                        msg = (
                            f"{ds.source}: dataset {ds.id!r} has no {what}; nothing would be "
                            f"measured (add {what} or drop the dataset)"
                        )
                        raise InvalidInputError(msg)
            self._loaded = loaded
        return self._loaded

    def run_tier(self) -> str:
        """The suite's tier (`pr`), or for a run of your own data its dataset ids."""
        return self.tier or "+".join(ds.id for ds in self.datasets())

    def _settings(self, vlm: bool | None) -> dict[str, Any]:
        return {
            "dense_depth": DENSE_DEPTH,
            "vlm": vlm,
            "questions_digest": {ds.id: questions_digest(ds) for ds in self.datasets()},
        }

    def header_fields(self) -> HeaderFields:
        reference = self.maker.reference
        return HeaderFields(
            tier=self.run_tier(),
            system=self.maker.label,
            embedder=self.embedder if reference else None,
            settings=self._settings(False if reference else None),
            pending=() if reference else PLUGIN_PENDING,
        )

    def items(self) -> list[Item]:
        out = [
            Item(f"{ds.id}/{q.id}", definition=_definition(ds, q), payload=(i, q))
            for i, ds in enumerate(self.datasets())
            for q in ds.questions
        ]
        if self.hard_cases:
            out += [
                Item(
                    f"{HARD_PREFIX}{fn.__name__}", definition=["hard_case", fn.__name__], payload=fn
                )
                for fn in hard_cases.PR_CASES
            ]
        return out

    # ---- set-up: index, locate, resolve --------------------------------------------------

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        self._work = Path(ctx.setup["_temp"])
        loaded = self.datasets()
        ctx.setup["datasets"] = [
            DatasetSetup(
                dataset=ds.id,
                description=ds.description,
                source=src.label,
                questions_digest=questions_digest(ds),
                questions=len(ds.questions),
                documents=len(ds.documents),
            ).model_dump(mode="json")
            for src, ds in zip(self.sources, loaded, strict=True)
        ]
        # Index what the items to run need: their datasets, and the first for hard cases.
        wanted = {i.payload[0] for i in items if isinstance(i.payload, tuple)}
        if any(callable(i.payload) for i in items):
            wanted.add(0)
        for n in sorted(wanted):
            self._indexed[loaded[n].id] = self._set_up(ctx, loaded[n], self._work / f"dataset-{n}")

    def _set_up(self, ctx: RunContext, ds: Dataset, work: Path) -> _Indexed:
        t0 = time.perf_counter()
        system = self.maker.make(work / "cache")
        load_s = time.perf_counter() - t0
        paths = {d.id: Path(d.path) for d in ds.documents}
        doc_of_path: dict[str, str] = {}
        for doc, path in paths.items():
            doc_of_path[str(path)] = doc
            doc_of_path.setdefault(str(path.resolve()), doc)
        idx = _Indexed(system, paths, doc_of_path)
        self._indexed[ds.id] = idx  # closed by teardown, even if the rest fails
        info = system.info()
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
        stats = _index(ds, idx, load_s, cache)
        ctx.setup[f"index/{ds.id}"] = stats.model_dump(mode="json")
        # Abort when the chunker no longer matches the text: every score would be wrong.
        check_unlocated(stats.chunks, stats.unlocated_chunks)
        idx.resolved = _resolve(ds, idx)
        return idx

    def teardown(self) -> None:
        for idx in self._indexed.values():
            idx.system.close()
        self._indexed.clear()

    # ---- one item ------------------------------------------------------------------------

    def run_item(self, item: Item, ctx: RunContext) -> BaseModel:
        if callable(item.payload):
            return self._hard_case(item.payload)
        n, q = item.payload
        ds = self.datasets()[n]
        idx = self._indexed[ds.id]
        t0 = time.perf_counter()
        sdk_hits = idx.system.search(q.question, DENSE_DEPTH)[:DENSE_DEPTH]
        sdk_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        agent_hits = idx.system.agent_search(q.question)
        agent_s = time.perf_counter() - t0
        evidence = idx.resolved[q.id]
        ev_docs = {ev.doc for ev in q.evidence}
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
        )

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

    # ---- reading results: summary.py, gate.py, report.py ---------------------------------

    @classmethod
    def summarise(cls, env: Envelope) -> BaseModel:
        from gaia_eval.retrieval.summary import summarise

        return summarise(env)

    @classmethod
    def comparable_fields(cls, header: Header) -> dict[str, Any]:
        from gaia_eval.retrieval.gate import comparable_fields

        return comparable_fields(header)

    @classmethod
    def gate_rules(cls) -> GateRules:
        from gaia_eval.retrieval.gate import rules

        return rules()

    @classmethod
    def gate_metrics(cls, env: Envelope) -> dict[str, Metric]:
        from gaia_eval.retrieval.gate import metrics

        return metrics(env)

    @classmethod
    def gate_checks(cls, env: Envelope) -> dict[tuple[str, str], bool | None]:
        from gaia_eval.retrieval.gate import checks

        return checks(env)

    @classmethod
    def gate_extra(cls, baseline: Envelope, current: Envelope) -> tuple[list[str], list[str]]:
        from gaia_eval.retrieval.gate import extra

        return extra(baseline, current)

    @classmethod
    def warnings(cls, env: Envelope) -> list[str]:
        from gaia_eval.retrieval.report import warnings

        return warnings(env)

    @classmethod
    def headline(cls, env: Envelope) -> list[tuple[str, str]]:
        from gaia_eval.retrieval.report import headline

        return headline(env)

    @classmethod
    def report_sections(cls, env: Envelope) -> list[Section]:
        from gaia_eval.retrieval.report import sections

        return sections(env)


# ---- indexing ----------------------------------------------------------------------------


def _folder_mb(folder: Path) -> float:
    total = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return round(total / _MB, 3)


def _describe(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err) or repr(err)}"[:300]


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

    total_chunks = unlocated = text_bytes = 0
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
        per_document=per_doc,
    )


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


def _resolve(ds: Dataset, idx: _Indexed) -> dict[str, list[ResolvedEvidence] | None]:
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
    by_question: dict[str, list[ResolvedEvidence]] = defaultdict(list)
    for label, ev_resolved in zip(labels, resolve_labels(idx.texts, labels), strict=True):
        by_question[label.question_id].append(ev_resolved)
    resolved.update(by_question)
    return resolved


# ---- scoring one question's hits ---------------------------------------------------------


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
    return _first(_hits(idx, hit, evidence) for hit in hits)


__all__ = ["SUITE", "DatasetSource", "RagSuite", "questions_digest"]
