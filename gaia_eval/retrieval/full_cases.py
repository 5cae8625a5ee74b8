"""The full suite's own hard cases (docs/retrieval-rag.md).

`near_duplicate_filings`: several years of one company's 10-K filings indexed together
(the same boilerplate, different figures); for each FinanceBench question about one of
them, recall@1/5 on the asked filing's labelled page and the share of the top-5 chunks
that come from the asked year's filing. Measured, no threshold.

`query_history_leak` (answers only): two unrelated questions answered one after the other
through the answering path; it passes when the second question's conversation, as sent
to the model, carries none of the first question's retrieved chunks (their first 200
characters) that were not retrieved for the second one too.
"""

from __future__ import annotations

from pathlib import Path

from gaia_eval.llm.spec import ModelSpec
from gaia_eval.retrieval import answering
from gaia_eval.retrieval.dataset import Question
from gaia_eval.retrieval.evidence import DocumentText, chunk_hits, locate_chunks, resolve_evidence
from gaia_eval.retrieval.hard_cases import Context, _case, _from, _norm, pick_questions
from gaia_eval.retrieval.models import DENSE_DEPTH, HardCase

PREFIX_CHARS = 200


def near_duplicate_filings(
    ctx: Context, filings: dict[str, list[Path]], questions: list[Question]
) -> HardCase:
    cid, title = "near_duplicate_filings", "Near-duplicate filings (several years, one company)"
    paths = {p.stem: p for ps in filings.values() for p in ps}
    asked = [q for q in questions if q.doc in paths and all(e.doc == q.doc for e in q.evidence)]
    if not asked:
        return _case(cid, title, "skipped", "no question of this run asks about those filings")
    system = ctx.maker.make(ctx.work / cid / "cache")
    try:
        for path in paths.values():
            system.index(path)
        texts, located = {}, {}
        for doc, path in paths.items():
            texts[doc] = DocumentText(doc, system.extracted_text(path))
            located[doc] = locate_chunks(
                texts[doc], system.chunks(path), set(system.split_chunks(path))
            )
        rows: list[dict[str, object]] = []
        ranks: list[int | None] = []
        shares: list[float] = []
        for q in asked:
            evidence = [
                resolve_evidence(
                    texts[q.doc], quote=e.quote, page=e.page, near=e.near, question_id=q.id
                )
                for e in q.evidence
            ]
            hits = system.search(q.question, DENSE_DEPTH)
            rank = None
            for r, h in enumerate(hits, start=1):
                loc = located[q.doc]
                if (
                    _from([h], paths[q.doc])
                    and 0 <= h.chunk_index < len(loc)
                    and any(chunk_hits(q.doc, loc[h.chunk_index], ev) for ev in evidence)
                ):
                    rank = r
                    break
            top5 = hits[:5]
            share = len(_from(top5, paths[q.doc])) / len(top5) if top5 else 0.0
            ranks.append(rank)
            shares.append(share)
            rows.append({"question": q.id, "doc": q.doc, "rank": rank, "top5_from_asked": share})
    finally:
        system.close()
    n = len(rows)
    r1 = sum(1 for r in ranks if r is not None and r <= 1) / n
    r5 = sum(1 for r in ranks if r is not None and r <= 5) / n
    share = sum(shares) / n
    details = {
        "filings": {c: [p.stem for p in ps] for c, ps in filings.items()},
        "questions": rows,
        "recall@1": round(r1, 4),
        "recall@5": round(r5, 4),
        "top5_share_from_asked_year": round(share, 4),
    }
    finding = (
        f"{n} questions over {len(paths)} filings of {len(filings)} companies: recall@5 "
        f"{r5:.2f}, {share:.0%} of the top-5 chunks from the asked year's filing"
    )
    return _case(cid, title, "measured", finding, details)


def query_history_leak(ctx: Context, model: ModelSpec) -> HardCase:
    cid, title = "query_history_leak", "Earlier questions' context in later answers"
    picks = pick_questions(ctx, 2)
    if len(picks) < 2:
        return _case(cid, title, "skipped", "fewer than two questions on different documents")
    system = ctx.maker.make(ctx.work / cid / "cache")
    conversations: list[list[dict[str, str]]] = []
    try:
        for q in picks:
            system.index(ctx.paths[q.doc])
        k = system.info().max_chunks or answering.DEFAULT_CONTEXT_CHUNKS
        retrieved = []
        for q in picks:
            hits = system.search(q.question, k)[:k]
            retrieved.append(hits)
            chunks = [
                answering.ContextChunk(Path(h.path).name, h.text, _norm(q.answer) in _norm(h.text))
                for h in hits
            ]
            answering.answer_question(q, chunks, model, None, sent=conversations)
    finally:
        system.close()
    second = "\n".join(m["content"] for m in conversations[1])
    own = {h.text for h in retrieved[1]}
    earlier = [h.text for h in retrieved[0] if h.text not in own]
    leaked = [t[:PREFIX_CHARS] for t in earlier if t[:PREFIX_CHARS] in second]
    details = {
        "questions": [q.id for q in picks],
        "first_chunks_checked": len(earlier),
        "second_messages": len(conversations[1]),
        "leaked": [t[:80] for t in leaked],
    }
    if not earlier:
        return _case(cid, title, "skipped", "both questions retrieved the same chunks", details)
    if leaked:
        finding = f"{len(leaked)} of the first question's chunks were resent with the second"
        return _case(cid, title, "fail", finding, details)
    finding = (
        f"none of the first question's {len(earlier)} chunks were resent; the second "
        f"conversation held {len(conversations[1])} messages"
    )
    return _case(cid, title, "pass", finding, details)


__all__ = ["near_duplicate_filings", "query_history_leak"]
