"""Hand-made RAG retrieval envelopes for the pure tests (gate, report, scoring)."""

from __future__ import annotations

from dataclasses import dataclass

from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo
from gaia_eval.core.runmeta import Machine
from gaia_eval.retrieval.models import (
    DatasetSetup,
    DocumentStats,
    FailedDocument,
    HardCase,
    IndexStats,
    QuestionResult,
    SystemSettings,
)
from gaia_eval.retrieval.suite import RagSuite

MACHINE = Machine(cpu="Test CPU", logical_cpus=2, ram_gb=8.0, os="Linux 6", python="CPython 3.11")
STARTED = "2026-11-30T01:00:00+00:00"


def question(
    qid: str,
    sdk: int | None,
    agent: int | None = None,
    *,
    doc_rank: int | None = None,
    returned: int = 5,
    tags: tuple[str, ...] = ("text",),
    latency: float = 0.01,
    not_indexed: bool = False,
) -> QuestionResult:
    return QuestionResult(
        id=qid,
        dataset="toy",
        doc="d1",
        question=f"What does {qid} ask?",
        tags=list(tags),
        language="en",
        answer_type="exact",
        sdk_rank=sdk,
        sdk_doc_rank=doc_rank if doc_rank is not None else sdk,
        agent_rank=agent,
        agent_returned=returned,
        sdk_latency_s=latency,
        agent_latency_s=latency * 2,
        evidence_not_indexed=not_indexed,
    )


def index_stats(failed: list[FailedDocument] | None = None) -> IndexStats:
    failed = failed or []
    return IndexStats(
        documents=3,
        indexed=3 - len(failed),
        failed=failed,
        required_failed=sum(1 for f in failed if f.required),
        degraded=[],
        chunks=120,
        embedding_dim=384,
        embedder_load_s=0.5,
        index_s=2.0,
        docs_per_s=1.5,
        chunks_per_s=60.0,
        rss_start_mb=100.0,
        rss_peak_mb=180.0,
        rss_end_mb=170.0,
        rss_growth_mb=80.0,
        vectors_mb=0.18,
        chunk_text_mb=0.1,
        cache_on_disk_mb=0.4,
        unlocated_chunks=0,
        per_document=[
            DocumentStats(
                doc=f"d{i}",
                status="indexed",
                seconds=0.5 + i / 10,
                chunks=40,
                pages=0,
                from_cache=False,
                bytes=1000 * i,
            )
            for i in range(1, 4)
        ],
    )


@dataclass
class DatasetRun:
    """One dataset of a hand-made run."""

    name: str
    questions: list[QuestionResult]
    digest: str
    index: IndexStats | None
    total: int | None = None
    """Questions in the dataset (default: those given)."""


def dataset(
    questions: list[QuestionResult],
    *,
    name: str = "toy",
    digest: str = "abc123",
    failed: list[FailedDocument] | None = None,
    total: int | None = None,
) -> DatasetRun:
    qs = [q.model_copy(update={"dataset": name}) for q in questions]
    return DatasetRun(name, qs, digest, index_stats(failed), total)


def case(cid: str, status: str, finding: str = "ok") -> HardCase:
    return HardCase.model_validate(
        {"id": cid, "title": cid.replace("_", " "), "status": status, "finding": finding}
    )


def _record(item_id: str, result: QuestionResult | HardCase) -> ItemRecord:
    if isinstance(result, HardCase) and result.status == "error":  # a crash, as the engine
        return ItemRecord(id=item_id, status="error", error=result.finding, ran_at=STARTED)
    return ItemRecord(
        id=item_id,
        status="ok",
        result=result.model_dump(mode="json", by_alias=True),
        commit="0123456789abcdef",
        ran_at=STARTED,
    )


def results(
    datasets: list[DatasetRun],
    *,
    suite: str = "pr",
    embedder: str = "hash",
    vlm: bool = False,
    hard_cases: list[HardCase] | None = None,
    complete: bool = True,
    errors: list[str] | None = None,
    item_ids: list[str] | None = None,
    shard: str | None = None,
) -> Envelope:
    """A RAG envelope as the engine writes it (the summary by the suite's summarise);
    `item_ids` default to the ids of the items given (what the run was asked to run)."""
    items = [_record(f"{d.name}/{q.id}", q) for d in datasets for q in d.questions]
    items += [_record(f"hard/{c.id}", c) for c in hard_cases or []]
    setup: dict[str, object] = {
        "datasets": [
            DatasetSetup(
                dataset=d.name,
                description="A toy dataset.",
                source="builtin:toy",
                questions_digest=d.digest,
                questions=d.total if d.total is not None else len(d.questions),
                documents=3,
            ).model_dump(mode="json")
            for d in datasets
        ],
        "system": SystemSettings(
            name="gaia_eval.systems.rag", chunk_size=200, chunk_overlap=20, max_chunks=5
        ).model_dump(mode="json"),
    }
    setup |= {f"index/{d.name}": d.index.model_dump(mode="json") for d in datasets if d.index}
    header = Header(
        suite="retrieval-rag",
        tier=suite,
        system="reference",
        embedder=embedder,
        model="vlm-x" if vlm else None,
        settings={
            "dense_depth": 20,
            "vlm": vlm,
            "questions_digest": {d.name: d.digest for d in datasets},
        },
        definition_digest="test",
        items_total=len(items),
        item_ids=item_ids if item_ids is not None else [r.id for r in items],
        shard=shard,
        complete=complete,
        errors=list(errors or []),
        item_errors=sum(1 for r in items if r.status == "error"),
        commits=["0123456789abcdef"],
        run=RunInfo(
            package_version="0.1.0",
            commit="0123456789abcdef",
            dirty=False,
            started=STARTED,
            duration_s=12.5,
            machine=MACHINE,
            argv=["retrieval", "--component", "rag", "--suite", suite],
        ),
    )
    env = Envelope(header=header, items=items, setup=setup)
    env.summary = RagSuite.summarise(env).model_dump(mode="json", by_alias=True)
    return env
