"""Hand-made RAG retrieval results for the pure tests (gate, report, scoring)."""

from __future__ import annotations

from typing import Any

from gaia_eval.core.runmeta import Machine
from gaia_eval.retrieval import scoring
from gaia_eval.retrieval.models import (
    DatasetResult,
    DocumentStats,
    FailedDocument,
    HardCase,
    IndexStats,
    QuestionResult,
    RetrievalMeta,
    RetrievalResults,
    SystemSettings,
    VlmSetting,
)

MACHINE = Machine(cpu="Test CPU", logical_cpus=2, ram_gb=8.0, os="Linux 6", python="CPython 3.11")


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


def dataset(
    questions: list[QuestionResult],
    *,
    name: str = "toy",
    digest: str = "abc123",
    failed: list[FailedDocument] | None = None,
) -> DatasetResult:
    return DatasetResult(
        dataset=name,
        description="A toy dataset.",
        source="builtin:toy",
        questions_digest=digest,
        index=index_stats(failed),
        summary=scoring.summarize(questions),
        by_tag=scoring.by_tag(questions),
        questions=questions,
    )


def case(cid: str, status: str, finding: str = "ok") -> HardCase:
    return HardCase.model_validate(
        {"id": cid, "title": cid.replace("_", " "), "status": status, "finding": finding}
    )


def results(
    datasets: list[DatasetResult],
    *,
    suite: str = "pr",
    embedder: str = "hash",
    vlm: bool = False,
    hard_cases: list[HardCase] | None = None,
    complete: bool = True,
    **meta: Any,
) -> RetrievalResults:
    return RetrievalResults(
        meta=RetrievalMeta(
            suite=suite,
            package_version="0.1.0",
            started="2026-11-30T01:00:00+00:00",
            duration_s=12.5,
            git_sha="0123456789abcdef",
            git_dirty=False,
            machine=MACHINE,
            system="reference",
            embedder=embedder,
            vlm=VlmSetting(enabled=vlm, model="vlm-x" if vlm else None),
            rag_settings=SystemSettings(name="gaia_eval.systems.rag", chunk_size=200),
            complete=complete,
            **meta,
        ),
        datasets=datasets,
        hard_cases=hard_cases,
    )
