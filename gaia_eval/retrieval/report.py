"""The RAG suite's report sections, on the one report writer (core/report.py; pure).

The engine puts what makes the numbers untrustworthy first (run errors, unmeasured and
crashed items, and this suite's `warnings`: documents that did not index, unlocated
chunks), then the gate verdict, then the headline; these sections follow: how to read the
tables, each dataset, the hard cases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gaia_eval.core import charts
from gaia_eval.core.report import (
    NOTHING_MEASURED,
    Block,
    Bullets,
    Chart,
    Para,
    Report,
    Section,
    Table,
    fmt,
)
from gaia_eval.retrieval.gate import DEFAULT_TOLERANCE, WIDEN_ITEMS
from gaia_eval.retrieval.hard_cases import PR_CASES, TITLES
from gaia_eval.retrieval.models import (
    DENSE_DEPTH,
    DatasetSummary,
    HardCase,
    QuestionResult,
    RagSetup,
    RagSummary,
)
from gaia_eval.retrieval.sources import PINNED_KEY, PINNED_NOTE
from gaia_eval.retrieval.summary import HARD_PREFIX, is_hard_case, questions, result_of

if TYPE_CHECKING:
    from gaia_eval.core.results import Envelope

_CASE_ORDER = {fn.__name__: i for i, fn in enumerate(PR_CASES)}


def headline(env: Envelope) -> list[tuple[str, str]]:
    s = RagSummary.model_validate(env.summary)
    out = []
    for d in s.datasets:
        q = d.summary
        if not q.questions:  # stopped before a question finished: no mean to show
            out.append((f"{d.dataset}: sdk R@5 / MRR", NOTHING_MEASURED))
            continue
        out.append(
            (
                f"{d.dataset}: sdk R@5 / MRR",
                f"{q.sdk.recall_at_5:.3f} / {q.sdk.mrr:.3f} ({q.questions} questions)",
            )
        )
        out.append(
            (
                f"{d.dataset}: agent R@returned",
                f"{q.agent.recall_at_returned:.3f} ({q.agent.mean_returned:.2f} chunks returned)",
            )
        )
        if q.answers is not None:
            a = q.answers
            acc = "–" if a.accuracy is None else f"{a.accuracy:.3f}"
            out.append(
                (
                    f"{d.dataset}: answer accuracy",
                    f"{acc} ({a.correct} of {a.scored} scored; "
                    f"{a.outcomes.get('retrieval_miss', 0)} retrieval misses, "
                    f"{a.outcomes.get('generation_miss', 0)} generation misses, "
                    f"{a.outcomes.get('unscored', 0)} unscored)",
                )
            )
    if s.hard_cases is not None:
        counts: dict[str, int] = {}
        for status in s.hard_cases.values():
            word = "crashed" if status == "error" else status
            counts[word] = counts.get(word, 0) + 1
        # "6 of 6 pass" reads at once; the other outcomes follow with their counts.
        passed = counts.pop("pass", 0)
        rest = [f"{n} {k}" for k, n in sorted(counts.items())]
        out.append(("hard cases", ", ".join([f"{passed} of {len(s.hard_cases)} pass", *rest])))
    return out


def sections(env: Envelope) -> list[Section]:
    s = RagSummary.model_validate(env.summary)
    setup = RagSetup.model_validate(env.setup)
    by_ds = questions(env)
    out = [_guide(s, setup)]
    out += [_dataset(d, by_ds.get(d.dataset, [])) for d in s.datasets]
    from gaia_eval.retrieval.report_scale import canary_section, scale_section, sources_section

    extra = (scale_section(env), canary_section(env), sources_section(env))
    out += [sec for sec in extra if sec is not None]
    if s.hard_cases is not None:
        out.append(_hard_cases(env))
    return out


def _guide(s: RagSummary, setup: RagSetup) -> Section:
    system = setup.system
    cap = f"at most {system.max_chunks}" if system and system.max_chunks else "the"
    rules = "; ".join(
        f"`{d.dataset}`: max({DEFAULT_TOLERANCE:g}, {WIDEN_ITEMS:g}/{d.summary.questions}) = "
        f"{max(DEFAULT_TOLERANCE, WIDEN_ITEMS / d.summary.questions):.4f}"
        for d in s.datasets
        if d.summary.questions
    )
    lines = [
        f"`sdk`: the plain pipeline, `search(question, {DENSE_DEPTH})` (dense embedding "
        "search); R@k is the share of questions whose first chunk holding the evidence ranks "
        "within the top k, MRR the mean of 1/that rank (a miss counts 0).",
        f"`agent`: what an agent's tool call gets, `agent_search(question)`: {cap} chunks the "
        "system picks (the reference mixes dense, keyword and expansion scores and cuts weak "
        "hits); scored on the list it actually returns.",
        "`R@returned`: the share of questions where any chunk the agent pipeline returned "
        "holds the evidence, i.e. what the model gets to read at all.",
        f"dense depth {DENSE_DEPTH}: the sdk search asks for {DENSE_DEPTH} chunks; evidence "
        f"below rank {DENSE_DEPTH} is a miss, so R@{DENSE_DEPTH} is the sdk ceiling.",
        "`sdk, document level` row: any chunk of an evidence document in the sdk top k, "
        "right passage or not; it tells a wrong document from a wrong passage.",
        "Gate: per dataset, sdk R@5, sdk MRR and agent R@returned may each drop by "
        f"max(tolerance, {WIDEN_ITEMS:g}/n) for n questions, tolerance {DEFAULT_TOLERANCE:g} "
        f"unless `--tolerance` says otherwise ({rules or 'no questions measured'}).",
    ]
    answered = any(d.summary.answers is not None for d in s.datasets)
    if answered:
        lines.append(
            "Answers: the sdk pipeline's top chunks go to the model in a fresh conversation "
            "per question. Numeric golds match within 1% (unit scales, percent vs fraction); "
            "short answers must appear in the reply as whole words; free-form answers are "
            "graded only by a judge (`--judge`), else unscored. A wrong answer is a "
            "**retrieval miss** when no chunk sent held the evidence, a **generation miss** "
            "when one did. Answers are reported, never gated."
        )
    if system is not None:
        lines.append(
            f"System `{system.name}`: chunks of {system.chunk_size}, overlap "
            f"{system.chunk_overlap}"
            + ("." if answered else "; answers are not generated (retrieval only).")
        )
    return Section("How to read this", [Bullets(lines)])


def warnings(env: Envelope) -> list[str]:
    """What makes the numbers untrustworthy: documents that did not index, unlocated
    chunks, questions scored as misses for it, a run that did not finish them all."""
    s = RagSummary.model_validate(env.summary)
    lines: list[str] = []
    head = env.header
    if not head.complete:
        done = {r.id for r in env.items if r.status != "infra_error"}
        qs = [i for i in head.item_ids if not is_hard_case(i)]
        hc = [i for i in head.item_ids if is_hard_case(i)]
        lines.append(
            f"Measured so far: {sum(i in done for i in qs)} of {len(qs)} questions"
            + (f", {sum(i in done for i in hc)} of {len(hc)} hard cases" if hc else "")
            + "; the numbers below cover what finished."
        )
    pinned = env.setup.get(PINNED_KEY)
    if isinstance(pinned, list) and pinned:
        lines.append(
            f"{len(pinned)} corpus file(s) {PINNED_NOTE}: " + ", ".join(f"`{p}`" for p in pinned)
        )
    for d in s.datasets:
        ix = d.index
        if ix is None:
            lines.append(f"`{d.dataset}`: indexing did not finish")
            continue
        for fd in ix.failed:
            req = "required (holds evidence)" if fd.required else "not required"
            lines.append(
                f"`{d.dataset}`: document `{fd.doc}` did not index ({fd.status}, {req}): "
                f"{fd.error or 'no reason given'}"
            )
        lines += [f"`{d.dataset}`: document `{doc}` indexed only in part" for doc in ix.degraded]
        if ix.unlocated_chunks:
            lines.append(
                f"`{d.dataset}`: {ix.unlocated_chunks} chunks could not be located in their "
                "document's text"
            )
        canaries = [
            r.id
            for r in env.items
            if r.result
            and isinstance(r.result.get("answer"), dict)
            and r.result["answer"].get("canary")
        ]
        if canaries and d is s.datasets[0]:
            lines.append(
                f"{len(canaries)} answers carry the prompt-injection canary CANARY-7Q4 (a "
                f"planted instruction took over): {', '.join(canaries)}"
            )
        if d.summary.evidence_not_indexed:
            lines.append(
                f"`{d.dataset}`: {d.summary.evidence_not_indexed} questions scored as misses "
                "because their evidence document did not index"
            )
    return lines


def _dataset(d: DatasetSummary, qs: list[QuestionResult]) -> Section:
    s = d.summary
    blocks: list[Block] = [Para(d.description)] if d.description else []
    checked = [q.label_overlap for q in qs if q.label_overlap is not None]
    if checked:
        ok = sum(1 for v in checked if v >= 0.5)
        blocks.append(
            Para(
                f"Label check: for {ok} of {len(checked)} page-labelled questions at least "
                "half the annotator's evidence words are on the labelled page "
                f"(annotator_text_on_page_ge_0.5 = {ok / len(checked):.3f})."
            )
        )
    if d.documents_outside:
        outside = ", ".join(f"`{doc}`" for doc in d.documents_outside)
        blocks.append(Para(f"Documents outside the dataset folder (allowed): {outside}"))
    if not s.questions:
        blocks.append(
            Para(
                "Nothing measured: no question of this dataset finished (the run stopped "
                "first), so there is no recall, MRR or latency to show."
            )
        )
        blocks += _index(d) if d.index is not None else []
        return Section(f"Dataset `{d.dataset}` (0 of {d.questions_total} questions)", blocks)
    header = ["pipeline", "R@1", "R@3", "R@5", "R@10", "R@20", "MRR", "R@returned"]
    header += ["mean returned", "p50 ms", "p95 ms"]
    na = "–"
    rows = [
        [
            f"sdk (dense top-{DENSE_DEPTH})",
            fmt(s.sdk.recall_at_1),
            fmt(s.sdk.recall_at_3),
            fmt(s.sdk.recall_at_5),
            fmt(s.sdk.recall_at_10),
            fmt(s.sdk.recall_at_20),
            fmt(s.sdk.mrr),
            na,
            na,
            fmt(s.sdk_latency.p50_ms, 1),
            fmt(s.sdk_latency.p95_ms, 1),
        ],
        [
            "sdk, document level",
            fmt(s.sdk_document.recall_at_1),
            na,
            fmt(s.sdk_document.recall_at_5),
            *[na] * 7,
        ],
        [
            "agent (tool call)",
            fmt(s.agent.recall_at_1),
            fmt(s.agent.recall_at_3),
            fmt(s.agent.recall_at_5),
            na,
            na,
            fmt(s.agent.mrr),
            fmt(s.agent.recall_at_returned),
            fmt(s.agent.mean_returned, 2),
            fmt(s.agent_latency.p50_ms, 1),
            fmt(s.agent_latency.p95_ms, 1),
        ],
    ]
    blocks.append(Table(header, rows))
    blocks.append(
        Chart(
            charts.lines(
                {
                    "sdk": [
                        (1, s.sdk.recall_at_1),
                        (3, s.sdk.recall_at_3),
                        (5, s.sdk.recall_at_5),
                        (10, s.sdk.recall_at_10),
                        (20, s.sdk.recall_at_20),
                    ],
                    "agent": [
                        (1, s.agent.recall_at_1),
                        (2, s.agent.recall_at_2),
                        (3, s.agent.recall_at_3),
                        (4, s.agent.recall_at_4),
                        (5, s.agent.recall_at_5),
                    ],
                },
                x_label="k (rank cut-off)",
                y_label="recall@k",
            ),
            f"recall@k of both pipelines on {d.dataset}",
        )
    )
    blocks += _answers(d, qs)
    blocks += _by_tag(d)
    missed = [q for q in qs if q.sdk_rank is None and q.agent_rank is None]
    if missed:
        blocks.append(Para(f"**Missed by both pipelines** ({len(missed)}):"))
        blocks.append(
            Bullets(
                [
                    f"`{q.id}` (`{q.doc}`): {q.question or '(question text not recorded)'}"
                    + (" — evidence not indexed" if q.evidence_not_indexed else "")
                    for q in missed
                ]
            )
        )
    if d.index is not None:
        ix = d.index
        if not (ix.failed or ix.degraded or ix.unlocated_chunks):
            blocks.append(Para("Every document indexed and every chunk was located."))
        blocks += _index(d)
    if qs:
        blocks.append(
            Chart(
                charts.histogram([q.sdk_latency_s * 1000 for q in qs], unit=" ms"),
                f"sdk search latency per question on {d.dataset}",
            )
        )
    measured = f"{s.questions} questions" + (
        f" of {d.questions_total}" if s.questions != d.questions_total else ""
    )
    return Section(f"Dataset `{d.dataset}` ({measured})", blocks)


def _answers(d: DatasetSummary, qs: list[QuestionResult]) -> list[Block]:
    a = d.summary.answers
    if a is None:
        return []
    rows = [[name.replace("_", " "), str(n)] for name, n in a.outcomes.items()]
    blocks: list[Block] = [
        Table(
            ["answer outcome", "questions"],
            rows,
            caption=f"Answers: accuracy {fmt(a.accuracy)} ({a.correct} of {a.scored} scored, "
            f"{a.answered} answered; model p50 {fmt(a.latency.p50_ms, 0)} ms)",
        )
    ]
    tags = [(t, v) for t, v in d.by_tag.items() if v.answer_accuracy is not None]
    if tags:
        blocks.append(
            Table(
                ["tag", "questions", "answer accuracy"],
                [[t, str(v.questions), fmt(v.answer_accuracy)] for t, v in tags],
                caption="Answer accuracy by tag",
            )
        )
    wrong = [q for q in qs if q.answer is not None and q.answer.correct is False]
    if wrong:
        blocks.append(Para(f"**Wrong answers** ({len(wrong)}):"))
        blocks.append(
            Bullets(
                [
                    f"`{q.id}` ({q.answer.outcome.replace('_', ' ')}): "
                    f"{q.answer.text[:160] or '(empty reply)'}"
                    for q in wrong
                    if q.answer is not None
                ]
            )
        )
    return blocks


def _by_tag(d: DatasetSummary) -> list[Block]:
    """Only the tags that differ from the dataset's total by more than one question's
    worth (1/n of the tag) in either metric; the rest are named in one line."""
    total = d.summary
    r5, ret = total.sdk.recall_at_5, total.agent.recall_at_returned
    shown, hidden = [], []
    for tag, t in d.by_tag.items():
        one = 1 / t.questions if t.questions else 1.0
        if abs(t.sdk_recall_at_5 - r5) > one + 1e-9 or abs(t.agent_recall_at_returned - ret) > (
            one + 1e-9
        ):
            shown.append(
                [tag, str(t.questions), fmt(t.sdk_recall_at_5), fmt(t.agent_recall_at_returned)]
            )
        else:
            hidden.append(tag)
    if not d.by_tag:
        return []
    blocks: list[Block] = []
    if shown:
        blocks.append(
            Table(
                ["tag", "questions", "sdk R@5", "agent R@returned"],
                [["(all)", str(total.questions), fmt(r5), fmt(ret)], *shown],
                caption="By tag: the tags that differ from the total by more than one question",
            )
        )
    if hidden:
        blocks.append(
            Para(
                f"{len(hidden)} other tags are within one question of the total: "
                + ", ".join(f"`{t}`" for t in hidden)
                + "."
            )
        )
    return blocks


def _index(d: DatasetSummary) -> list[Block]:
    ix = d.index
    assert ix is not None
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
        ["cache on disk", "–" if ix.cache_on_disk_mb is None else f"{ix.cache_on_disk_mb:.2f} MiB"],
        ["unlocated chunks", str(ix.unlocated_chunks)],
    ]
    if ix.vectors_from_cache is not None and ix.vectors_computed is not None:
        rows.append(
            [
                "chunk vectors",
                f"{ix.vectors_from_cache} from the embedding cache, {ix.vectors_computed} computed",
            ]
        )
    blocks: list[Block] = [Table(["index", "value"], rows, caption="Index")]
    slow = sorted(ix.per_document, key=lambda x: (-x.seconds, x.doc))[:5]
    if slow:
        blocks.append(
            Table(
                ["document", "status", "chunks", "pages", "seconds", "bytes"],
                [
                    [x.doc, x.status, str(x.chunks), str(x.pages), f"{x.seconds:.2f}", str(x.bytes)]
                    for x in slow
                ],
                caption="Slowest documents",
            )
        )
    return blocks


def _hard_cases(env: Envelope) -> Section:
    rows: list[tuple[str, str, str, str]] = []
    for rec in env.items:
        if not is_hard_case(rec.id):
            continue
        cid = rec.id.removeprefix(HARD_PREFIX)
        res = result_of(rec)
        if isinstance(res, HardCase):
            rows.append((cid, res.status, res.title, res.finding))
        elif rec.status == "error":
            rows.append((cid, "**crashed**", TITLES.get(cid, cid), rec.error or ""))
        else:
            rows.append((cid, "unmeasured", TITLES.get(cid, cid), rec.error or ""))
    if not rows:
        return Section("Hard cases", [Para("None run yet.")])
    rows.sort(key=lambda r: (_CASE_ORDER.get(r[0], len(_CASE_ORDER)), r[0]))
    return Section(
        "Hard cases",
        [Table(["case", "status", "what", "finding"], [list(r) for r in rows])],
    )


__all__ = ["headline", "sections", "warnings"]


REPORT = Report(headline=headline, sections=sections, warnings=warnings)
