"""Labelled retrieval datasets: load, validate, and name every problem precisely.

Format (docs/datasets.md; JSON Schema `schemas/retrieval.Dataset.schema.json`, and
`--init-dataset DIR` writes a working example): a JSON object with `id`, `description`, `documents`
(`{id, path}`; a relative path is relative to the dataset file) and `questions`
(`{id, doc, question, answer, answer_aliases, answer_type, evidence, tags, language}`;
each evidence entry has a verbatim `quote` and/or a 1-based `page`, optionally a `near`
hint and the annotator's `label_text`). Every problem is an InvalidInputError naming the
file, the field path (`questions[3].evidence[0].quote`) and the fix.

Each document file is a regular file named by one entry only, inside the dataset's folder
(symlinks resolved) unless the caller allows outside files (`--allow-outside`) or the
dataset says `"allow_outside": true`.

BEIR folders (`corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`) load too, with
document-level evidence (any chunk of a relevant document is a hit).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.json_schema import SkipJsonSchema

from gaia_eval.core.cachedir import cache_root
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.paths import outside
from gaia_eval.core.results_io import atomic_write_bytes, not_utf8

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
    page: int | None = Field(default=None, ge=1, strict=True)
    """1-based page, only for paged documents (PDF); a JSON whole number (not `true`, `"1"`)."""
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
    allow_outside: bool = Field(default=False, strict=True)
    """Whether document files may lie outside the dataset's folder (absolute paths, `../`,
    symlinks out); the report lists each such document."""

    def documents_outside(self) -> list[str]:
        """Ids of the documents whose file (symlinks resolved) is outside the dataset's folder
        (none for a BEIR folder, whose documents live in the cache by design)."""
        if self.source.is_dir():
            return []
        return [d.id for d in self.documents if outside(d.path, self.source.parent)]

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
    count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
    return InvalidInputError(f"{path}: invalid dataset ({count}):\n{lines}{more}")


def _with_row_id(line: str, raw: dict[str, Any]) -> str:
    """A problem's line with the id of the row it is in (`... (question 'q2')`), when the
    row has one and the line does not say it yet: a field path alone is hard to find in a
    long file."""
    m = re.match(r"(documents|questions)\[(\d+)\]", line)
    rows = raw.get(m.group(1)) if m else None
    if m is None or not isinstance(rows, list) or int(m.group(2)) >= len(rows):
        return line
    row = rows[int(m.group(2))]
    rid = row.get("id") if isinstance(row, dict) else None
    noun = "document" if m.group(1) == "documents" else "question"
    if not isinstance(rid, str) or not rid or f"{noun} {rid}" in line or repr(rid) in line:
        return line
    return f"{line} ({noun} {rid!r})"


_M = TypeVar("_M", bound=BaseModel)


@dataclass(frozen=True)
class _Rows:
    """The rows of a dataset file that validated, by index (None: that row did not), so
    the checks after the schema run on the rest and keep their field paths."""

    source: Path
    documents: list[DocumentRef | None]
    questions: list[Question | None]


def _validate_rows(
    raw: dict[str, Any], path: Path
) -> tuple[list[str], _Rows | None, Dataset | None]:
    """Schema problems of every row (not only the first bad one), the rows that
    validated, and the dataset when all did: one message names every problem of the file."""
    try:
        data = Dataset.model_validate({**raw, "source": path})
    except ValidationError as err:
        problems = _problems_from(err)
    else:
        return [], _Rows(path, list(data.documents), list(data.questions)), data
    docs, questions = raw.get("documents"), raw.get("questions")
    if not isinstance(docs, list) or not isinstance(questions, list):
        return problems, None, None
    return problems, _Rows(path, _each(DocumentRef, docs), _each(Question, questions)), None


def _each(model: type[_M], rows: list[Any]) -> list[_M | None]:
    out: list[_M | None] = []
    for row in rows:
        try:
            out.append(model.model_validate(row))
        except ValidationError:  # listed by the whole file's validation
            out.append(None)
    return out


def load_dataset(path: Path | str, *, allow_outside: bool = False) -> Dataset:
    """Load and validate a labelled JSON dataset (docs/datasets.md); InvalidInputError on any
    problem. `allow_outside` (the `--allow-outside` flag) admits document files outside the
    dataset's folder, as the dataset's own `allow_outside` field does."""
    path = Path(path).resolve()
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        msg = f"{path}: dataset file not found; pass an existing file to --dataset"
        raise InvalidInputError(msg) from err
    except UnicodeDecodeError as err:
        raise not_utf8(path, err) from err
    except OSError as err:
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
    problems, rows, data = _validate_rows(raw, path)
    if rows is not None:
        allowed = allow_outside or raw.get("allow_outside") is True
        problems += _semantic_problems(rows, allow_outside=allowed)
        problems += _quote_problems(rows)
    if problems or data is None:
        raise _fail(path, [_with_row_id(p, raw) for p in problems])
    return data.model_copy(
        update={
            "documents": [d.model_copy(update={"path": d.path.resolve()}) for d in data.documents]
        }
    )


def _id(doc: DocumentRef | None) -> str:
    return doc.id if doc is not None else "?"


def _file_problem(path: Path) -> str | None:
    """Why `path` cannot be a document (missing, a folder, a FIFO or device), or None."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return (
            f"file not found: {path}; fix the path (relative paths are relative to the "
            "dataset file)"
        )
    except OSError as err:
        return f"cannot read {path} ({err.strerror or err}); fix its permissions or the path"
    if stat.S_ISDIR(mode):
        return f"{path} is a directory; name a file inside it"
    if not stat.S_ISREG(mode):
        what = "a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) else "special"
        return f"{path} is {what}, not a regular file; name a regular file"
    return None


def _semantic_problems(data: _Rows, *, allow_outside: bool = False) -> list[str]:
    problems: list[str] = []
    doc_ids: dict[str, int] = {}
    by_file: dict[str, int] = {}
    folder = data.source.parent
    for i, d in enumerate(data.documents):
        if d is None:  # its schema problem is already listed
            continue
        if d.id in doc_ids:
            problems.append(
                f"documents[{i}].id: {d.id!r} repeats documents[{doc_ids[d.id]}]; "
                "give each document a unique id"
            )
        doc_ids.setdefault(d.id, i)
        why = _file_problem(d.path)
        if why is not None:
            problems.append(f"documents[{i}].path: {why}")
            continue
        # One file, one entry: a system indexes a file once, so a second id for it would
        # silently score its questions as misses.
        real = os.path.realpath(d.path)
        first = by_file.setdefault(real, i)
        if first != i:
            problems.append(
                f"documents[{i}].path: names the same file as documents[{first}] "
                f"({_id(data.documents[first])!r} and {d.id!r}: {real}); give each file one entry"
            )
        if not allow_outside and outside(d.path, folder):
            problems.append(
                f"documents[{i}].path: {real} is outside the dataset folder {folder}; move it "
                'inside, or allow it with --allow-outside (or "allow_outside": true in the '
                "dataset)"
            )
    known = ", ".join(sorted(doc_ids)) or "none"
    q_ids: dict[str, int] = {}
    for i, q in enumerate(data.questions):
        if q is None:
            continue
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


_QUOTE_CHECK_MAX = 20 * 1024 * 1024
"""Text documents up to this size have their quotes checked when the dataset loads."""


def _quote_problems(data: _Rows) -> list[str]:
    """Quotes and hints that are not in their (plain text) document, found at load with
    the rest: a text file's text is its bytes, so no extraction is needed. PDFs are checked
    once extracted, before the first query (indexing.resolve)."""
    from gaia_eval.retrieval.evidence import DocumentText, LabelError, resolve_evidence
    from gaia_eval.systems.rag.extract import PDF_SUFFIXES, extract_text

    texts: dict[str, DocumentText | None] = {}
    for d in data.documents:
        if d is None or d.id in texts:
            continue
        texts[d.id] = None
        try:
            if d.path.suffix.lower() in PDF_SUFFIXES or d.path.stat().st_size > _QUOTE_CHECK_MAX:
                continue
            raw = d.path.read_bytes()
        except OSError:  # named by the path checks
            continue
        if raw.startswith(b"%PDF-"):
            continue
        got = extract_text(d.path, raw)
        if got.status == "ok":
            texts[d.id] = DocumentText(d.id, got.text)
    out: list[str] = []
    for i, q in enumerate(data.questions):
        if q is None:
            continue
        for j, ev in enumerate(q.evidence):
            text = texts.get(ev.doc)
            if text is None or (ev.quote is None and ev.near is None):
                continue
            try:
                resolve_evidence(text, quote=ev.quote, page=ev.page, near=ev.near, question_id=q.id)
            except LabelError as err:
                field = "quote" if ev.quote is not None else "near"
                out.append(f"questions[{i}].evidence[{j}].{field}: {err}")
    return out


def builtin_dataset_path(name: str) -> Path:
    """The file of a dataset shipped in the package (`gaia_eval/retrieval/data/<name>.json`)."""
    path = DATA_DIR / f"{name}.json"
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or not path.is_file():
        known = ", ".join(sorted(p.stem for p in DATA_DIR.glob("*.json"))) or "none"
        msg = f"no built-in dataset {name!r}; built-in datasets: {known} (or pass a file)"
        raise InvalidInputError(msg)
    return path


# ---- BEIR folders ----------------------------------------------------------------------


def _private_dir(path: Path) -> Path:
    """Create `path` (and missing parents) readable by the user alone: the BEIR copies are
    the user's own corpus in plain text."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def _read_lines(path: Path) -> list[str]:
    try:
        # split("\n"), not splitlines(): a JSON string may hold a raw U+2028.
        return path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise not_utf8(path, err) from err
    except OSError as err:
        msg = f"{path}: cannot read ({err.strerror or err})"
        raise InvalidInputError(msg) from err


def _jsonl(path: Path, *, text_fields: tuple[str, ...]) -> list[dict[str, Any]]:
    if not path.is_file():
        msg = f"{path}: missing; a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/"
        raise InvalidInputError(msg)
    from gaia_eval.core import jsontext

    rows: list[dict[str, Any]] = []
    for n, line in enumerate(_read_lines(path), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as err:
            why = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
            msg = f"{path}: line {n} is not valid JSON ({why}); fix or remove it"
            raise InvalidInputError(msg) from err
        # bool is an int to Python: `"_id": true` would silently become document "True".
        rid = row.get("_id") if isinstance(row, dict) else None
        if isinstance(rid, bool) or not isinstance(rid, str | int) or rid == "":
            msg = (
                f"{path}: line {n}: `_id` missing or not a string or whole number; every row "
                "needs `_id` and `text`"
            )
            raise InvalidInputError(msg)
        for name in text_fields:
            if row.get(name) is not None and not isinstance(row[name], str):
                msg = (
                    f"{path}: line {n}: `{name}` is a {type(row[name]).__name__}, not a "
                    "string; give the text as a JSON string"
                )
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
        msg = f"{path}: missing; qrels splits present: {names}; pass one with --beir-split NAME"
        raise InvalidInputError(msg)
    relevant: dict[str, list[str]] = {}
    lines = _read_lines(path)
    for n, row in enumerate(csv.reader(lines, delimiter="\t"), 1):
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
    corpus = _jsonl(corpus_path, text_fields=("title", "text"))
    if not corpus:
        msg = f"{corpus_path}: no documents; a BEIR corpus needs at least one row"
        raise InvalidInputError(msg)
    queries_path = folder / "queries.jsonl"
    queries: dict[str, dict[str, Any]] = {}
    for row in _jsonl(queries_path, text_fields=("text",)):
        qid = str(row["_id"])
        if qid in queries:
            msg = f"{queries_path}: query `_id` {qid!r} appears twice; query ids must be unique"
            raise InvalidInputError(msg)
        queries[qid] = row
    qrels_path, relevant = _qrels(folder, split)
    digest = hashlib.sha256(corpus_path.read_bytes()).hexdigest()[:16]
    out_dir = _private_dir((cache_dir or cache_root()) / "beir") / f"{folder.name}-{digest}"
    _private_dir(out_dir)
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
    if not questions:
        msg = (
            f"{qrels_path}: no query has a relevant document (score > 0); nothing would be measured"
        )
        raise InvalidInputError(msg)
    return Dataset(
        id=folder.name,
        description=f"BEIR folder {folder} (qrels {qrels_path.name})",
        documents=documents,
        questions=questions,
        source=folder,
    )
