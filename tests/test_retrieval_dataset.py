"""The dataset loader: valid files load; every bad input names file, field and fix."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.retrieval.dataset import (
    EvidenceLabel,
    builtin_dataset_path,
    field_path,
    load_beir,
    load_dataset,
)
from gaia_eval.retrieval.evidence import (
    DocumentText,
    LocatedChunk,
    chunk_hits,
    resolve_evidence,
)

QUOTE = "the quick brown fox jumps over the lazy dog"


def _dataset(tmp_path: Path, **overrides: Any) -> dict[str, Any]:
    (tmp_path / "a.txt").write_text(f"Intro. {QUOTE}. The end.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nAnother document entirely, about foxes.\n")
    data: dict[str, Any] = {
        "id": "tiny",
        "description": "a test dataset",
        "documents": [{"id": "a", "path": "a.txt"}, {"id": "b", "path": "b.md"}],
        "questions": [
            {
                "id": "q-1",
                "doc": "a",
                "question": "What does the fox jump over?",
                "answer": "the lazy dog",
                "answer_type": "exact",
                "evidence": [{"quote": QUOTE}],
                "tags": ["text"],
            }
        ],
    }
    data.update(overrides)
    return data


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _q(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "q-2",
        "doc": "a",
        "question": "Who is lazy?",
        "answer": "the dog",
        "answer_type": "exact",
        "evidence": [{"quote": QUOTE}],
    }
    base.update(fields)
    return base


def _error(tmp_path: Path, data: Any) -> str:
    path = _write(tmp_path, data)
    with pytest.raises(InvalidInputError) as info:
        load_dataset(path)
    msg = str(info.value)
    assert str(path) in msg
    return msg


def test_valid_dataset_loads_with_absolute_paths_and_evidence_docs(tmp_path: Path) -> None:
    ds = load_dataset(_write(tmp_path, _dataset(tmp_path)))
    assert ds.id == "tiny" and ds.source == (tmp_path / "ds.json").resolve()
    assert [d.path for d in ds.documents] == [(tmp_path / "a.txt").resolve(), tmp_path / "b.md"]
    assert all(d.path.is_absolute() for d in ds.documents)
    q = ds.questions[0]
    assert q.language == "en" and q.answer_aliases == []
    assert q.evidence == [EvidenceLabel(doc="a", quote=QUOTE)]
    assert ds.document("b").path.name == "b.md"


def test_absolute_document_path_is_kept(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["documents"][0]["path"] = str(tmp_path / "a.txt")
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    path = sub / "ds.json"
    data["documents"].pop()
    path.write_text(json.dumps(data))
    # Outside the dataset's folder: refused unless the caller or the dataset allows it.
    with pytest.raises(InvalidInputError, match=r"documents\[0\]\.path: .* is outside"):
        load_dataset(path)
    assert (
        load_dataset(path, allow_outside=True).documents[0].path == (tmp_path / "a.txt").resolve()
    )
    path.write_text(json.dumps({**data, "allow_outside": True}))
    ds = load_dataset(path)
    assert ds.documents_outside() == ["a"]


def test_malformed_json(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    path.write_text('{"id": "x",\n "questions": [,]}')
    with pytest.raises(InvalidInputError, match=r"ds\.json: not valid JSON at line 2 column 16"):
        load_dataset(path)


def test_hostile_nesting_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "ds.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidInputError, match="nested too deeply"):
        load_dataset(path)


def test_missing_dataset_file(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match=r"nope\.json: dataset file not found"):
        load_dataset(tmp_path / "nope.json")


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    assert "must be a JSON object" in _error(tmp_path, [1, 2])


def test_unknown_document_id(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(doc="zzz"))
    msg = _error(tmp_path, data)
    assert "questions[1].doc: unknown document 'zzz'; use one of the document ids (a, b)" in msg


def test_unknown_evidence_document_id(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[{"doc": "ghost", "quote": QUOTE}]))
    assert "questions[1].evidence[0].doc: unknown document 'ghost'" in _error(tmp_path, data)


def test_missing_document_file(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["documents"].append({"id": "c", "path": "sub/missing.txt"})
    msg = _error(tmp_path, data)
    assert f"documents[2].path: file not found: {tmp_path / 'sub' / 'missing.txt'}" in msg
    assert "relative to the dataset file" in msg


def test_downloaded_document_is_refused_with_a_fix(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["documents"].append({"id": "c", "source": "amd", "file": "x.pdf"})
    assert "documents[2]: downloaded documents" in _error(tmp_path, data)


def test_duplicate_question_ids(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(id="q-1"))
    msg = _error(tmp_path, data)
    assert "questions[1].id: 'q-1' repeats questions[0]; question ids must be unique" in msg


def test_duplicate_document_ids(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["documents"].append({"id": "a", "path": "b.md"})
    assert "documents[2].id: 'a' repeats documents[0]" in _error(tmp_path, data)


@pytest.mark.parametrize(
    ("quote", "length"),
    [("too short a quote", 17), ("x" * 201, 201), ("  nineteen\n\n chars  ok  ", 17)],
)
def test_quote_length_outside_bounds(tmp_path: Path, quote: str, length: int) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[{"page": 1}, {"quote": quote}]))
    msg = _error(tmp_path, data)
    assert (
        f"questions[1].evidence[1].quote: quote is {length} characters after whitespace "
        "collapsing; it must be 20-200" in msg
    )


def test_quote_length_counts_collapsed_whitespace(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    # 24 characters as written, 20 after collapsing: accepted.
    data["questions"].append(_q(evidence=[{"quote": "abcde  fghij\n\n klmno   pq"}]))
    (tmp_path / "a.txt").write_text(f"Intro. {QUOTE}. abcde fghij klmno pq.\n")
    load_dataset(_write(tmp_path, data))


def test_every_problem_of_the_file_at_once_with_row_ids(tmp_path: Path) -> None:
    """A schema error, a missing file and a quote that is not in its (text) document: one
    load names all three, each with its field path and row id."""
    data = _dataset(tmp_path)
    del data["questions"][0]["answer_type"]
    data["documents"].append({"id": "c", "path": "missing.txt"})
    data["questions"].append(_q(evidence=[{"quote": "a sentence that is not in the document"}]))
    msg = _error(tmp_path, data)
    assert "invalid dataset (3 problems):" in msg
    assert "questions[0].answer_type: Field required; add the field (question 'q-1')" in msg
    assert "documents[2].path: file not found: " in msg and "(document 'c')" in msg
    assert (
        "questions[1].evidence[0].quote: question q-2, document a: evidence quote "
        "'a sentence that is not in the document' is not in the document" in msg
    )
    del data["questions"][1], data["documents"][2]
    assert "invalid dataset (1 problem):" in _error(tmp_path, data)


def test_answer_type_must_be_known(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(answer_type="fuzzy"))
    msg = _error(tmp_path, data)
    assert "questions[1].answer_type: Input should be 'numeric', 'exact' or 'judge'" in msg


def test_empty_evidence(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[]))
    msg = _error(tmp_path, data)
    assert "questions[1].evidence: List should have at least 1 item" in msg
    assert "add at least one entry" in msg


def test_evidence_needs_page_or_quote(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[{"label_text": "somewhere"}]))
    msg = _error(tmp_path, data)
    assert "questions[1].evidence[0]: needs a `quote` (verbatim evidence text) or a `page`" in msg


def test_near_needs_a_quote(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[{"page": 2, "near": "hint"}]))
    assert "questions[1].evidence[0].near: a near hint needs a `quote`" in _error(tmp_path, data)


def test_page_must_be_positive(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"].append(_q(evidence=[{"page": 0}]))
    msg = _error(tmp_path, data)
    assert "questions[1].evidence[0].page: Input should be greater than or equal to 1" in msg


def test_missing_and_unknown_fields(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    q = _q(colour="red")
    del q["answer"]
    data["questions"].append(q)
    msg = _error(tmp_path, data)
    assert "questions[1].answer: Field required; add the field" in msg
    assert "questions[1].colour: Extra inputs are not permitted; remove it" in msg


def test_every_problem_is_listed(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    data["questions"] += [_q(id="q-1"), _q(id="q-3", doc="nope")]
    msg = _error(tmp_path, data)
    assert "(2 problems)" in msg and "questions[1].id" in msg and "questions[2].doc" in msg


def test_field_path_formatting() -> None:
    assert field_path(("questions", 3, "evidence", 0, "quote")) == "questions[3].evidence[0].quote"
    assert field_path(()) == "(top level)"


def test_builtin_dataset_path() -> None:
    assert builtin_dataset_path("repo_docs").name == "repo_docs.json"
    with pytest.raises(InvalidInputError, match=re.escape("built-in datasets: repo_docs")):
        builtin_dataset_path("nope")
    with pytest.raises(InvalidInputError):
        builtin_dataset_path("../../etc/passwd")


# ---- BEIR ------------------------------------------------------------------------------


def _beir(tmp_path: Path) -> Path:
    folder = tmp_path / "scifact-mini"
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    corpus = [
        {"_id": "d1", "title": "Fox facts", "text": "Foxes are small omnivores."},
        {"_id": "d/2", "title": "", "text": "Dogs sleep a lot."},
        {"_id": "d3", "title": "Cats", "text": "Cats purr."},
    ]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in corpus) + "\n")
    queries = [{"_id": "1", "text": "what do foxes eat"}, {"_id": "2", "text": "sleepy dogs"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(r) for r in queries))
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n1\td1\t1\n2\td/2\t1\n2\td3\t2\n2\td1\t0\n"
    )
    return folder


def test_beir_folder_loads_with_document_level_evidence(tmp_path: Path) -> None:
    ds = load_beir(_beir(tmp_path), cache_dir=tmp_path / "cache")
    assert ds.id == "scifact-mini" and len(ds.documents) == 3
    assert [q.id for q in ds.questions] == ["1", "2"]
    q2 = ds.questions[1]
    assert [e.doc for e in q2.evidence] == ["d/2", "d3"]  # score 0 is not relevant
    assert all(e.document_level for e in q2.evidence)
    d1 = ds.document("d1").path
    assert d1.read_text() == "Fox facts\n\nFoxes are small omnivores.\n"
    assert ds.document("d/2").path.parent == d1.parent and "/" not in ds.document("d/2").path.name
    # Document-level evidence: any chunk of a relevant document hits, others do not.
    ev = resolve_evidence(
        DocumentText("d3", "Cats\n\nCats purr."), quote=None, page=None, near=None, question_id="2"
    )
    assert chunk_hits("d3", LocatedChunk(0, 4, ()), ev)
    assert not chunk_hits("d1", LocatedChunk(0, 4, ()), ev)
    # Loading again reuses the same files.
    again = load_beir(_beir(tmp_path), cache_dir=tmp_path / "cache")
    assert again.document("d1").path == d1


def test_beir_bad_inputs(tmp_path: Path) -> None:
    folder = _beir(tmp_path)
    with open(folder / "corpus.jsonl", "a") as fh:
        fh.write("{broken\n")
    with pytest.raises(InvalidInputError, match=r"corpus\.jsonl: line 4 is not valid JSON"):
        load_beir(folder, cache_dir=tmp_path / "cache")
    folder = _beir(tmp_path / "x")
    (folder / "qrels" / "test.tsv").write_text("1\tmissing-doc\t1\n")
    with pytest.raises(InvalidInputError, match="unknown corpus ids"):
        load_beir(folder, cache_dir=tmp_path / "cache")
    with pytest.raises(InvalidInputError, match=r"qrels splits present: test"):
        load_beir(folder, split="dev", cache_dir=tmp_path / "cache")
    with pytest.raises(InvalidInputError, match="not a folder"):
        load_beir(tmp_path / "absent")
