"""Labelled retrieval datasets: load, validate, and name every problem precisely.

Format (docs/datasets.md; JSON Schema `schemas/retrieval.Dataset.schema.json`, and
`--init-dataset DIR` writes a working example): a JSON object with `id`, `description`, `documents`
(`{id, path}`; a relative path is relative to the dataset file) and `questions`
(`{id, doc, question, answer, answer_aliases, answer_type, evidence, tags, language}`;
each evidence entry has a verbatim `quote` and/or a 1-based `page`, optionally a `near`
hint and the annotator's `label_text`). Every problem is an InvalidInputError naming the
file, the field path (`questions[3].evidence[0].quote`) and the fix.

BEIR folders (`corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`) load too, with
document-level evidence (any chunk of a relevant document is a hit).
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema

from gaia_eval.core.cachedir import cache_root
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import atomic_write_bytes

QUOTE_MIN = 20
QUOTE_MAX = 200
"""Quote length bounds, in characters after whitespace collapsing."""

DATA_DIR = Path(__file__).parent / "data"

AnswerType = Literal["numeric", "exact", "judge"]


def collapse(text: str) -> str:
    """Whitespace runs to one space, ends trimmed (how quotes are measured and matched)."""
    return " ".join(text.split())


class EvidenceLabel(BaseModel):
    """Where a question's answer is: a verbatim quote and/or a page of one document.

    Neither quote nor page (only built by loaders such as BEIR's, never accepted from a
    dataset file) means document level: any chunk of the document is a hit.
    """

    # A dataset file's evidence needs a quote or a page (document-level evidence comes only
    # from loaders); the published schema says so, the loader checks it.
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        json_schema_extra={"anyOf": [{"required": ["quote"]}, {"required": ["page"]}]},
    )

    doc: str = ""
    """Document id; the loader fills in the question's `doc` when absent."""
    quote: str | None = None
    """Verbatim evidence text, QUOTE_MIN-QUOTE_MAX characters after whitespace collapsing."""
    page: int | None = Field(default=None, ge=1)
    """1-based page, only for paged documents (PDF)."""
    near: str | None = None
    """Verbatim text at or before the quote, where the search for it starts (repeats)."""
    label_text: str | None = None
    """The annotator's evidence text, used only for a sanity check."""

    @field_validator("quote")
    @classmethod
    def _quote_length(cls, quote: str | None) -> str | None:
        if quote is not None:
            n = len(collapse(quote))
            if not QUOTE_MIN <= n <= QUOTE_MAX:
                msg = (
                    f"quote is {n} characters after whitespace collapsing; it must be "
                    f"{QUOTE_MIN}-{QUOTE_MAX}: quote the sentence that holds the answer"
                )
                raise ValueError(msg)
        return quote

    @property
    def document_level(self) -> bool:
        return self.quote is None and self.page is None


class Question(BaseModel):
    """One labelled question."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    id: str = Field(min_length=1)
    """Unique within the dataset; results and gates match questions by it."""
    doc: str = Field(min_length=1)
    """The document the question is about (evidence defaults to it)."""
    question: str = Field(min_length=1)
    """The question as a user would ask it."""
    answer: str
    """Gold answer (empty for retrieval-only data such as BEIR)."""
    answer_aliases: list[str] = []
    """Other accepted spellings of the answer."""
    answer_type: AnswerType
    """numeric: graded on the first number; exact: string match; judge: a model grades."""
    evidence: list[EvidenceLabel] = Field(min_length=1)
    """Where the answer is; a retrieved chunk covering half of a quote is a hit."""
    tags: list[str] = []
    """Free labels; reports break results down by them."""
    language: str = "en"
    """Language of the question (BCP 47 tag)."""


class DocumentRef(BaseModel):
    """A document of the dataset: an id and the absolute path of its file."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    id: str = Field(min_length=1)
    """Unique within the dataset; questions name their document by it."""
    path: Path
    """The document file (txt, md, pdf, ...); in a dataset file a relative path is relative
    to the dataset file's folder (the loader makes it absolute)."""


class Dataset(BaseModel):
    """A labelled retrieval dataset: documents and questions whose evidence is in them."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    id: str = Field(min_length=1)
    """Names the dataset in results and reports."""
    description: str = ""
    """What the dataset is and where its documents come from."""
    documents: list[DocumentRef]
    """The documents to index, each with a unique id."""
    questions: list[Question]
    """The labelled questions."""
    source: SkipJsonSchema[Path]
    """The dataset file (or BEIR folder) it was loaded from (set by the loader)."""

    def document(self, doc_id: str) -> DocumentRef:
        for d in self.documents:
            if d.id == doc_id:
                return d
        msg = f"{self.source}: no document {doc_id!r}"
        raise KeyError(msg)


# ---- JSON datasets ---------------------------------------------------------------------


def field_path(loc: tuple[int | str, ...]) -> str:
    """('questions', 3, 'evidence', 0, 'quote') -> 'questions[3].evidence[0].quote'."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


_FIXES = {
    "missing": "add the field",
    "extra_forbidden": "remove it (or check its spelling)",
    "too_short": "add at least one entry",
    "string_type": "give a JSON string",
    "int_type": "give a whole number",
    "int_parsing": "give a whole number",
    "greater_than_equal": "pages start at 1",
    "list_type": "give a JSON list",
    "model_type": "give a JSON object",
    "dict_type": "give a JSON object",
}


def _problems_from(err: ValidationError) -> list[str]:
    out = []
    for e in err.errors(include_url=False):
        loc = tuple(p for p in e["loc"] if not (isinstance(p, str) and p.startswith("function")))
        msg = str(e["msg"]).removeprefix("Value error, ")
        fix = _FIXES.get(str(e["type"]))
        out.append(f"{field_path(loc)}: {msg}" + (f"; {fix}" if fix else ""))
    return out


def _fail(path: Path, problems: list[str]) -> InvalidInputError:
    shown = problems[:20]
    more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
    lines = "\n".join(f"  {p}" for p in shown)
    return InvalidInputError(f"{path}: invalid dataset ({len(problems)} problems):\n{lines}{more}")


def load_dataset(path: Path | str) -> Dataset:
    """Load and validate a labelled JSON dataset (docs/datasets.md); InvalidInputError on any
    problem."""
    path = Path(path).resolve()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        msg = f"{path}: dataset file not found; pass an existing file to --dataset"
        raise InvalidInputError(msg) from err
    except (OSError, UnicodeDecodeError) as err:
        msg = f"{path}: cannot read the dataset ({err})"
        raise InvalidInputError(msg) from err
    except json.JSONDecodeError as err:
        msg = (
            f"{path}: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}; "
            "fix the syntax there"
        )
        raise InvalidInputError(msg) from err
    except RecursionError as err:
        msg = f"{path}: JSON nested too deeply to be a dataset; check the file is one"
        raise InvalidInputError(msg) from err
    if not isinstance(raw, dict):
        raise _fail(path, ["(top level): must be a JSON object with id, documents, questions"])
    from gaia_eval.core.jsontext import surrogate_problems

    # A document path may name a non-UTF-8 file (surrogate escapes); text may not.
    problems = surrogate_problems(
        raw, allowed=lambda w: len(w) == 3 and w[0] == "documents" and w[2] == "path"
    )
    if problems:
        raise _fail(path, problems)
    docs = raw.get("documents")
    if isinstance(docs, list):
        for i, d in enumerate(docs):
            if isinstance(d, dict) and "path" not in d and ("source" in d or "file" in d):
                problems.append(
                    f"documents[{i}]: downloaded documents ({{id, source, file}}) are not "
                    "supported here; give a `path` to a local file"
                )
            elif isinstance(d, dict) and isinstance(d.get("path"), str):
                p = Path(d["path"])
                docs[i] = {**d, "path": p if p.is_absolute() else path.parent / p}
    questions = raw.get("questions")
    if isinstance(questions, list):
        for q in questions:  # evidence doc defaults to the question's doc
            if isinstance(q, dict) and isinstance(q.get("evidence"), list):
                q["evidence"] = [
                    {"doc": q.get("doc"), **e} if isinstance(e, dict) and "doc" not in e else e
                    for e in q["evidence"]
                ]
    if problems:
        raise _fail(path, problems)
    try:
        data = Dataset.model_validate({**raw, "source": path})
    except ValidationError as err:
        raise _fail(path, _problems_from(err)) from None
    problems = _semantic_problems(data)
    if problems:
        raise _fail(path, problems)
    return data.model_copy(
        update={
            "documents": [d.model_copy(update={"path": d.path.resolve()}) for d in data.documents]
        }
    )


def _semantic_problems(data: Dataset) -> list[str]:
    problems: list[str] = []
    doc_ids: dict[str, int] = {}
    for i, d in enumerate(data.documents):
        if d.id in doc_ids:
            problems.append(
                f"documents[{i}].id: {d.id!r} repeats documents[{doc_ids[d.id]}]; "
                "give each document a unique id"
            )
        doc_ids.setdefault(d.id, i)
        if not d.path.is_file():
            problems.append(
                f"documents[{i}].path: file not found: {d.path}; fix the path (relative "
                "paths are relative to the dataset file)"
            )
    known = ", ".join(sorted(doc_ids)) or "none"
    q_ids: dict[str, int] = {}
    for i, q in enumerate(data.questions):
        where = f"questions[{i}]"
        if q.id in q_ids:
            problems.append(
                f"{where}.id: {q.id!r} repeats questions[{q_ids[q.id]}]; question ids "
                "must be unique"
            )
        q_ids.setdefault(q.id, i)
        if q.doc not in doc_ids:
            problems.append(
                f"{where}.doc: unknown document {q.doc!r}; use one of the document ids "
                f"({known}) or add it to `documents`"
            )
        for j, ev in enumerate(q.evidence):
            at = f"{where}.evidence[{j}]"
            if ev.doc != q.doc and ev.doc not in doc_ids:
                problems.append(f"{at}.doc: unknown document {ev.doc!r}; use one of ({known})")
            if ev.quote is None and ev.page is None:
                problems.append(
                    f"{at}: needs a `quote` (verbatim evidence text) or a `page` (or both)"
                )
            if ev.near is not None and ev.quote is None:
                problems.append(f"{at}.near: a near hint needs a `quote` to search for")
            if ev.near is not None and not collapse(ev.near):
                problems.append(f"{at}.near: empty; remove it or give verbatim text")
    return problems


def builtin_dataset_path(name: str) -> Path:
    """The file of a dataset shipped in the package (`gaia_eval/retrieval/data/<name>.json`)."""
    path = DATA_DIR / f"{name}.json"
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or not path.is_file():
        known = ", ".join(sorted(p.stem for p in DATA_DIR.glob("*.json"))) or "none"
        msg = f"no built-in dataset {name!r}; built-in datasets: {known} (or pass a file)"
        raise InvalidInputError(msg)
    return path


# ---- BEIR folders ----------------------------------------------------------------------


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        msg = f"{path}: missing; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/"
        raise InvalidInputError(msg)
    from gaia_eval.core import jsontext

    rows: list[dict[str, Any]] = []
    try:
        # Only "\n" ends a JSON line (splitlines would also cut at U+2028 inside a string).
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        msg = f"{path}: not UTF-8 text ({err.reason} at byte {err.start}); save it as UTF-8"
        raise InvalidInputError(msg) from err
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as err:
            why = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
            msg = f"{path}: line {n} is not valid JSON ({why}); fix or remove it"
            raise InvalidInputError(msg) from err
        if not isinstance(row, dict) or not isinstance(row.get("_id"), str | int):
            msg = f"{path}: line {n}: `_id` missing; every row needs `_id` and `text`"
            raise InvalidInputError(msg)
        bad = jsontext.surrogate_problems(row, line)
        if bad:
            msg = f"{path}: line {n} (`_id` {jsontext.shown(row['_id'])}): {bad[0]}"
            raise InvalidInputError(msg)
        rows.append(row)
    return rows


def _qrels(folder: Path, split: str) -> tuple[Path, dict[str, list[str]]]:
    qdir = folder / "qrels"
    path = qdir / f"{split}.tsv"
    if not path.is_file():
        found = sorted(qdir.glob("*.tsv")) if qdir.is_dir() else []
        names = ", ".join(p.stem for p in found) or "none"
        msg = f"{path}: missing; qrels splits present: {names}; pass one of them as the split"
        raise InvalidInputError(msg)
    relevant: dict[str, list[str]] = {}
    with path.open(encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.reader(fh, delimiter="\t"), 1):
            if not row or (n == 1 and row[0] == "query-id"):
                continue
            if len(row) < 3:
                msg = f"{path}: line {n}: expected query-id, corpus-id, score (tab-separated)"
                raise InvalidInputError(msg)
            try:
                score = int(row[2])
            except ValueError:
                msg = f"{path}: line {n}: score {row[2]!r} is not a whole number"
                raise InvalidInputError(msg) from None
            if score > 0 and row[1] not in relevant.setdefault(row[0], []):
                relevant[row[0]].append(row[1])
    return path, relevant


def load_beir(folder: Path | str, *, split: str = "test", cache_dir: Path | None = None) -> Dataset:
    """Load a BEIR folder as a retrieval-only dataset with document-level evidence.

    Each corpus row becomes a text file (title, blank line, text) under
    `<cache>/beir/<folder name>-<corpus digest>/` (`$GAIA_EVAL_CACHE`, else
    ~/.cache/gaia-eval), because retrievers index files; the digest keys the folder, so
    a changed corpus gets new files and an unchanged one reuses them. Queries with no
    relevant document (score > 0) are skipped; answers are empty (type `judge`).
    """
    folder = Path(folder).resolve()
    if not folder.is_dir():
        msg = f"{folder}: not a folder; a BEIR dataset is a folder with corpus.jsonl"
        raise InvalidInputError(msg)
    corpus_path = folder / "corpus.jsonl"
    corpus = _jsonl(corpus_path)
    queries = {str(r["_id"]): r for r in _jsonl(folder / "queries.jsonl")}
    qrels_path, relevant = _qrels(folder, split)
    digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()[:16]
    out_dir = (cache_dir or cache_root()) / "beir" / f"{folder.name}-{digest}"
    documents: list[DocumentRef] = []
    ids: set[str] = set()
    for row in corpus:
        doc_id = str(row["_id"])
        if doc_id in ids:
            msg = f"{corpus_path}: `_id` {doc_id!r} appears twice; corpus ids must be unique"
            raise InvalidInputError(msg)
        ids.add(doc_id)
        # A readable, filesystem-safe name plus a hash of the id, so distinct ids never
        # share a file even when they sanitize alike.
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", doc_id)[:60]
        name = f"{safe}-{hashlib.sha256(doc_id.encode()).hexdigest()[:8]}.txt"
        target = out_dir / name
        title, text = str(row.get("title") or ""), str(row.get("text") or "")
        body = f"{title}\n\n{text}\n" if title else f"{text}\n"
        if not target.is_file() or target.read_text(encoding="utf-8") != body:
            atomic_write_bytes(target, body.encode("utf-8"))
        documents.append(DocumentRef(id=doc_id, path=target))
    questions: list[Question] = []
    for qid in sorted(relevant):
        docs = [d for d in relevant[qid] if d in ids]
        if qid not in queries:
            msg = f"{qrels_path}: query {qid!r} is not in queries.jsonl; fix the qrels"
            raise InvalidInputError(msg)
        missing = [d for d in relevant[qid] if d not in ids]
        if missing:
            msg = f"{qrels_path}: query {qid!r} names unknown corpus ids {missing[:5]}"
            raise InvalidInputError(msg)
        text = str(queries[qid].get("text") or "").strip()
        if not text:
            msg = f"{folder / 'queries.jsonl'}: query {qid!r} has no `text`; give it one"
            raise InvalidInputError(msg)
        questions.append(
            Question(
                id=qid,
                doc=docs[0],
                question=text,
                answer="",
                answer_type="judge",
                evidence=[EvidenceLabel(doc=d) for d in docs],
                tags=["beir", folder.name],
            )
        )
    return Dataset(
        id=folder.name,
        description=f"BEIR folder {folder} (qrels {qrels_path.name})",
        documents=documents,
        questions=questions,
        source=folder,
    )
