"""Issue 12, silent wrong answers in loaders and flags (the CLI cases are rows of
docs/probed-cases.md; these need a listener, a report or the loader itself)."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import offline_repo
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import read_json
from gaia_eval.retrieval.dataset import load_dataset

QUOTE = "the quick brown fox jumps over the lazy dog"


# ---- 16: --offline never touches the network -------------------------------------------


class _Listener:
    """A loopback TCP port that records every connection made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


def test_offline_code_retrieval_never_connects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = offline_repo.build(tmp_path / "src" / "invtrack")
    rows = [
        {**r.__dict__, "created_at": None, "source": None} for r in offline_repo.instances(repo)
    ]
    inst = tmp_path / "instances.jsonl"
    inst.write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    listener = _Listener()
    try:
        argv = [
            "retrieval", "--component", "code", "--suite", "nightly", "--parts", "quality",
            "--offline", "--instances-file", str(inst), "--work-root", str(tmp_path / "work"),
            "--url-template", f"http://127.0.0.1:{listener.port}/{{repo}}.git",
            "--out", str(tmp_path / "out"),
        ]  # fmt: skip
        main(argv)
    finally:
        listener.close()
    assert listener.connections == 0, "--offline cloned over the network"
    results = read_json(tmp_path / "out" / "results.json")
    reasons = [item["error"] for item in results["items"]]
    assert reasons and all("offline" in r for r in reasons), reasons
    assert {item["status"] for item in results["items"]} == {"infra_error"}
    assert os.environ["HF_HUB_OFFLINE"] == "1"  # model hubs use their cache only


def test_offline_refuses_a_remote_embedder(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "retrieval", "--component", "code", "--suite", "offline", "--offline",
        "--embedder", "openai:https://api.example.net/v1#m",
    ]  # fmt: skip
    assert main(argv) == 2
    assert "--offline: --embedder" in capsys.readouterr().err


def test_offline_still_clones_from_a_local_template(tmp_path: Path) -> None:
    from gaia_eval.code_retrieval.repos import Repos

    offline_repo.build(tmp_path / "served" / "o+n")
    repos = Repos(tmp_path / "trees", url_template=f"{tmp_path}/served/o+n", offline=True)
    assert Path(repos.source("o/n")).is_dir()


# ---- 20: documents outside the dataset folder --------------------------------------------


def _outside_dataset(tmp_path: Path, **extra: object) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(f"Intro. {QUOTE}. The end.\n")
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "b.txt").write_text("Another document about dogs and cats.\n")
    data = {
        "id": "outside",
        "documents": [{"id": "a", "path": "../docs/a.txt"}, {"id": "b", "path": "b.txt"}],
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
        **extra,
    }
    path = inner / "ds.json"
    path.write_text(json.dumps(data))
    return path


def test_report_lists_documents_outside_the_dataset_folder(tmp_path: Path) -> None:
    ds = _outside_dataset(tmp_path)
    argv = [
        "retrieval", "--component", "rag", "--dataset", str(ds), "--allow-outside",
        "--embedder", "hash", "--no-hard-cases", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    assert main(argv) == 0
    results = read_json(tmp_path / "out" / "results.json")
    assert results["summary"]["datasets"][0]["documents_outside"] == ["a"]
    report = (tmp_path / "out" / "report.md").read_text()
    assert "Documents outside the dataset folder (allowed): `a`" in report


def test_symlink_out_of_the_folder_counts_as_outside(tmp_path: Path) -> None:
    ds = _outside_dataset(tmp_path)
    data = json.loads(ds.read_text())
    (ds.parent / "link.txt").symlink_to(tmp_path / "docs" / "a.txt")
    data["documents"][0]["path"] = "link.txt"
    ds.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"documents\[0\]\.path: .* is outside"):
        load_dataset(ds)
    ds.write_text(json.dumps({**data, "allow_outside": True}))
    assert load_dataset(ds).documents_outside() == ["a"]


# ---- 14 and 21 at the loader ------------------------------------------------------------


def test_one_file_named_twice_through_a_symlink_is_refused(tmp_path: Path) -> None:
    ds = _outside_dataset(tmp_path)
    data = json.loads(ds.read_text())
    (ds.parent / "alias.txt").symlink_to(ds.parent / "b.txt")
    data["documents"] = [{"id": "b", "path": "b.txt"}, {"id": "c", "path": "alias.txt"}]
    data["questions"][0]["doc"] = "b"
    ds.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"names the same file as documents\[0\]"):
        load_dataset(ds)


@pytest.mark.parametrize("page", [True, "1", 1.0])
def test_page_must_be_a_json_whole_number(tmp_path: Path, page: object) -> None:
    ds = _outside_dataset(tmp_path, allow_outside=True)
    data = json.loads(ds.read_text())
    data["questions"][0]["evidence"] = [{"quote": QUOTE, "page": page}]
    ds.write_text(json.dumps(data))
    with pytest.raises(InvalidInputError, match=r"questions\[0\]\.evidence\[0\]\.page"):
        load_dataset(ds)
