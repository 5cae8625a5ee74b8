"""Walk docs/probed-cases.md: every row runs through the CLI in-process and must give its
exit code and message fragment. A row's `{name}` is built by FIXTURES[name](tmp)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main

TABLE = Path(__file__).parents[1] / "docs" / "probed-cases.md"
ROW = re.compile(
    r"^\| (?P<id>[a-z0-9-]+) \| (?P<item>[0-9-]+) \| `(?P<cmd>[^`]+)` "
    r"\| (?P<exit>\d+) \| (?P<msg>.+) \|$"
)
DEEP = "[" * 100_000 + "]" * 100_000
SECRET = b"token sk-proj-Ab3dEfGh1jKlMnOpQrSt\n"
QUOTE = "the quick brown fox jumps over the lazy dog"


def _rows() -> list[dict[str, str]]:
    rows = [m.groupdict() for line in TABLE.read_text().splitlines() if (m := ROW.match(line))]
    assert len(rows) >= 40, "the table lost rows (or its format changed)"
    return rows


# ---- fixtures: each writes under `tmp` and returns the path the command names ----------


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


_MIRROR: dict[str, Path] = {}


def _mirror(tmp: Path) -> Path:
    """The generated offline repository as a --git-mirror (built once per session)."""
    from gaia_eval.code_retrieval import offline_repo

    if "root" not in _MIRROR:
        root = tmp.parent / "probed-mirror"
        if not root.exists():
            offline_repo.build(root / "gaia-eval+invtrack")
        _MIRROR["root"] = root
    return _MIRROR["root"]


def _instance_rows(tmp: Path) -> list[dict[str, object]]:
    from gaia_eval.code_retrieval import offline_repo

    rows = offline_repo.instances(_mirror(tmp) / "gaia-eval+invtrack")
    return [{**r.__dict__, "created_at": None, "source": None} for r in rows[:1]]


def _instances(tmp: Path, **change: object) -> Path:
    rows = [{**r, **change} for r in _instance_rows(tmp)]
    return _write(tmp / "instances.jsonl", "".join(json.dumps(r) + "\n" for r in rows))


def _dataset(tmp: Path, name: str = "ds.json", **change: object) -> Path:
    _write(tmp / "a.txt", f"Intro. {QUOTE}. The end.\n")
    data: dict[str, object] = {
        "id": "probe",
        "documents": [{"id": "a", "path": "a.txt"}],
        "questions": [
            {
                "id": "q1",
                "doc": "a",
                "question": "What does the fox jump over?",
                "answer": "the lazy dog",
                "answer_type": "exact",
                "evidence": [{"quote": QUOTE}],
            }
        ],
    }
    data.update(change)
    return _write(tmp / name, json.dumps(data))


def _with_page(tmp: Path, page: object) -> Path:
    path = _dataset(tmp)
    data = json.loads(path.read_text())
    data["questions"][0]["evidence"] = [{"quote": QUOTE, "page": page}]
    return _write(path, json.dumps(data))


def _edited_question(tmp: Path, **change: object) -> Path:
    path = _dataset(tmp)
    data = json.loads(path.read_text())
    data["questions"][0].update(change)
    return _write(path, json.dumps(data))


def _with_document(tmp: Path, doc_path: str) -> Path:
    return _dataset(tmp, documents=[{"id": "a", "path": doc_path}])


def _fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "pipe.txt")
    return _with_document(tmp, "pipe.txt")


def _directory(tmp: Path) -> Path:
    (tmp / "folder.txt").mkdir()
    return _with_document(tmp, "folder.txt")


def _outside(tmp: Path) -> Path:
    _write(tmp / "elsewhere" / "a.txt", f"Intro. {QUOTE}. The end.\n")
    inner = tmp / "inner"
    inner.mkdir()
    data = json.loads(_dataset(tmp).read_text())
    data["documents"] = [{"id": "a", "path": "../elsewhere/a.txt"}]
    return _write(inner / "ds.json", json.dumps(data))


def _outside_absolute(tmp: Path) -> Path:
    path = _outside(tmp)
    data = json.loads(path.read_text())
    data["documents"][0]["path"] = str(tmp / "elsewhere" / "a.txt")
    return _write(path, json.dumps(data))


def _outside_symlink(tmp: Path) -> Path:
    path = _outside(tmp)
    (path.parent / "link.txt").symlink_to(tmp / "elsewhere" / "a.txt")
    data = json.loads(path.read_text())
    data["documents"][0]["path"] = "link.txt"
    return _write(path, json.dumps(data))


def _beir(
    tmp: Path, corpus: str | bytes, queries: str, qrels: str | bytes, split: str = "test"
) -> Path:
    folder = tmp / "beir-probe"
    _write(folder / "corpus.jsonl", corpus)
    _write(folder / "queries.jsonl", queries)
    _write(folder / "qrels" / f"{split}.tsv", qrels)
    return folder


CORPUS = json.dumps({"_id": "d1", "title": "Foxes", "text": "Foxes are small omnivores."}) + "\n"
QUERIES = json.dumps({"_id": "q1", "text": "what do foxes eat"}) + "\n"
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"


def _scorecard_run(tmp: Path) -> Path:
    _write(tmp / "run" / "scorecard.json", DEEP)
    return tmp / "run"


def _stale_out(tmp: Path) -> Path:
    (tmp / "stale" / "r3").mkdir(parents=True)
    return tmp / "stale"


def _secret_link(tmp: Path) -> Path:
    _write(tmp / "real.txt", SECRET)
    (tmp / "link.txt").symlink_to(tmp / "real.txt")
    return tmp / "link.txt"


def _secret_hard_link(tmp: Path) -> Path:
    _write(tmp / "a.txt", SECRET)
    os.link(tmp / "a.txt", tmp / "b.txt")
    return tmp / "a.txt"


def _rag_baseline(tmp: Path, edit: Callable[[dict[str, Any]], object] | None = None) -> Path:
    """The results.json of a real run on the `ds_ok` dataset, optionally edited."""
    out = tmp / "base"
    if not out.exists():
        argv = ["retrieval", "--component", "rag", "--dataset", str(_dataset(tmp))]
        assert main([*argv, "--embedder", "hash", "--no-hard-cases", "--out", str(out)]) == 0
    if edit is None:
        return out / "results.json"
    data = json.loads((out / "results.json").read_text())
    edit(data)
    return _write(tmp / f"edited-{len(list(tmp.glob('edited-*')))}.json", json.dumps(data))


def _rag_shard(
    tmp: Path, index: int, edit: Callable[[dict[str, Any]], object] | None = None
) -> Path:
    """The folder of shard `index`/2 of a real run on `ds_ok` (shard 1 is empty: its one
    question hashes to shard 2), optionally a copy with its results.json edited."""
    out = tmp / f"shard{index}"
    if not out.exists():
        argv = ["retrieval", "--component", "rag", "--dataset", str(_dataset(tmp))]
        flags = ["--embedder", "hash", "--no-hard-cases", "--shard", f"{index}/2"]
        assert main([*argv, *flags, "--out", str(out)]) == 0
    if edit is None:
        return out
    copy = tmp / f"shard{index}-edited-{len(list(tmp.glob(f'shard{index}-edited-*')))}"
    shutil.copytree(out, copy)
    data = json.loads((copy / "results.json").read_text())
    edit(data)
    _write(copy / "results.json", json.dumps(data))
    return copy


def _zero_digest(data: dict[str, Any]) -> None:
    data["header"]["definition_digest"] = "0" * 64


def _plant_item(data: dict[str, Any]) -> None:
    data["items"].append({**data["items"][0], "id": "probe/planted"})


def _with_text(tmp: Path, text: str) -> Path:
    """The `ds_ok` dataset with its one document's text replaced."""
    path = _dataset(tmp)
    _write(tmp / "a.txt", text)
    return path


DEEP_YAML = "persona: " + "[" * 5_000 + "]" * 5_000 + "\n"


def _yaml_bomb() -> str:
    """Nine levels of ten aliases each: 10^9 values from a dozen lines."""
    lines = ["l0: &l0 [" + ", ".join(['"lol"'] * 10) + "]"]
    for level in range(1, 9):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


def _in_folder(tmp: Path, name: str, text: str) -> Path:
    _write(tmp / name / "scenario.yaml", text)
    return tmp / name


def _nan_results(tmp: Path) -> Path:
    text = _rag_baseline(tmp).read_text()
    return _write(tmp / "nan.json", re.sub(r'"mrr": [0-9.]+', '"mrr": NaN', text, count=1))


def _nan_scorecard_run(tmp: Path) -> Path:
    _write(tmp / "run" / "scorecard.json", '{"schema": 1, "wall_seconds": NaN}')
    return tmp / "run"


def _legacy_empty(tmp: Path) -> Path:
    shipped = Path(__file__).parents[1] / "gaia_eval/baselines/retrieval/pr.json"
    data = json.loads(shipped.read_text())
    data["datasets"] = []
    return _write(tmp / "legacy-empty.json", json.dumps(data))


FIXTURES: dict[str, Callable[[Path], Path]] = {
    "tmp": lambda tmp: tmp,
    "out": lambda tmp: tmp / "out",
    "mirror": _mirror,
    "instances_option_commit": lambda tmp: _instances(tmp, base_commit=f"--output={tmp}/victim"),
    "instances_bad_repo": lambda tmp: _instances(tmp, repo="../../etc"),
    "instances_patch_escape": lambda tmp: _instances(
        tmp, patch="--- a/../../x.py\n+++ b/../../x.py\n@@ -1 +1 @@\n-a\n+b\n"
    ),
    "instances_no_files": lambda tmp: _instances(tmp, patch="not a diff\n"),
    "secret_link": _secret_link,
    "secret_hard_link": _secret_hard_link,
    "deep_json": lambda tmp: _write(tmp / "deep.json", DEEP),
    "deep_jsonl": lambda tmp: _write(tmp / "deep.jsonl", '{"a": ' + DEEP + "}\n"),
    "deep_scorecard_run": _scorecard_run,
    "latin1_file": lambda tmp: _write(tmp / "latin1.json", b'{"id": "caf\xe9"}\n'),
    "beir_latin1_corpus": lambda tmp: _beir(
        tmp, b'{"_id": "d1", "text": "caf\xe9"}\n', QUERIES, QRELS
    ),
    "beir_latin1_qrels": lambda tmp: _beir(tmp, CORPUS, QUERIES, b"q1\td1\t1\nq\xe9\td1\t1\n"),
    "beir_no_relevant": lambda tmp: _beir(tmp, CORPUS, QUERIES, "q1\td1\t0\n"),
    "beir_empty_corpus": lambda tmp: _beir(tmp, "\n", QUERIES, QRELS),
    "beir_id_true": lambda tmp: _beir(tmp, '{"_id": true, "text": "x"}\n', QUERIES, QRELS),
    "beir_object_text": lambda tmp: _beir(tmp, '{"_id": "d1", "text": {"a": 1}}\n', QUERIES, QRELS),
    "beir_duplicate_query": lambda tmp: _beir(tmp, CORPUS, QUERIES + QUERIES, QRELS),
    "beir_dev_only": lambda tmp: _beir(tmp, CORPUS, QUERIES, QRELS, split="dev"),
    "ds_ok": _dataset,
    "ds_same_file": lambda tmp: _dataset(
        tmp, documents=[{"id": "a", "path": "a.txt"}, {"id": "b", "path": "./a.txt"}]
    ),
    "ds_no_questions": lambda tmp: _dataset(tmp, questions=[]),
    "ds_no_documents": lambda tmp: _dataset(tmp, documents=[]),
    "ds_outside": _outside,
    "ds_outside_absolute": _outside_absolute,
    "ds_outside_symlink": _outside_symlink,
    "ds_question_object": lambda tmp: _edited_question(tmp, question={"text": "x"}),
    "ds_document_id_int": lambda tmp: _dataset(tmp, documents=[{"id": 1, "path": "a.txt"}]),
    "ds_page_true": lambda tmp: _with_page(tmp, True),
    "ds_page_string": lambda tmp: _with_page(tmp, "1"),
    "ds_fifo": _fifo,
    "ds_directory": _directory,
    "ds_dev_null": lambda tmp: _with_document(tmp, "/dev/null"),
    "rag_baseline": lambda tmp: Path(__file__).parents[1] / "gaia_eval/baselines/retrieval/pr.json",
    "stale_out": _stale_out,
    "a_file": lambda tmp: _write(tmp / "a-file", "not a folder\n"),
    "rag_incomplete_baseline": lambda tmp: _rag_baseline(
        tmp, lambda d: d["header"].update(complete=False)
    ),
    "rag_no_items_baseline": lambda tmp: _rag_baseline(tmp, lambda d: d.update(items=[])),
    "rag_summary_edited": lambda tmp: _rag_baseline(
        tmp, lambda d: d["summary"].update(datasets=[])
    ),
    "rag_legacy_empty": _legacy_empty,
    "nan_results": _nan_results,
    "ds_empty_document": lambda tmp: _with_text(tmp, ""),
    "ds_nul_document": lambda tmp: _with_text(tmp, "\x00"),
    "deep_yaml": lambda tmp: _write(tmp / "deep.yaml", DEEP_YAML),
    "yaml_bomb": lambda tmp: _write(tmp / "bomb.yaml", _yaml_bomb()),
    "yaml_loop": lambda tmp: _write(tmp / "loop.yaml", "persona: &a [*a]\n"),
    "deep_yaml_dir": lambda tmp: _in_folder(tmp, "deep", DEEP_YAML),
    "yaml_bomb_dir": lambda tmp: _in_folder(tmp, "bomb", _yaml_bomb()),
    "rag_shard1": lambda tmp: _rag_shard(tmp, 1),
    "rag_shard2": lambda tmp: _rag_shard(tmp, 2),
    "rag_shard1_zeroed": lambda tmp: _rag_shard(tmp, 1, _zero_digest),
    "rag_shard2_zeroed": lambda tmp: _rag_shard(tmp, 2, _zero_digest),
    "rag_shard2_planted": lambda tmp: _rag_shard(tmp, 2, _plant_item),
    "nan_scorecard_run": _nan_scorecard_run,
    "instances_missing_commit": lambda tmp: _instances(
        tmp, base_commit="0123456789abcdef" * 2 + "01234567"
    ),
}
PLACEHOLDER = re.compile(r"\{([a-z_0-9]+)\}")


def _argv(cmd: str, tmp: Path) -> list[str]:
    built: dict[str, str] = {}

    def fill(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in built:
            built[name] = str(FIXTURES[name](tmp))
        return built[name]

    return [PLACEHOLDER.sub(fill, word) for word in shlex.split(cmd)]


def _run(argv: list[str]) -> int:
    try:
        return int(main(argv))
    except SystemExit as exit_:  # argparse
        return int(exit_.code or 0)


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["id"])
def test_probed_case(
    row: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)  # a default results folder lands in the temp folder
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    case = tmp_path / "case"
    case.mkdir()
    argv = _argv(row["cmd"], case)
    capsys.readouterr()  # what building the fixtures printed (a baseline run) is not the row's
    code = _run(argv)
    out = capsys.readouterr()
    assert code == int(row["exit"]), f"{row['id']}: exit {code}\n{out.err[-3000:]}"
    assert row["msg"].strip() in out.err + out.out, f"{row['id']}:\n{out.err[-3000:]}"
    if row["id"] == "git-option-commit":
        assert not (case / "victim").exists()
    shutil.rmtree(case, ignore_errors=True)


def test_every_placeholder_has_a_fixture() -> None:
    used = {name for row in _rows() for name in PLACEHOLDER.findall(row["cmd"])}
    assert used <= set(FIXTURES), used - set(FIXTURES)


def test_tests_named_in_the_table_exist() -> None:
    """The "Tested elsewhere" rows name real tests (the table must not drift)."""
    names = set(re.findall(r"::(test_[a-z0-9_]+)", TABLE.read_text()))
    assert names
    sources = "".join(p.read_text() for p in Path(__file__).parent.rglob("test_*.py"))
    missing = sorted(n for n in names if f"def {n}(" not in sources)
    assert not missing, missing
