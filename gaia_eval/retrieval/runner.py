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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.suite import HeaderFields, Item, Metric, RunContext, Suite
from gaia_eval.retrieval import (
    answer_cases,
    answering,
    full_cases,
    gate,
    hard_cases,
    report,
    scale,
    scoring,
    summary,
)
from gaia_eval.retrieval.dataset import Dataset, Question, load_beir, load_dataset
from gaia_eval.retrieval.evidence import ResolvedEvidence, check_unlocated, chunk_hits
from gaia_eval.retrieval.indexing import Indexed, index_dataset, resolve
from gaia_eval.retrieval.models import (
    DENSE_DEPTH,
    DatasetSetup,
    HardCase,
    QuestionResult,
    RagItem,
    ScaleTier,
    SystemSettings,
)
from gaia_eval.retrieval.systems import SystemMaker
from gaia_eval.systems.rag.protocol import SearchHit

if TYPE_CHECKING:
    from gaia_eval.core.compare.metrics import ItemMetric
    from gaia_eval.core.gate import GateRules
    from gaia_eval.core.report import Section
    from gaia_eval.core.results import Envelope, Header
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


def _definition(ds: Dataset, q: Question) -> list[Any]:
    return [ds.id, q.doc, q.question, [[e.doc, e.quote, e.page, e.near] for e in q.evidence]]


class RagSuite(Suite):
    """Document retrieval: is the labelled evidence found, by which pipeline, at what cost."""

    name: ClassVar[str] = SUITE
    baselines_folder: ClassVar[str] = "retrieval"  # `--gate pr`: gaia_eval/baselines/retrieval/
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
        answer_model: ModelSpec | None = None,
        judge: ModelSpec | None = None,
        scale_plan: scale.ScalePlan | None = None,
        wikipedia: Path | None = None,
        near_duplicates: dict[str, list[Path]] | None = None,
        vlm: str | None = None,
        license_notes: dict[str, dict[str, str]] | None = None,
        local_model: LocalServerInfo | None = None,
    ) -> None:
        self.local_model = local_model
        """The embedded server answering (or judging) when a spec is `local`: recorded, and
        its note (a 135M plumbing model) leads the report."""
        self.license_notes = license_notes
        """The corpus sources' licenses, recorded in the setup (full suite)."""
        self.tier = tier
        self.scale_plan = scale_plan
        """The scale tiers (full suite); None: none."""
        self.wikipedia = wikipedia
        """The checked Wikipedia parquet, when the tiers' distractors come from it."""
        self.near_duplicates = near_duplicates
        """Company -> its several years of filings (full suite's near-duplicate case)."""
        self.vlm = vlm
        """The vision model reading PDF images (recorded; None: off)."""
        self.answer_model = answer_model
        """Answers are generated and graded only with a model (None: retrieval only)."""
        self.judge = judge
        """Grades `judge`-type answers; without it they are unscored."""
        self._context_chunks = 0
        self.sources = list(sources)
        self.maker = maker
        self.embedder = embedder
        self.hard_cases = hard_cases
        self._loaded: list[Dataset] | None = None
        self._indexed: dict[str, Indexed] = {}
        self._work: Path | None = None
        self._distractors: list[Any] = []
        self._page_words: dict[tuple[int, str, int], set[str]] = {}

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

    def preflight(self) -> list[str]:
        """The reference system's optional extras (onnx for its embedder; pdf when a
        dataset holds a PDF: pypdf reads it, pypdfium2 rasterizes it for the scanned-PDF
        hard case) and what the answer model and judge need (SDK, API key, weights)."""
        from gaia_eval.core.extras import problem
        from gaia_eval.llm.preflight import model_needs

        out: list[str] = []
        if self.maker.reference:
            if self.embedder.split(":", 1)[0] == "onnx":
                out += [
                    p
                    for m in ("onnxruntime", "tokenizers")
                    if (p := problem(m, "onnx", f"--embedder {self.embedder}"))
                ]
            pdf = next(
                (
                    (ds, d)
                    for ds in self.datasets()
                    for d in ds.documents
                    if Path(d.path).suffix.lower() == ".pdf"
                ),
                None,
            )
            if pdf is not None:
                needed_by = f"dataset {pdf[0].id!r}: reading its PDF {pdf[1].id!r}"
                out += [p for p in [problem("pypdf", "pdf", needed_by)] if p]
                if self.hard_cases:
                    needed_by = "the scanned_pdf hard case (rasterizing a PDF)"
                    out += [p for p in [problem("pypdfium2", "pdf", needed_by)] if p]
        if self.answer_model is not None:
            out += model_needs(self.answer_model, "--model")
        if self.judge is not None:
            out += model_needs(self.judge, "--judge")
        return out

    def endpoints(self) -> list[Endpoint]:
        """The answer model's, the judge's and an `openai:` embedder's servers (the VLM
        is probed with a real image in setup, before anything is indexed)."""
        from gaia_eval.llm.preflight import model_endpoints
        from gaia_eval.llm.spec import parse_model_spec

        out = model_endpoints(self.answer_model, "--model")
        out += model_endpoints(self.judge, "--judge")
        if self.maker.reference and self.embedder.startswith("openai:"):
            out += model_endpoints(parse_model_spec(self.embedder, "--embedder"), "--embedder")
        return out

    def run_tier(self) -> str:
        """The suite's tier (`pr`), or for a run of your own data its dataset ids."""
        return self.tier or "+".join(ds.id for ds in self.datasets())

    def _settings(self, vlm: bool | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dense_depth": DENSE_DEPTH,
            "vlm": vlm,
            "questions_digest": {ds.id: questions_digest(ds) for ds in self.datasets()},
        }
        if self.answer_model is not None:
            # Only when answers are on, so a retrieval-only header is unchanged.
            out["answer_model"] = self.answer_model.text
        if self.local_model is not None:
            from gaia_eval.llm.local_server import RECORD_KEY

            out[RECORD_KEY] = self.local_model.comparable()
        if self.scale_plan is not None:  # full suite only: the pr header is unchanged
            out["scale"] = {
                "tiers": list(self.scale_plan.tiers),
                "distractors": self.scale_plan.distractors,
                "ann_from": self.scale_plan.ann_from,
            }
        return out

    def header_fields(self) -> HeaderFields:
        reference = self.maker.reference
        return HeaderFields(
            tier=self.run_tier(),
            system=self.maker.label,
            embedder=self.embedder if reference else None,
            model=self.vlm if reference else None,
            judge=self.judge.text if self.judge else None,
            settings=self._settings((self.vlm is not None) if reference else None),
            pending=() if reference else PLUGIN_PENDING,
        )

    def items(self) -> list[Item]:
        out = [
            Item(f"{ds.id}/{q.id}", definition=_definition(ds, q), payload=(i, q))
            for i, ds in enumerate(self.datasets())
            for q in ds.questions
        ]
        if self.scale_plan is not None:
            out += [
                Item(
                    f"{summary.SCALE_PREFIX}{tier}",
                    definition=["scale", tier, self.scale_plan.distractors],
                    payload=("scale", tier),
                )
                for tier in self.scale_plan.tiers
            ]
        if self.hard_cases:
            out += [
                Item(
                    f"{summary.HARD_PREFIX}{fn.__name__}",
                    definition=["hard_case", fn.__name__],
                    payload=fn,
                )
                for fn in hard_cases.PR_CASES
            ]
            if self.answer_model is not None:
                out.append(
                    Item(
                        f"{summary.HARD_PREFIX}prompt_injection",
                        definition=["hard_case", "prompt_injection"],
                        payload=partial(answer_cases.prompt_injection, model=self.answer_model),
                    )
                )
            if self.near_duplicates is not None:
                out.append(
                    Item(
                        f"{summary.HARD_PREFIX}near_duplicate_filings",
                        definition=["hard_case", "near_duplicate_filings"],
                        payload=partial(self._near_duplicates),
                    )
                )
                if self.answer_model is not None:
                    out.append(
                        Item(
                            f"{summary.HARD_PREFIX}query_history_leak",
                            definition=["hard_case", "query_history_leak"],
                            payload=partial(full_cases.query_history_leak, model=self.answer_model),
                        )
                    )
        return out

    # ---- set-up: index, locate, resolve --------------------------------------------------

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:
        self._work = Path(ctx.setup["_temp"])
        if self.local_model is not None:
            from gaia_eval.llm.local_server import RECORD_KEY

            # The report prints its note before any number.
            ctx.setup[RECORD_KEY] = self.local_model.model_dump(mode="json")
        if self.license_notes is not None:
            ctx.setup["sources"] = self.license_notes
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
            return self._hard_case(item.payload)
        if item.payload[0] == "scale":
            return self._scale_tier(item.payload[1])
        n, q = item.payload
        ds = self.datasets()[n]
        return self._measure(self._indexed[ds.id], ds, q, answers=True)

    def _measure(self, idx: Indexed, ds: Dataset, q: Question, *, answers: bool) -> QuestionResult:
        t0 = time.perf_counter()
        sdk_hits = idx.system.search(q.question, DENSE_DEPTH)[:DENSE_DEPTH]
        sdk_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        agent_hits = idx.system.agent_search(q.question)
        agent_s = time.perf_counter() - t0
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
            label_overlap=self._label_overlap(idx, q),
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

    # ---- reading results (files alone): summary.py, gate.py, report.py ---------------

    @classmethod
    def summarise(cls, env: Envelope) -> BaseModel:
        return summary.summarise(env)

    @classmethod
    def comparable_fields(cls, header: Header) -> dict[str, Any]:
        return gate.comparable_fields(header)

    @classmethod
    def gate_comparable_fields(cls, header: Header) -> dict[str, Any]:
        return gate.gate_comparable_fields(header)

    @classmethod
    def gate_rules(cls) -> GateRules:
        return gate.rules()

    @classmethod
    def gate_metrics(cls, env: Envelope) -> dict[str, Metric]:
        return gate.metrics(env)

    @classmethod
    def gate_checks(cls, env: Envelope) -> dict[tuple[str, str], bool | None]:
        return gate.checks(env)

    @classmethod
    def gate_extra(cls, baseline: Envelope, current: Envelope) -> tuple[list[str], list[str]]:
        return gate.extra(baseline, current)

    @classmethod
    def warnings(cls, env: Envelope) -> list[str]:
        return report.warnings(env)

    @classmethod
    def headline(cls, env: Envelope) -> list[tuple[str, str]]:
        return report.headline(env)

    @classmethod
    def report_sections(cls, env: Envelope) -> list[Section]:
        return report.sections(env)

    @classmethod
    def compare_metrics(cls, env: Envelope) -> list[ItemMetric]:
        return gate.compare_metrics(env)


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


__all__ = ["SUITE", "DatasetSource", "RagSuite", "questions_digest"]
