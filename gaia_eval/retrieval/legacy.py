"""Convert a pre-engine RAG results file (schema 1, `RetrievalResults`) to an envelope.

The committed baseline `gaia_eval/baselines/retrieval/pr.json` is such a file and is never
edited: `load_envelope` calls `convert` (registered as the suite's `legacy` converter in
core/suites.toml) whenever a file is not an envelope. The numbers are carried over as
recorded (the per-dataset summaries are the file's, not recomputed); questions become
items `<dataset>/<question id>`, hard cases items `hard/<case>` (a case recorded with
status `error` becomes an item error, as a crash is now).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo
from gaia_eval.retrieval.models import (
    SCHEMA_VERSION,
    DatasetSetup,
    DatasetSummary,
    RagSummary,
    RetrievalResults,
)
from gaia_eval.retrieval.summary import HARD_PREFIX

SUITE = "retrieval-rag"
LEGACY_DIGEST = "schema-1 file: per-dataset question digests in settings.questions_digest"
"""A schema-1 file holds no question texts, so its item-set digest cannot be recomputed;
the suite compares the per-dataset digests (settings) instead."""


def describe(data: dict[str, Any]) -> str | None:
    """An old retrieval results file (of either component), named in an error."""
    meta = data.get("meta")
    if isinstance(meta, dict) and meta.get("component"):
        return f"a {meta['component']} retrieval results file"
    return None


def convert(data: dict[str, Any]) -> dict[str, Any] | None:
    """The envelope of a schema-1 RAG results document; None when it is not one."""
    meta = data.get("meta")
    if not isinstance(meta, dict) or meta.get("component") != "rag":
        return None
    version = data.get("schema")
    if version != SCHEMA_VERSION:
        msg = (
            f"field 'schema' is {version!r}; this gaia-eval reads RAG retrieval results of "
            f"schema {SCHEMA_VERSION} (or envelopes); regenerate the file with this version"
        )
        raise InvalidInputError(msg)
    try:
        old = RetrievalResults.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        msg = (
            f"a RAG retrieval results file (schema 1) with field '{where}': {first['msg']} "
            f"({err.error_count()} problem(s) in all)"
        )
        raise InvalidInputError(msg) from err
    if not old.datasets:
        msg = (
            "a RAG retrieval results file whose `datasets` is empty: it measured nothing, so "
            "it cannot gate; use the results.json of a run that ran its datasets"
        )
        raise InvalidInputError(msg)
    return to_envelope(old).model_dump(mode="json", by_alias=True)


def _tier(old: RetrievalResults) -> str:
    # New runs name --dataset / --beir runs by their datasets; a suite run by its suite.
    if all(d.source.startswith("builtin:") for d in old.datasets):
        return old.meta.suite
    return "+".join(d.dataset for d in old.datasets)


def to_envelope(old: RetrievalResults) -> Envelope:
    meta = old.meta
    items: list[ItemRecord] = []
    for ds in old.datasets:
        for q in ds.questions:
            items.append(
                ItemRecord(
                    id=f"{ds.dataset}/{q.id}",
                    status="ok",
                    result=q.model_dump(mode="json", by_alias=True),
                    commit=meta.git_sha,
                    ran_at=meta.started,
                    seconds=round(q.sdk_latency_s + q.agent_latency_s, 6),
                )
            )
    for case in old.hard_cases or []:
        crashed = case.status == "error"
        items.append(
            ItemRecord(
                id=f"{HARD_PREFIX}{case.id}",
                status="error" if crashed else "ok",
                result=None if crashed else case.model_dump(mode="json", by_alias=True),
                error=case.finding if crashed else None,
                commit=meta.git_sha,
                ran_at=meta.started,
            )
        )
    setup: dict[str, Any] = {
        "datasets": [
            DatasetSetup(
                dataset=d.dataset,
                description=d.description,
                source=d.source,
                questions_digest=d.questions_digest,
                questions=len(d.questions),
                documents=d.index.documents if d.index else 0,
            ).model_dump(mode="json")
            for d in old.datasets
        ],
        "system": meta.rag_settings.model_dump(mode="json") if meta.rag_settings else None,
    }
    setup |= {
        f"index/{d.dataset}": d.index.model_dump(mode="json")
        for d in old.datasets
        if d.index is not None
    }
    summary = RagSummary(
        datasets=[
            DatasetSummary(
                dataset=d.dataset,
                description=d.description,
                source=d.source,
                questions_digest=d.questions_digest,
                questions_total=len(d.questions),
                index=d.index,
                summary=d.summary,
                by_tag=d.by_tag,
            )
            for d in old.datasets
        ],
        hard_cases=None if old.hard_cases is None else {c.id: c.status for c in old.hard_cases},
    )
    header = Header(
        suite=SUITE,
        tier=_tier(old),
        system=meta.system,
        embedder=meta.embedder,
        model=meta.vlm.model if meta.vlm.enabled else None,
        settings={
            "dense_depth": meta.dense_depth,
            "vlm": meta.vlm.enabled,
            "questions_digest": {d.dataset: d.questions_digest for d in old.datasets},
        },
        definition_digest=LEGACY_DIGEST,
        items_total=len(items),
        item_ids=[i.id for i in items],
        complete=meta.complete,
        interrupted=any(e.startswith("Terminated") for e in meta.errors),
        errors=list(meta.errors),
        item_errors=sum(1 for i in items if i.status == "error"),
        commits=[meta.git_sha] if meta.git_sha else [],
        run=RunInfo(
            package_version=meta.package_version,
            commit=meta.git_sha,
            dirty=meta.git_dirty,
            started=meta.started,
            duration_s=meta.duration_s,
            cpu_s=meta.cpu_s,
            machine=meta.machine,
            argv=["retrieval", "--component", "rag", "--suite", meta.suite],
        ),
    )
    return Envelope(
        header=header,
        items=items,
        setup=setup,
        summary=summary.model_dump(mode="json", by_alias=True),
    )
