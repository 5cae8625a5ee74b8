"""The code-retrieval summary and report sections (pure: an envelope in, models and blocks out).

The gate's verdict (what was compared, every failure) comes first from the engine's
standard header; then quality per summary set, the per-query table, the incremental replay,
robustness in words, and scale. Units: seconds with two decimals, sizes in GiB with two decimals.
"""

from __future__ import annotations

from pydantic import BaseModel

from gaia_eval.code_retrieval.models import (
    CodeSummary,
    Excluded,
    Incremental,
    QualitySummary,
    QueryRecord,
    Robustness,
    Scale,
    ScaleRepo,
)
from gaia_eval.code_retrieval.quality import distinct_sets, summarize
from gaia_eval.core.report import NOTHING_MEASURED, Bullets, Para, Report, Section, Table
from gaia_eval.core.results import Envelope, ItemRecord

_METRICS = (
    "file_recall@1",
    "file_recall@5",
    "file_recall@10",
    "file_mrr",
    "symbol_recall@5",
    "symbol_recall@10",
    "symbol_mrr",
)
_PART_OF: dict[str, type[BaseModel]] = {
    "quality": QueryRecord,
    "incremental": Incremental,
    "robustness": Robustness,
}
_WORDS = {
    "correct": "answers correctly",
    "raised": "fails loudly (raises)",
    "silent-empty": "silently returns nothing",
    "silent-wrong": "silently returns wrong results",
}


def _f(v: float | None, digits: int = 4) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def item_result(record: ItemRecord) -> BaseModel | None:
    if record.result is None:
        return None
    part = record.id.split("/", 1)[0]
    model = _PART_OF.get(part, ScaleRepo)
    return model.model_validate(record.result)


def summarise(env: Envelope) -> CodeSummary:
    asked = env.header.item_ids
    parts = [p for p in ("quality", "incremental", "robustness", "scale") if any(
        i.split("/", 1)[0] == p for i in asked
    )]  # fmt: skip
    out = CodeSummary(parts=parts)
    by_part: dict[str, list[ItemRecord]] = {}
    for rec in env.items:
        by_part.setdefault(rec.id.split("/", 1)[0], []).append(rec)
    if "quality" in parts:
        records = [
            QueryRecord.model_validate(r.result) for r in by_part.get("quality", []) if r.result
        ]
        excluded = [Excluded.model_validate(e) for e in env.setup.get("excluded", [])]
        lost = [r for r in by_part.get("quality", []) if r.status != "ok"]
        excluded += [
            Excluded(id=r.id.removeprefix("quality/"), reason=f"unmeasured: {r.error}")
            for r in lost
        ]
        counted = [r.index for r in records if r.index and r.index.vectors_computed is not None]
        out.quality = QualitySummary(
            summary=summarize(records),
            excluded=excluded,
            scored=sum(1 for r in records if r.status == "scored"),
            skipped=sum(1 for r in records if r.status == "skipped"),
            unmeasured=len(lost),
            vectors_from_cache=sum(i.vectors_from_cache or 0 for i in counted) if counted else None,
            vectors_computed=sum(i.vectors_computed or 0 for i in counted) if counted else None,
        )
    for part in ("incremental", "robustness"):
        found = next((r for r in by_part.get(part, []) if r.result), None)
        if found is not None:
            setattr(out, part, _PART_OF[part].model_validate(found.result))
    if "scale" in parts:
        recs = by_part.get("scale", [])
        out.scale = Scale(
            repos=[ScaleRepo.model_validate(r.result) for r in recs if r.result],
            errors=[
                Excluded(id=r.id.removeprefix("scale/"), reason=r.error or "unmeasured")
                for r in recs
                if r.status != "ok"
            ],
        )
    return out


def headline(env: Envelope) -> list[tuple[str, str]]:
    s = CodeSummary.model_validate(env.summary)
    out: list[tuple[str, str]] = []
    if s.quality is not None and "all" in s.quality.summary:
        a = s.quality.summary["all"]
        out.append(("queries scored", f"{s.quality.scored} ({s.quality.unmeasured} unmeasured)"))
        for m in ("file_recall@5", "file_mrr", "symbol_recall@5"):
            if not s.quality.scored:  # no query counted: a 0.0000 mean would read as a score
                out.append((f"semantic {m} (grep)", NOTHING_MEASURED))
                continue
            out.append(
                (f"semantic {m} (grep)", f"{_f(a.semantic.get(m))} ({_f(a.lexical.get(m))})")
            )
    if s.incremental is not None:
        out.append(("incremental replay", "correct" if s.incremental.correct else "DRIFTED"))
    if s.robustness is not None:
        t = s.robustness.totals
        out.append(
            ("robustness", f"{t['passed']} passed, {t['failed']} failed, {t['not_run']} not run")
        )
    return out


def sections(env: Envelope) -> list[Section]:
    s = CodeSummary.model_validate(env.summary)
    out: list[Section] = []
    if s.quality is not None:
        out.append(_quality(env, s.quality))
    if s.incremental is not None:
        out.append(_incremental(s.incremental))
    if s.robustness is not None:
        out.append(_robustness(s.robustness))
    if s.scale is not None:
        out.append(_scale(s.scale))
    return out


def _quality(env: Envelope, q: QualitySummary) -> Section:
    sec = Section("Quality")
    sec.blocks.append(
        Para(
            f"Scored {q.scored}; skipped {q.skipped} (no gold file in the index); "
            f"unmeasured (infrastructure) **{q.unmeasured}**; excluded {len(q.excluded)}. "
            "`semantic` is the code index under test, `grep` the native whole-word baseline; "
            "recall@k is the share of gold files (symbols) in the first k results."
            + (
                f" Chunk vectors: {q.vectors_from_cache} from the embedding cache, "
                f"{q.vectors_computed} computed."
                if q.vectors_computed is not None
                else ""
            )
        )
    )
    for name, st in distinct_sets(q.summary).items():
        wl = st.semantic_vs_lexical_file_rr
        rows = [[m, _f(st.semantic.get(m)), _f(st.lexical.get(m))] for m in _METRICS]
        sec.blocks.append(
            Table(
                ["metric", "semantic", "grep"],
                rows,
                caption=f"{name}: {st.queries} queries ({st.queries_with_symbols} with symbols); "
                f"semantic vs grep on file rr: {wl.wins} wins, {wl.losses} losses, {wl.ties} ties",
            )
        )
    rows = []
    for rec in env.items:
        if not rec.id.startswith("quality/"):
            continue
        if rec.result is None:
            rows.append(
                [rec.id.removeprefix("quality/"), f"unmeasured: {rec.error}", "–", "–", "–"]
            )
            continue
        x = QueryRecord.model_validate(rec.result)
        gold = ", ".join(x.gold.files) if x.gold else "–"
        sem = _f(x.semantic.files["rr"]) if x.semantic else "–"
        lex = _f(x.lexical.files["rr"]) if x.lexical else "–"
        status = f"{x.status}: {x.reason}" if x.reason else x.status
        rows.append([x.id, status, gold, sem, lex])
    sec.blocks.append(
        Table(["query", "status", "gold files", "semantic file rr", "grep file rr"], rows)
    )
    if q.excluded:
        sec.blocks.append(
            Bullets([f"excluded `{e.id}`: {' '.join(e.reason.split())}" for e in q.excluded])
        )
    return sec


def _incremental(i: Incremental) -> Section:
    state = "**correct**" if i.correct else "**DRIFTED** from a fresh index"
    return Section(
        "Incremental replay",
        [
            Para(
                f"{i.repo} at {i.tip[:12]}, {len(i.commits)} re-indexed commits: {state} "
                f"(stale chunks {i.only_in_incremental}, missing {i.only_in_fresh}, count "
                f"mismatches {i.duplicate_count_mismatches}, lowest vector cosine "
                f"{_f(i.min_vector_cosine)}). First index {i.first_index_seconds:.2f} s, fresh "
                f"index of the tip {i.fresh_index_seconds:.2f} s, re-index step median "
                f"{i.step_seconds_p50:.2f} s, slowest {i.step_seconds_max:.2f} s; probes with an "
                f"identical top 10: {i.probe_identical_top10} of {len(i.commits)}, mean "
                f"overlap@10 {i.probe_mean_overlap_at_10:.2f}."
            )
        ],
    )


def _robustness(rb: Robustness) -> Section:
    t = rb.totals
    rows = [
        [
            sc.name,
            _WORDS.get(sc.search.outcome, sc.search.outcome),
            _WORDS.get(sc.reindex.outcome, sc.reindex.outcome),
            "pass" if sc.passed else "**FAIL**",  # coloured, with a symbol, in report.html
            "yes" if sc.recovers else "**no**",
        ]
        for sc in rb.scenarios
    ]
    hazards = [[h.name, h.status, h.detail] for h in rb.trees]
    return Section(
        "Robustness",
        [
            Para(
                f"Target {rb.target}: {t['passed']} passed, {t['failed']} failed, "
                f"{t['not_run']} not run. A scenario passes when no phase is silent; it "
                "recovers when re-indexing gives correct results."
            ),
            Table(
                [
                    "cache damage",
                    "searching the damaged cache",
                    "after re-indexing",
                    "result",
                    "recovers",
                ],
                rows,
            ),
            Table(["tree hazard", "status", "detail"], hazards),
        ],
    )


def _scale(sc: Scale) -> Section:
    rows = [
        [
            r.repo,
            r.commit[:12],
            f"{r.files}{' (scan limit hit)' if r.discovery_truncated else ''}",
            str(r.chunks),
            f"{r.index_seconds:.2f}",
            f"{r.chunks_per_second:.1f}",
            f"{r.peak_rss_mb / 1024:.2f}",
            f"{r.index_bytes / 2**30:.2f}",
            f"{r.cold_query_ms / 1000:.2f}",
            f"{r.query_p50_ms / 1000:.2f}",
            f"{r.query_p95_ms / 1000:.2f}",
            "–" if r.wall_seconds is None else f"{r.wall_seconds:.2f}",
        ]
        for r in sc.repos
    ]
    blocks: list[Para | Table | Bullets] = [
        Para(f"Measured {len(sc.repos)}; unmeasured **{len(sc.errors)}**. Reported, never gated."),
        Table(
            ["repo", "commit", "files", "chunks", "index s", "chunks/s", "peak RSS GiB",
             "index GiB", "cold query s", "query p50 s", "query p95 s", "wall s"],
            rows,
        ),
    ]  # fmt: skip
    if sc.errors:
        blocks.append(
            Bullets([f"**unmeasured** {e.id}: {' '.join(e.reason.split())}" for e in sc.errors])
        )
    return Section("Scale", list(blocks))


REPORT = Report(headline=headline, sections=sections)
