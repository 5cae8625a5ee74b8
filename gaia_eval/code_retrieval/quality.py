"""The quality part: per query, re-index at the base commit, then score both retrievers."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gaia_eval import _native
from gaia_eval.code_retrieval import gold as gold_mod
from gaia_eval.code_retrieval.instances import Instance
from gaia_eval.code_retrieval.lexical import LexicalBaseline
from gaia_eval.code_retrieval.models import (
    Gold,
    IndexStats,
    QueryRecord,
    Scores,
    SummarySet,
    WinLoss,
)
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.systems.code_index.index import ReferenceCodeIndex
from gaia_eval.systems.code_index.protocol import CodeIndex

SEARCH_DEPTH = 200
FILE_KS = (1, 5, 10)
SYMBOL_KS = (5, 10)
NDCG_K = 10


def recall_rr(gold: list[str], ranked: list[str], ks: tuple[int, ...]) -> dict[str, float]:
    if not gold:
        msg = "recall with an empty gold set"
        raise ValueError(msg)
    g = set(gold)
    out = {f"recall@{k}": len(g & set(ranked[:k])) / len(g) for k in ks}
    out["rr"] = next((1.0 / (i + 1) for i, r in enumerate(ranked) if r in g), 0.0)
    out[f"ndcg@{NDCG_K}"] = ndcg(gold, ranked, NDCG_K)
    return out


def ndcg(gold: list[str], ranked: list[str], k: int) -> float:
    """nDCG@k of one ranking against a binary gold set, by the native ranking kernel."""
    ids = {name: i for i, name in enumerate(dict.fromkeys([*gold, *ranked[:k]]))}
    row = [ids[r] for r in ranked[:k]] + [-1] * (k - len(ranked[:k]))
    g = sorted({ids[x] for x in gold})
    scores = _native.ranking_metrics(
        np.asarray([row], dtype=np.int64),
        np.asarray([0, len(g)], dtype=np.int64),
        np.asarray(g, dtype=np.int64),
        np.ones(len(g), dtype=np.int64),
        [k],
    )
    return float(scores.ndcg[0, 0])


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def symbol_spans(texts: dict[str, str]) -> dict[str, list[tuple[int, int, str]]]:
    """(start, end, qualname) of every symbol of every Python file."""
    return {
        p: [(s.start, s.end, s.qualname) for s in gold_mod.symbols_of(t)]
        for p, t in texts.items()
        if p.endswith(gold_mod.PY_SUFFIXES)
    }


def _bare(name: str) -> str:
    return name.split(" (part ", 1)[0]


def semantic_symbol(
    path: str, symbol: str | None, start: int, spans: dict[str, list[tuple[int, int, str]]]
) -> str | None:
    """Map a chunk to `path::qualname`: the innermost enclosing symbol whose name matches."""
    if not symbol:
        return None
    bare = _bare(symbol)
    leaf = bare.rsplit(".", 1)[-1]
    best: tuple[int, str] | None = None
    for s, e, q in spans.get(path, []):
        if s <= start <= e and q.rsplit(".", 1)[-1] == leaf and (best is None or e - s < best[0]):
            best = (e - s, q)
    return f"{path}::{best[1] if best else bare}"


def score_query(
    inst: Instance,
    tree: Path,
    index: CodeIndex,
    texts: Callable[[], dict[str, str]],
    base_text: Callable[[str], str | None],
) -> QueryRecord:
    t0 = time.perf_counter()
    report = index.index()
    stats = IndexStats(
        seconds=round(time.perf_counter() - t0, 3),
        files_reparsed=report.files_reparsed,
        chunks=report.chunks,
        chunks_dropped=report.chunks_dropped,
        vectors_from_cache=report.vectors_from_cache,
        vectors_computed=report.chunks_embedded - report.vectors_from_cache,
    )
    indexed = set(index.indexed_files())
    changes = gold_mod.parse_patch(inst.patch)
    modified = [c for c in changes if not c.created]
    files = [c.path for c in modified if c.path in indexed]
    symbols: list[str] = []
    for c in modified:
        if c.path not in indexed or not c.path.endswith(gold_mod.PY_SUFFIXES) or c.deleted:
            continue
        base = base_text(c.path)
        if base is None:
            msg = f"{inst.instance_id}: patched file {c.path} is missing at {inst.base_commit}"
            raise InvalidInputError(msg)
        symbols.extend(f"{c.path}::{q}" for q in gold_mod.gold_symbols(c, base))
    gold = Gold(
        files=files,
        symbols=_dedupe(symbols),
        created_files=[c.path for c in changes if c.created],
        not_in_index=[c.path for c in modified if c.path not in indexed],
    )
    record = QueryRecord(
        id=inst.instance_id,
        source=inst.source,
        repo=inst.repo,
        base_commit=inst.base_commit,
        created_at=inst.created_at,
        query_chars=len(inst.problem_statement),
        status="scored",
        gold=gold,
        index=stats,
    )
    if not files:
        record.status, record.reason = "skipped", "no gold file is in the index"
        return record
    corpus = texts()
    spans = symbol_spans(corpus)
    # Semantic.
    t1 = time.perf_counter()
    hits = index.search(inst.problem_statement, SEARCH_DEPTH)
    sem_seconds = time.perf_counter() - t1
    sem_files = _dedupe([h.chunk.file_path for h in hits])
    sem_syms = _dedupe(
        [
            s
            for h in hits
            if (
                s := semantic_symbol(
                    h.chunk.file_path, h.chunk.symbol_name, h.chunk.start_line, spans
                )
            )
        ]
    )
    record.semantic = _scores(sem_seconds, sem_files, sem_syms, gold)
    # Lexical, over exactly the files the index holds, read from the tree in C++ (the
    # build the grep benchmark times; hits equal those over the decoded texts).
    t2 = time.perf_counter()
    lex = LexicalBaseline.from_tree(tree, [p for p in indexed if p in corpus]).search(
        inst.problem_statement, spans
    )
    lex_seconds = time.perf_counter() - t2
    record.lexical = _scores(
        lex_seconds,
        [p for p, _ in lex.files],
        [f"{p}::{q}" for p, q, _ in lex.symbols],
        gold,
    )
    record.lexical.identifiers = lex.identifiers
    return record


def _scores(seconds: float, files: list[str], syms: list[str], gold: Gold) -> Scores:
    return Scores(
        seconds=round(seconds, 4),
        top_files=files[:10],
        top_symbols=syms[:10],
        files=recall_rr(gold.files, files, FILE_KS),
        symbols=recall_rr(gold.symbols, syms, SYMBOL_KS) if gold.symbols else None,
    )


def _mean(values: list[float]) -> float | None:
    vals = [v for v in values if not math.isnan(v)]
    return round(sum(vals) / len(vals), 4) if vals else None


def _metrics(rows: list[Scores]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for k in FILE_KS:
        out[f"file_recall@{k}"] = _mean([r.files[f"recall@{k}"] for r in rows])
    out["file_mrr"] = _mean([r.files["rr"] for r in rows])
    # Runs written before nDCG was reported lack it (NaN is skipped; None if all lack it).
    out[f"file_ndcg@{NDCG_K}"] = _mean([r.files.get(f"ndcg@{NDCG_K}", math.nan) for r in rows])
    with_syms = [r.symbols for r in rows if r.symbols is not None]
    for k in SYMBOL_KS:
        out[f"symbol_recall@{k}"] = _mean([s[f"recall@{k}"] for s in with_syms])
    out["symbol_mrr"] = _mean([s["rr"] for s in with_syms])
    return out


def distinct_sets(summary: dict[str, SummarySet]) -> dict[str, SummarySet]:
    """The summary sets that say something: `all` is left out when the run has one query
    set, of which it is an exact copy (the report and the gate would show every number
    twice). Baseline and current go through the same rule, so gates stay comparable."""
    if len(summary) == 2 and "all" in summary:
        return {name: st for name, st in summary.items() if name != "all"}
    return dict(summary)


def summarize(records: list[QueryRecord]) -> dict[str, SummarySet]:
    scored = [r for r in records if r.status == "scored" and r.semantic and r.lexical]
    sets = {"all": scored}
    for src in sorted({r.source for r in scored}):
        sets[src] = [r for r in scored if r.source == src]
    out: dict[str, SummarySet] = {}
    for name, rows in sets.items():
        sem = [r.semantic for r in rows if r.semantic]
        lex = [r.lexical for r in rows if r.lexical]
        w = sum(1 for s, x in zip(sem, lex, strict=True) if s.files["rr"] > x.files["rr"])
        lo = sum(1 for s, x in zip(sem, lex, strict=True) if s.files["rr"] < x.files["rr"])
        out[name] = SummarySet(
            queries=len(rows),
            queries_with_symbols=sum(1 for r in rows if r.gold and r.gold.symbols),
            semantic=_metrics(sem),
            lexical=_metrics(lex),
            semantic_vs_lexical_file_rr=WinLoss(wins=w, losses=lo, ties=len(rows) - w - lo),
        )
    return out


def reference_texts(index: CodeIndex, root: Path) -> Callable[[], dict[str, str]]:
    """The decoded texts the index read (reference index), else read them from the tree."""

    def get() -> dict[str, str]:
        if isinstance(index, ReferenceCodeIndex) and index.last_texts:
            return index.last_texts
        from gaia_eval.systems.code_index.discovery import read_source

        out: dict[str, str] = {}
        for rel in index.indexed_files():
            src = read_source(root, rel)
            if src.text is not None:
                out[rel] = src.text
        return out

    return get
