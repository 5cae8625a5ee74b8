"""report.md for a code-retrieval run (pure)."""

from __future__ import annotations

from gaia_eval.code_retrieval.models import CodeRetrievalResults

_METRICS = (
    "file_recall@1",
    "file_recall@5",
    "file_recall@10",
    "file_mrr",
    "symbol_recall@5",
    "symbol_recall@10",
    "symbol_mrr",
)


def _f(v: object) -> str:
    return "-" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v)


def render(r: CodeRetrievalResults, baseline: CodeRetrievalResults | None = None) -> str:
    env = r.environment
    out = [
        f"# Code retrieval: suite `{r.suite}`",
        "",
        f"- started {r.started_at}, {_f(r.duration_s)} s; parts: {', '.join(r.parts)}",
        f"- embedder `{env.embedding_model}`, system `{env.system}`",
        f"- machine {env.machine}: {env.cpu}, {env.logical_cpus} CPUs, {env.ram_gb} GB, "
        f"Python {env.python}, gaia_eval {env.gaia_commit or '?'}"
        f"{' (dirty)' if env.gaia_dirty else ''}",
    ]
    if r.error:
        out += ["", f"**The run stopped with an error:** `{r.error}`"]
    if r.quality is not None:
        q = r.quality
        errors = [x for x in q.queries if x.status == "error"]
        skipped = [x for x in q.queries if x.status == "skipped"]
        out += [
            "",
            "## Quality",
            "",
            f"Unmeasured (infrastructure errors): **{len(errors)}**; skipped: {len(skipped)}; "
            f"excluded: {len(q.excluded)}.",
        ]
        for name, s in q.summary.items():
            wl = s.semantic_vs_lexical_file_rr
            out += [
                "",
                f"### `{name}`: {s.queries} queries ({s.queries_with_symbols} with symbols); "
                f"semantic vs grep on file rr: {wl.wins} wins, {wl.losses} losses, {wl.ties} ties",
                "",
                "| metric | semantic | grep baseline |"
                + (" baseline semantic |" if baseline else ""),
                "|---|---|---|" + ("---|" if baseline else ""),
            ]
            b_set = baseline.quality.summary.get(name) if baseline and baseline.quality else None
            for m in _METRICS:
                row = f"| {m} | {_f(s.semantic.get(m))} | {_f(s.lexical.get(m))} |"
                if baseline:
                    row += f" {_f(b_set.semantic.get(m) if b_set else None)} |"
                out.append(row)
        out += [
            "",
            "| query | status | gold files | semantic file rr | grep file rr |",
            "|---|---|---|---|---|",
        ]
        for x in q.queries:
            gold = ", ".join(x.gold.files) if x.gold else "-"
            sem = _f(x.semantic.files["rr"]) if x.semantic else "-"
            lex = _f(x.lexical.files["rr"]) if x.lexical else "-"
            status = f"{x.status}: {x.reason}" if x.reason else x.status
            out.append(f"| {x.id} | {status} | {gold} | {sem} | {lex} |")
    if r.incremental is not None:
        i = r.incremental
        out += [
            "",
            "## Incremental replay",
            "",
            f"{i.repo} at {i.tip[:12]}, {len(i.commits)} re-indexed commits: "
            f"**{'correct' if i.correct else 'DRIFTED'}** (stale {i.only_in_incremental}, missing "
            f"{i.only_in_fresh}, count mismatches {i.duplicate_count_mismatches}, min cosine "
            f"{_f(i.min_vector_cosine)}); first index {i.first_index_seconds} s, fresh "
            f"{i.fresh_index_seconds} s, step p50 {i.step_seconds_p50} s, "
            f"max {i.step_seconds_max} s; "
            f"probes identical {i.probe_identical_top10}/{len(i.commits)}, mean overlap@10 "
            f"{i.probe_mean_overlap_at_10}.",
        ]
    if r.robustness is not None:
        rb = r.robustness
        t = rb.totals
        out += [
            "",
            "## Robustness",
            "",
            f"Target {rb.target}: {t['passed']} passed, {t['failed']} failed, "
            f"{t['not_run']} not run.",
            "",
            "| scenario | search | reindex | passed | recovers |",
            "|---|---|---|---|---|",
        ]
        for sc in rb.scenarios:
            out.append(
                f"| {sc.name} | {sc.search.outcome} | {sc.reindex.outcome} | {sc.passed} "
                f"| {sc.recovers} |"
            )
        out += ["", "| hazard | status | detail |", "|---|---|---|"]
        out += [f"| {h.name} | {h.status} | {h.detail} |" for h in rb.trees]
    if r.scale is not None:
        out += _scale(r)
    if r.comparison is not None:
        c = r.comparison
        out += ["", "## Gate", "", f"**{'PASS' if c.get('passed') else 'FAIL'}**"]
        failures = c.get("failures")
        if isinstance(failures, list):
            out += [f"- {f}" for f in failures]
    return "\n".join(out) + "\n"


def _scale(r: CodeRetrievalResults) -> list[str]:
    assert r.scale is not None
    out = [
        "",
        "## Scale (reported, not gated)",
        "",
        f"Measured: {len(r.scale.repos)}; unmeasured: **{len(r.scale.errors)}**.",
        "",
        "| repo | commit | files | chunks | index s | chunks/s | peak RSS MB | index MB | cold ms "
        "| p50 ms | p95 ms | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sr in r.scale.repos:
        files = f"{sr.files}{' (scan limit hit)' if sr.discovery_truncated else ''}"
        out.append(
            f"| {sr.repo} | {sr.commit[:12]} | {files} | {sr.chunks} | {sr.index_seconds} | "
            f"{sr.chunks_per_second} | {sr.peak_rss_mb} | {sr.index_bytes / 2**20:.1f} | "
            f"{sr.cold_query_ms} | {sr.query_p50_ms} | {sr.query_p95_ms} | "
            f"{'-' if sr.wall_seconds is None else sr.wall_seconds} |"
        )
    if r.scale.errors:
        out.append("")
    # Git's own messages run over several lines; one line each keeps the list readable.
    out += [f"- **unmeasured** {e.id}: {' '.join(e.reason.split())}" for e in r.scale.errors]
    return out
