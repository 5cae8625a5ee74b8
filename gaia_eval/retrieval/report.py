"""`report.md` of a RAG retrieval run (pure: results in, markdown out).

Order matters: what makes the numbers untrustworthy (run errors, documents that failed
to index, unlocated chunks) comes first, then the gate verdict, then the headline.
"""

from __future__ import annotations

from gaia_eval.retrieval.gate import GateVerdict
from gaia_eval.retrieval.models import DatasetResult, HardCase, RetrievalResults


def _f(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _rank(rank: int | None) -> str:
    return "miss" if rank is None else str(rank)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def render(results: RetrievalResults, verdict: GateVerdict | None = None) -> str:
    """The whole report."""
    meta = results.meta
    lines = [f"# RAG retrieval — suite `{meta.suite}`", ""]
    lines += [
        f"- system: {meta.system}" + (f" ({meta.rag_settings.name})" if meta.rag_settings else ""),
        f"- embedder: `{meta.embedder}`; VLM: "
        + (f"on ({meta.vlm.model})" if meta.vlm.enabled else "off")
        + f"; dense depth {meta.dense_depth}; answers: {'on' if meta.answers else 'off'}",
        f"- started {meta.started}, {_f(meta.duration_s, 1)} s wall, {_f(meta.cpu_s, 1)} s CPU; "
        f"gaia-eval {meta.package_version}"
        f", git {(meta.git_sha or 'none')[:12]}{' (dirty)' if meta.git_dirty else ''}",
        f"- machine: {meta.machine.cpu}, {meta.machine.logical_cpus} CPUs, "
        f"{meta.machine.ram_gb} GiB, {meta.machine.os}, {meta.machine.python}",
        "",
    ]
    lines += _failures(results)
    if verdict is not None:
        lines += render_gate(verdict)
    for ds in results.datasets:
        lines += _dataset(ds)
    if results.hard_cases is not None:
        lines += _hard_cases(results.hard_cases)
    return "\n".join(lines).rstrip() + "\n"


def _failures(results: RetrievalResults) -> list[str]:
    lines = ["## Failures and infrastructure", ""]
    found = False
    if not results.meta.complete:
        lines.append("- **The run did not complete**; the numbers below cover what finished.")
        found = True
    for err in results.meta.errors:
        lines.append(f"- run error: {err}")
        found = True
    for ds in results.datasets:
        if ds.index is None:
            lines.append(f"- `{ds.dataset}`: indexing did not finish")
            found = True
            continue
        for fd in ds.index.failed:
            req = "required (holds evidence)" if fd.required else "not required"
            lines.append(
                f"- `{ds.dataset}`: document `{fd.doc}` did not index ({fd.status}, {req}): "
                f"{fd.error or 'no reason given'}"
            )
            found = True
        for doc in ds.index.degraded:
            lines.append(f"- `{ds.dataset}`: document `{doc}` indexed only in part (degraded)")
            found = True
        if ds.index.unlocated_chunks:
            lines.append(
                f"- `{ds.dataset}`: {ds.index.unlocated_chunks} chunks could not be located "
                "in their document's text"
            )
            found = True
        if ds.summary.evidence_not_indexed:
            lines.append(
                f"- `{ds.dataset}`: {ds.summary.evidence_not_indexed} questions scored as "
                "misses because their evidence document did not index"
            )
            found = True
    if results.hard_cases:
        for case in results.hard_cases:
            if case.status == "error":
                lines.append(f"- hard case `{case.id}` crashed: {case.finding}")
                found = True
    if not found:
        lines.append("None: every document indexed and every chunk was located.")
    return [*lines, ""]


def render_gate(verdict: GateVerdict) -> list[str]:
    """The gate section: verdict, failures, metric checks, flipped questions."""
    word = "PASS" if verdict.passed else "FAIL"
    lines = [f"## Gate: {word} (tolerance {verdict.tolerance})", ""]
    lines += [f"- FAIL: {f}" for f in verdict.failures]
    if verdict.checks:
        if lines[-1]:
            lines.append("")
        rows = [
            [
                c.dataset,
                c.metric,
                _f(c.baseline, 4),
                _f(c.current, 4),
                _f(c.allowed_drop, 4),
                "ok" if c.passed else "**FAIL**",
            ]
            for c in verdict.checks
        ]
        lines += _table(["dataset", "metric", "baseline", "current", "allowed drop", ""], rows)
    if verdict.flips:
        lines += ["", "Questions whose sdk hit@5 flipped:", ""]
        rows = [
            [
                f.dataset,
                f.question,
                _rank(f.baseline_rank),
                _rank(f.current_rank),
                "FAIL→PASS" if f.now_passes else "PASS→FAIL",
            ]
            for f in verdict.flips
        ]
        lines += _table(["dataset", "question", "baseline rank", "current rank", "flip"], rows)
    if verdict.notes:
        lines += ["", *[f"- {n}" for n in verdict.notes]]
    return [*lines, ""]


def _dataset(ds: DatasetResult) -> list[str]:
    s = ds.summary
    lines = [f"## Dataset `{ds.dataset}` ({s.questions} questions)", "", ds.description, ""]
    header = ["pipeline", "R@1", "R@3", "R@5", "R@10", "R@20", "MRR", "R@returned"]
    header += ["mean returned", "p50 ms", "p95 ms"]
    rows = [
        [
            "sdk (dense top-20)",
            _f(s.sdk.recall_at_1),
            _f(s.sdk.recall_at_3),
            _f(s.sdk.recall_at_5),
            _f(s.sdk.recall_at_10),
            _f(s.sdk.recall_at_20),
            _f(s.sdk.mrr),
            "–",
            "–",
            _f(s.sdk_latency.p50_ms, 1),
            _f(s.sdk_latency.p95_ms, 1),
        ],
        [
            "sdk, document level",
            _f(s.sdk_document.recall_at_1),
            "–",
            _f(s.sdk_document.recall_at_5),
            "–",
            "–",
            "–",
            "–",
            "–",
            "–",
            "–",
        ],
        [
            "agent (tool, ≤5 chunks)",
            _f(s.agent.recall_at_1),
            _f(s.agent.recall_at_3),
            _f(s.agent.recall_at_5),
            "–",
            "–",
            _f(s.agent.mrr),
            _f(s.agent.recall_at_returned),
            _f(s.agent.mean_returned, 2),
            _f(s.agent_latency.p50_ms, 1),
            _f(s.agent_latency.p95_ms, 1),
        ],
    ]
    lines += _table(header, rows)
    if ds.by_tag:
        lines += ["", "### By tag", ""]
        rows = [
            [tag, str(t.questions), _f(t.sdk_recall_at_5), _f(t.agent_recall_at_returned)]
            for tag, t in ds.by_tag.items()
        ]
        lines += _table(["tag", "questions", "sdk R@5", "agent R@returned"], rows)
    missed = [q for q in ds.questions if q.sdk_rank is None and q.agent_rank is None]
    if missed:
        lines += ["", "### Missed by both pipelines", ""]
        lines += [
            f"- `{q.id}` (`{q.doc}`)"
            + (" — evidence not indexed" if q.evidence_not_indexed else "")
            for q in missed
        ]
    if ds.index is not None:
        ix = ds.index
        lines += ["", "### Index", ""]
        rows = [
            ["documents indexed", f"{ix.indexed} / {ix.documents}"],
            ["chunks", str(ix.chunks)],
            ["embedder load", f"{ix.embedder_load_s:.2f} s"],
            ["index time", f"{ix.index_s:.2f} s"],
            ["throughput", f"{ix.chunks_per_s:.1f} chunks/s, {ix.docs_per_s:.2f} docs/s"],
            [
                "resident memory",
                f"{ix.rss_start_mb:.0f} → peak {ix.rss_peak_mb:.0f} → {ix.rss_end_mb:.0f} MiB",
            ],
            ["vectors", "–" if ix.vectors_mb is None else f"{ix.vectors_mb:.2f} MiB"],
            ["chunk text", f"{ix.chunk_text_mb:.2f} MiB"],
            [
                "cache on disk",
                "–" if ix.cache_on_disk_mb is None else f"{ix.cache_on_disk_mb:.2f} MiB",
            ],
            ["unlocated chunks", str(ix.unlocated_chunks)],
        ]
        lines += _table(["", ""], rows)
        slow = sorted(ix.per_document, key=lambda d: (-d.seconds, d.doc))[:5]
        if slow:
            lines += ["", "Slowest documents:", ""]
            rows = [
                [d.doc, d.status, str(d.chunks), str(d.pages), f"{d.seconds:.2f}", str(d.bytes)]
                for d in slow
            ]
            lines += _table(["document", "status", "chunks", "pages", "seconds", "bytes"], rows)
    return [*lines, ""]


def _hard_cases(cases: list[HardCase]) -> list[str]:
    lines = ["## Hard cases", ""]
    if not cases:
        return [*lines, "None run.", ""]
    rows = [[c.id, c.status, c.title, c.finding.replace("|", "\\|")] for c in cases]
    lines += _table(["case", "status", "what", "finding"], rows)
    return [*lines, ""]
