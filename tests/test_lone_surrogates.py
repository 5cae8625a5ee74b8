"""A lone surrogate ("\\ud800" written as a JSON or YAML escape) parses, but no UTF-8 file,
digest or report can hold it: every loader refuses it up front, exit 2 naming the file,
the field and the row's id (a RAG question, a code instance, a task, a scenario); the
lenient transcript reader keeps the record with U+FFFD instead."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from retrieval_rag_data import write_dataset

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.jsontext import PROBLEM

BAD = "\\ud800"  # as it is written in the file: a backslash escape, not the character


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def test_a_rag_evidence_quote_is_exit_2_naming_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["retrieval", "--component", "rag", "--init-dataset", str(tmp_path / "ds")]) == 0
    path = tmp_path / "ds" / "dataset.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    qid = data["questions"][1]["id"]
    quote = data["questions"][1]["evidence"][0]["quote"]
    text = path.read_text(encoding="utf-8")
    assert text.count(json.dumps(quote)[1:-1]) == 1
    path.write_text(text.replace(json.dumps(quote)[1:-1], "x" + BAD), encoding="utf-8")
    capsys.readouterr()
    argv = ["retrieval", "--component", "rag", "--dataset", str(path), "--embedder", "hash"]
    assert main([*argv, "--no-hard-cases", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert f"questions[1].evidence[0].quote (in question {qid!r}): holds a lone surrogate" in err
    assert "internal error" not in err and not (tmp_path / "run").exists()


def test_a_rag_document_may_be_a_non_utf8_file_name(tmp_path: Path) -> None:
    import os

    from gaia_eval.retrieval.dataset import load_dataset

    path = write_dataset(tmp_path / "data")
    docs = tmp_path / "data" / "docs"
    (docs / "pumps.md").rename(os.fsdecode(bytes(docs) + b"/caf\xe9.md"))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["documents"][0]["path"] = "docs/caf\udce9.md"  # the name's surrogate escape
    path.write_text(json.dumps(data), encoding="utf-8")
    ds = load_dataset(path)
    assert ds.documents[0].path.name == "caf\udce9.md" and ds.documents[0].path.is_file()


def test_a_beir_row_is_refused_naming_line_and_id(tmp_path: Path) -> None:
    from gaia_eval.retrieval.dataset import load_beir

    (tmp_path / "qrels").mkdir()
    (tmp_path / "corpus.jsonl").write_text(
        '{"_id": "d1", "text": "fine"}\n{"_id": "d2", "text": "bad ' + BAD + '"}\n'
    )
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "what"}\n')
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    with pytest.raises(
        InvalidInputError, match=r"corpus.jsonl: line 2 \(`_id` 'd2'\): text: holds a lone"
    ):
        load_beir(tmp_path, cache_dir=tmp_path / "cache")


def test_a_code_instance_is_refused_naming_the_instance(tmp_path: Path) -> None:
    from gaia_eval.code_retrieval.instances import load_jsonl

    row = {
        "instance_id": "pkg__pkg-1",
        "repo": "o/r",
        "base_commit": "a" * 40,
        "problem_statement": "PLACEHOLDER",
        "patch": "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
    }
    path = tmp_path / "instances.jsonl"
    path.write_text(json.dumps(row).replace("PLACEHOLDER", "crash " + BAD) + "\n")
    with pytest.raises(InvalidInputError) as info:
        load_jsonl(path)
    assert f"{path}:1: problem_statement" in str(info.value)
    assert "lone surrogate" in str(info.value)


def test_a_tasks_file_is_exit_2_naming_the_task(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = Path(__file__).parents[1] / "gaia_eval" / "tasks" / "data" / "tasks.json"
    data = json.loads(shipped.read_text(encoding="utf-8"))
    task = data["tasks"][0] if isinstance(data["tasks"], list) else None
    assert task is not None and "id" in task
    task["prompt"] = "PLACEHOLDER"
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(data).replace("PLACEHOLDER", BAD), encoding="utf-8")
    model = "openai:http://127.0.0.1:9/v1#m"
    argv = ["tasks", "run", "--tasks-file", str(path), "--no-judge", "--model", model]
    assert main([*argv, "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"tasks[0].prompt (in task {task['id']!r}): holds a lone surrogate" in err


def test_a_memory_scenario_is_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = Path(__file__).parents[1] / "gaia_eval" / "memory" / "data"
    source = shipped / "jordan_reminders_change.yaml"
    text = source.read_text(encoding="utf-8")
    path = tmp_path / source.name
    assert "\npersona:" in text
    path.write_text(text.replace("\npersona:", f'\nextra_note: "x{BAD}"\npersona:', 1))
    assert main(["memory", "--scenarios", str(path), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"{path}: extra_note: holds a lone surrogate" in err


def test_a_transcript_line_keeps_its_record_with_a_replacement_character(tmp_path: Path) -> None:
    from gaia_eval.sessions.transcript import read_transcript

    path = tmp_path / "s.jsonl"
    path.write_text('{"type": "user", "text": "a' + BAD + 'b"}\n{"type": "user", "text": "ok"}\n')
    out = read_transcript(path)
    assert [r["text"] for r in out.records] == ["a\ufffdb", "ok"]
    json.dumps(out.records, ensure_ascii=False).encode("utf-8")  # writable again


def test_results_files_keep_surrogate_escaped_file_names(tmp_path: Path) -> None:
    from gaia_eval.core.jsontext import surrogate_problems
    from gaia_eval.core.results_io import read_json

    # A non-UTF-8 file name travels as surrogate escapes and is written back as \udcxx:
    # results are read as they were written, and only input files are refused.
    path = tmp_path / "results.json"
    path.write_text('{"items": [{"id": "q1", "top_files": ["caf\\udce9.py"]}]}')
    assert read_json(path) == {"items": [{"id": "q1", "top_files": ["caf\udce9.py"]}]}
    assert surrogate_problems(read_json(path)) == [
        f"items[0].top_files[0] (in item 'q1'): {PROBLEM}"
    ]
    # A valid surrogate pair (an emoji) is text like any other.
    assert surrogate_problems({"x": "\U0001f600"}, '{"x": "\\ud83d\\ude00"}') == []
