"""Read code-retrieval results written before the suite engine (schema 1, `component: code`).

The committed baselines are such files; they are converted in code on every read and never
edited. Item definitions are rebuilt from what the file recorded (repository and commit of
each query, the replay's tip and length, the robustness target and probes, each scale
repository's pin), so the digest equals a new run's exactly when both measured the same
items; a part the file did not run falls back to the suite's definition in code.
"""

from __future__ import annotations

from typing import Any

from gaia_eval.code_retrieval import suites as suites_mod
from gaia_eval.code_retrieval.models import CodeRetrievalResults
from gaia_eval.code_retrieval.report import summarise
from gaia_eval.code_retrieval.runner import (
    REFERENCE_SYSTEM,
    incremental_item,
    robustness_item,
    scale_item,
)
from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo, definition_digest
from gaia_eval.core.runmeta import Machine
from gaia_eval.core.suite import Item


def describe(data: dict[str, Any]) -> str | None:
    """An old code-retrieval results file, named in an error."""
    return "a code-retrieval results file" if "environment" in data and "suite" in data else None


def convert(data: dict[str, Any]) -> dict[str, Any] | None:
    """An envelope document for a pre-engine code-retrieval file, or None if it is not one."""
    if data.get("component") != "code" or data.get("schema") != 1:
        return None
    old = CodeRetrievalResults.model_validate(data)
    suite = suites_mod.SUITES.get(old.suite)
    when = old.started_at
    items: list[Item] = []
    records: list[ItemRecord] = []

    def record(item: Item, result: Any, status: str = "ok", error: str | None = None) -> None:
        items.append(item)
        records.append(
            ItemRecord(
                id=item.id,
                status=status,  # type: ignore[arg-type]
                result=None if result is None else result.model_dump(mode="json"),
                error=error,
                commit=old.environment.gaia_commit,
                ran_at=when,
            )
        )

    if old.quality is not None:
        for q in old.quality.queries:
            item = Item(
                f"quality/{q.id}", definition={"repo": q.repo, "base_commit": q.base_commit}
            )
            if q.status == "error":
                record(item, None, "infra_error", q.reason)
            else:
                record(item, q)
    if old.incremental is not None:
        inc = old.incremental
        record(incremental_item(inc.repo, inc.tip, len(inc.commits) + 1), inc)
    elif suite is not None and suite.replay is not None:
        items.append(incremental_item(*suite.replay))
    if old.robustness is not None:
        rb = old.robustness
        record(robustness_item(rb.target, rb.probes), rb)
    elif suite is not None and suite.robustness is not None:
        name, _c, folder = suite.robustness
        items.append(robustness_item(f"{name}/{folder}", suite.probes))
    pins = dict(suite.scale_repos) if suite is not None else {}
    if old.scale is not None:
        for r in old.scale.repos:
            record(scale_item(r.repo, r.commit), r)
        for e in old.scale.errors:
            record(scale_item(e.id, pins.get(e.id, "")), None, "infra_error", e.reason)
    else:
        items += [scale_item(n, c) for n, c in pins.items()]
    env_ = old.environment
    header = Header(
        suite="code-retrieval",
        tier=old.suite,
        system=env_.system or REFERENCE_SYSTEM,
        embedder=env_.embedding_model,
        settings=old.config.model_dump(mode="json"),
        definition_digest=definition_digest((i.id, i.definition) for i in items),
        items_total=len(items),
        item_ids=[r.id for r in records],
        filtered=len(records) < len(items),
        complete=old.error is None and all(r.status == "ok" for r in records),
        errors=[old.error] if old.error else [],
        infra_errors=sum(1 for r in records if r.status == "infra_error"),
        commits=[env_.gaia_commit] if env_.gaia_commit else [],
        run=RunInfo(
            package_version="0.1.0",
            commit=env_.gaia_commit,
            dirty=env_.gaia_dirty,
            started=when,
            duration_s=old.duration_s,
            machine=Machine(
                cpu=env_.cpu,
                logical_cpus=env_.logical_cpus,
                ram_gb=env_.ram_gb,
                os=env_.os,
                python=env_.python,
            ),
        ),
    )
    env = Envelope(header=header, items=records)
    env.summary = summarise(env).model_dump(mode="json", by_alias=True)
    return env.model_dump(mode="json", by_alias=True)
