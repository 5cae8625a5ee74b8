"""The full suite's datasets, built from the checked corpus cache (sources.py).

- `repo_docs`: the committed dataset, as in `pr`.
- `technical_docs`: `data/technical_docs.json`, hand-labelled questions whose documents
  are `{id, source, file}` entries of the manifest (the AMD Instinct documents and the
  two-column arXiv paper); the entries are resolved to cache paths and the file is then
  loaded and validated like any dataset.
- `financebench`: the 150 open-source questions (`data/financebench_open_source.jsonl`)
  over the filings they cite; evidence is page-only (upstream pages are 0-based, so +1),
  the annotator's evidence text kept as `label_text`. Numeric-shaped golds are `numeric`,
  the rest `judge`. `--financebench-docs N`: the first N cited filings by name.
- `xquad-<lang>`: one dataset per language; each article is a markdown file ("# Title",
  then its paragraphs); questions are drawn one per paragraph, round-robin across articles
  (every article's first paragraph, then every second one, ...), 40 per language, each
  the paragraph's first question and first answer (`exact`); the evidence quote is the
  sentence holding the answer, the search hint the paragraph's first 80 characters.

Every dataset then goes through the same set-up as `pr`: its quotes and pages are
resolved against the text the system extracts, on every run, and a label that is not
there stops the run naming the question.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import atomic_write_bytes
from gaia_eval.retrieval.answers import is_numeric_gold
from gaia_eval.retrieval.dataset import (
    DATA_DIR,
    QUOTE_MAX,
    QUOTE_MIN,
    Dataset,
    DocumentRef,
    EvidenceLabel,
    Question,
    collapse,
    load_dataset,
)
from gaia_eval.retrieval.sources import Corpus, Wanted

FULL_DATASETS = ("repo_docs", "technical_docs", "financebench", "xquad")
XQUAD_LANGUAGES = ("en", "de", "es", "ru", "zh", "ar", "hi")
XQUAD_PER_LANGUAGE = 40
FB_QUESTIONS = Wanted("financebench", "data/financebench_open_source.jsonl")
TECHNICAL = DATA_DIR / "technical_docs.json"
NEAR_DUP_COMPANIES = 2
"""Companies whose several years of 10-K filings the near-duplicate case indexes."""
_SENTENCE_END = re.compile(r"\. |。|।")


@dataclass(frozen=True)
class FullOptions:
    """What a `--suite full` run covers (the narrowing flags)."""

    datasets: tuple[str, ...] = FULL_DATASETS
    xquad_languages: tuple[str, ...] = XQUAD_LANGUAGES
    financebench_docs: int | None = None
    """The first N cited filings by name (None: all)."""

    def wants(self, name: str) -> bool:
        return name in self.datasets


def parse_datasets(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(datasets, XQuAD languages named as `xquad-<lang>`): the docs and the report call
    the per-language datasets `xquad-de`, so `--datasets xquad-de` means `xquad` in `de`."""
    names: list[str] = []
    langs: list[str] = []
    bad: list[str] = []
    for n in dict.fromkeys(n.strip() for n in text.split(",") if n.strip()):
        if n.startswith("xquad-") and n[6:] in XQUAD_LANGUAGES:
            names.append("xquad")
            langs.append(n[6:])
        elif n in FULL_DATASETS:
            names.append(n)
        else:
            bad.append(n)
    if bad or not names:
        msg = (
            f"--datasets {text!r}: unknown dataset(s) {', '.join(bad) or '(none given)'}; "
            f"choose from {', '.join(FULL_DATASETS)}, or xquad-<lang> for one language "
            f"({', '.join(XQUAD_LANGUAGES)})"
        )
        raise InvalidInputError(msg)
    whole = "xquad" in [n for n in dict.fromkeys(text.replace(" ", "").split(","))]
    return tuple(dict.fromkeys(names)), () if whole else tuple(langs)


def parse_languages(text: str) -> tuple[str, ...]:
    langs = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    bad = [n for n in langs if n not in XQUAD_LANGUAGES]
    if bad or not langs:
        msg = (
            f"--xquad-languages {text!r}: not pinned: {', '.join(bad) or '(none given)'}; "
            f"the manifest pins {', '.join(XQUAD_LANGUAGES)}"
        )
        raise InvalidInputError(msg)
    return langs


# ---- which files a run needs -----------------------------------------------------------


def _technical_raw() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(TECHNICAL.read_text(encoding="utf-8"))
    return raw


def first_files(opts: FullOptions) -> list[Wanted]:
    """Files known before anything is read: labels, technical documents, XQuAD."""
    out: list[Wanted] = []
    if opts.wants("financebench"):
        out.append(FB_QUESTIONS)
    if opts.wants("technical_docs"):
        out += [Wanted(d["source"], d["file"]) for d in _technical_raw()["documents"]]
    if opts.wants("xquad"):
        out += [Wanted("xquad", f"xquad.{lang}.json") for lang in opts.xquad_languages]
    return out


def _fb_rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            msg = f"{path}: line {n} is not JSON ({err.msg}); the cached file is damaged"
            raise InvalidInputError(msg) from None
        rows.append(row)
    return rows


def _evidence_docs(row: dict[str, Any]) -> list[str]:
    return [str(e.get("doc_name") or row["doc_name"]) for e in row.get("evidence") or []]


def financebench_docs(corpus: Corpus, opts: FullOptions) -> list[str]:
    """The cited filings the run indexes (sorted by name, the first N)."""
    rows = _fb_rows(corpus.check(FB_QUESTIONS))
    cited = sorted({d for r in rows for d in [r["doc_name"], *_evidence_docs(r)]})
    return cited[: opts.financebench_docs] if opts.financebench_docs else cited


def pdf_file(doc: str) -> Wanted:
    return Wanted("financebench", f"pdfs/{doc}.pdf")


def near_duplicate_filings(corpus: Corpus, docs: Sequence[str]) -> dict[str, list[str]]:
    """Company -> its 10-K filings in the manifest (checkable ones, at least two), for the
    companies with the most filings among those a question of this run asks about."""
    files = corpus.manifest.sources.get("financebench")
    if files is None:
        return {}
    by_company: dict[str, list[str]] = defaultdict(list)
    for name in files.files:
        m = re.fullmatch(r"pdfs/(([A-Z0-9]+)_(\d{4})_10K)\.pdf", name)
        if m and (corpus.pin_unverified or corpus.entry(Wanted("financebench", name)).verified):
            by_company[m.group(2)].append(m.group(1))
    asked = {d.split("_", 1)[0] for d in docs}
    ranked = sorted(
        (c for c, f in by_company.items() if c in asked and len(f) >= 2),
        key=lambda c: (-len(by_company[c]), c),
    )
    return {c: sorted(by_company[c]) for c in ranked[:NEAR_DUP_COMPANIES]}


def second_files(corpus: Corpus, opts: FullOptions, hard_cases: bool) -> list[Wanted]:
    """Files named by the first ones: the FinanceBench filings (and near duplicates)."""
    if not opts.wants("financebench"):
        return []
    docs = financebench_docs(corpus, opts)
    out = [pdf_file(d) for d in docs]
    if hard_cases:
        for filings in near_duplicate_filings(corpus, docs).values():
            out += [pdf_file(d) for d in filings if pdf_file(d) not in out]
    return out


# ---- building the datasets -------------------------------------------------------------


def technical_docs(corpus: Corpus, derived: Path) -> Dataset:
    raw = _technical_raw()
    docs = []
    for d in raw["documents"]:
        path = corpus.check(Wanted(d["source"], d["file"]))
        docs.append({"id": d["id"], "path": str(path)})
    resolved = {**raw, "documents": docs}
    out = derived / "technical_docs.json"
    atomic_write_bytes(out, json.dumps(resolved, ensure_ascii=False, indent=1).encode("utf-8"))
    # The documents are the cache's checked corpus files, outside `derived/` by design.
    return load_dataset(out, allow_outside=True)


def financebench(corpus: Corpus, opts: FullOptions) -> Dataset:
    path = corpus.check(FB_QUESTIONS)
    rows = _fb_rows(path)
    docs = financebench_docs(corpus, opts)
    chosen = set(docs)
    questions: list[Question] = []
    for row in rows:
        ev_docs = _evidence_docs(row)
        if row["doc_name"] not in chosen or any(d not in chosen for d in ev_docs):
            continue
        evidence = [
            EvidenceLabel(
                doc=d,
                page=int(e["evidence_page_num"]) + 1,  # upstream pages are 0-based
                label_text=e.get("evidence_text") or None,
            )
            for d, e in zip(ev_docs, row["evidence"], strict=True)
        ]
        gold = str(row["answer"])
        qtype = str(row.get("question_type") or "unknown")
        tags = [qtype, "pdf", "long_document"]
        if qtype == "metrics-generated":
            tags.append("table")
        if len(evidence) > 1:
            tags.append("multi_evidence")
        questions.append(
            Question(
                id=str(row["financebench_id"]),
                doc=str(row["doc_name"]),
                question=str(row["question"]),
                answer=gold,
                answer_type="numeric" if is_numeric_gold(gold) else "judge",
                evidence=evidence,
                tags=tags,
            )
        )
    documents = [DocumentRef(id=d, path=corpus.check(pdf_file(d))) for d in docs]
    return Dataset(
        id="financebench",
        description=f"FinanceBench open-source questions over {len(docs)} SEC filings "
        "(page-level evidence)",
        documents=documents,
        questions=questions,
        source=path,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")[:40] or "article"


def _sentence(context: str, start: int, answer: str) -> str:
    """The sentence holding the answer, trimmed to the quote bounds around it."""
    before = [m.end() for m in _SENTENCE_END.finditer(context, 0, start)]
    lo = before[-1] if before else 0
    after = _SENTENCE_END.search(context, start + len(answer))
    hi = after.start() + 1 if after else len(context)
    quote = context[lo:hi].strip()
    if len(collapse(quote)) > QUOTE_MAX:  # a long sentence: a window around the answer
        lo = max(lo, start - (QUOTE_MAX - len(answer)) // 2)
        quote = context[lo : lo + QUOTE_MAX - 10].strip()
    if len(collapse(quote)) < QUOTE_MIN:  # a short one: widen into the next sentence
        quote = context[lo : lo + QUOTE_MIN * 3].strip()
    return quote


def xquad(corpus: Corpus, lang: str, derived: Path, per_language: int) -> Dataset:
    path = corpus.check(Wanted("xquad", f"xquad.{lang}.json"))
    data = json.loads(path.read_text(encoding="utf-8"))["data"]
    folder = derived / "xquad" / lang
    documents: list[DocumentRef] = []
    for i, article in enumerate(data):
        body = f"# {article['title']}\n\n" + "\n\n".join(
            p["context"] for p in article["paragraphs"]
        )
        target = folder / f"{i:02d}-{_slug(article['title'])}.md"
        if not target.is_file() or target.read_text(encoding="utf-8") != body + "\n":
            atomic_write_bytes(target, (body + "\n").encode("utf-8"))
        documents.append(DocumentRef(id=f"xquad-{lang}-{i:02d}", path=target))
    questions: list[Question] = []
    depth = 0
    deepest = max((len(a["paragraphs"]) for a in data), default=0)
    while len(questions) < per_language and depth < deepest:
        for i, article in enumerate(data):
            if len(questions) == per_language:
                break
            if depth >= len(article["paragraphs"]):
                continue
            para = article["paragraphs"][depth]
            if not para.get("qas") or not para["qas"][0].get("answers"):
                continue
            qa = para["qas"][0]
            ans = qa["answers"][0]
            context = para["context"]
            questions.append(
                Question(
                    id=f"xquad-{qa['id']}-{lang}",
                    doc=f"xquad-{lang}-{i:02d}",
                    question=qa["question"],
                    answer=ans["text"],
                    answer_type="exact",
                    evidence=[
                        EvidenceLabel(
                            doc=f"xquad-{lang}-{i:02d}",
                            quote=_sentence(context, int(ans["answer_start"]), ans["text"]),
                            near=context[:80],
                        )
                    ],
                    tags=["multilingual", lang],
                    language=lang,
                )
            )
        depth += 1
    return Dataset(
        id=f"xquad-{lang}",
        description=f"XQuAD ({lang}): {len(data)} Wikipedia articles, one question per "
        "paragraph round-robin",
        documents=documents,
        questions=questions,
        source=path,
    )


__all__ = [
    "FULL_DATASETS",
    "XQUAD_LANGUAGES",
    "FullOptions",
    "financebench",
    "first_files",
    "near_duplicate_filings",
    "parse_datasets",
    "parse_languages",
    "second_files",
    "technical_docs",
    "xquad",
]
