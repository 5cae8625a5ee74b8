"""End to end through `gaia-eval retrieval --component rag` with a user retriever
(`--system module:factory`) on a dataset built in tmp_path: fast, real files, real CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from retrieval_rag_data import QUESTIONS, write_dataset

from gaia_eval.cli.main import main
from gaia_eval.retrieval.runner import load_results

TOY = "retrieval_rag_toy_system:make"


def _run(tmp_path: Path, out: str, *extra: str, dataset: Path | None = None) -> int:
    ds = dataset or write_dataset(tmp_path / "data")
    return main(
        [
            "retrieval",
            "--component",
            "rag",
            "--dataset",
            str(ds),
            "--system",
            TOY,
            "--out",
            str(tmp_path / out),
            *extra,
        ]
    )


def test_a_user_retriever_runs_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, "run", "--no-hard-cases") == 0
    results = load_results(tmp_path / "run" / "results.json")
    assert results.meta.complete
    assert results.meta.system == TOY
    assert results.meta.embedder == "hash:256"
    assert results.meta.vlm.enabled is False
    (ds,) = results.datasets
    assert ds.dataset == "toy"
    assert [q.id for q in ds.questions] == [q["id"] for q in QUESTIONS]
    # Each question's wording overlaps its evidence sentence, so dense search finds it.
    assert all(q.sdk_rank is not None and q.sdk_rank <= 3 for q in ds.questions)
    assert ds.summary.sdk.recall_at_5 == 1.0
    assert all(q.agent_returned == 3 for q in ds.questions)
    assert ds.index is not None
    assert ds.index.documents == 5
    assert ds.index.indexed == 5
    assert ds.index.unlocated_chunks == 0
    assert ds.index.chunks == sum(d.chunks for d in ds.index.per_document)
    assert ds.index.cache_on_disk_mb is None  # a user system has no cache we know of
    assert ds.index.rss_peak_mb >= ds.index.rss_start_mb > 0
    assert set(ds.by_tag) == {"lang:en", "numeric", "spec", "text"}
    assert results.hard_cases is None
    raw = json.loads((tmp_path / "run" / "results.json").read_text())
    assert list(raw) == ["schema", "meta", "datasets", "hard_cases"]
    assert raw["schema"] == 1
    assert "recall@5" in raw["datasets"][0]["summary"]["sdk"]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Dataset `toy` (5 questions)" in report
    out = capsys.readouterr().out
    assert "toy: 5 questions | sdk R@5 1.000" in out


def test_hard_cases_with_a_user_retriever(tmp_path: Path) -> None:
    assert _run(tmp_path, "hc", dataset=write_dataset(tmp_path / "d2")) == 0
    cases = {c.id: c for c in load_results(tmp_path / "hc" / "results.json").hard_cases or []}
    assert list(cases) == [
        "replaced_document",
        "exact_duplicate",
        "corrupted_cache",
        "corrupted_pdf",
        "capacity_eviction",
        "scanned_pdf",
    ]
    assert cases["replaced_document"].status == "pass"
    assert cases["exact_duplicate"].status in ("pass", "fail")
    # The toy system's identical copies rank side by side: a real finding, measured.
    assert "duplicate_share_top5" in cases["exact_duplicate"].details
    for cid in ("corrupted_cache", "capacity_eviction"):
        assert cases[cid].status == "skipped"
        assert "reference system" in cases[cid].finding
    for cid in ("scanned_pdf", "corrupted_pdf"):
        assert cases[cid].status == "skipped"
        assert "no PDF" in cases[cid].finding


def test_a_crash_partway_still_writes_results(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "data")
    args = ["retrieval", "--component", "rag", "--dataset", str(ds), "--no-hard-cases"]
    # An exception that is not a gaia-eval error is a bug somewhere: exit 70, results kept.
    rc = main(
        [*args, "--system", "retrieval_rag_toy_system:make_crashing", "--out", str(tmp_path / "o")]
    )
    assert rc == 70
    results = load_results(tmp_path / "o" / "results.json")
    assert results.meta.complete is False
    assert results.meta.errors == ["RuntimeError: toy index lost its vectors"]
    (d,) = results.datasets
    assert [q.id for q in d.questions] == ["toy-001", "toy-002"]
    assert d.summary.questions == 2
    assert d.index is not None
    report = (tmp_path / "o" / "report.md").read_text()
    assert "**The run did not complete**" in report
    assert "RuntimeError: toy index lost its vectors" in report


def test_sigterm_partway_still_writes_results(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "data")
    marker = tmp_path / "first-query"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(
            [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
        ),
        "TOY_MARKER": str(marker),
    }
    cmd = [sys.executable, "-m", "gaia_eval", "retrieval", "--component", "rag"]
    cmd += ["--dataset", str(ds), "--system", "retrieval_rag_toy_system:make_slow"]
    cmd += ["--no-hard-cases", "--out", str(tmp_path / "o")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()
    results = load_results(tmp_path / "o" / "results.json")
    assert results.meta.complete is False
    assert results.meta.errors == ["Terminated: the run received SIGTERM"]
    assert len(results.datasets[0].questions) < len(QUESTIONS)


def test_a_wrong_label_stops_the_run_naming_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = [dict(q) for q in QUESTIONS]
    bad[2] = {**bad[2], "evidence": [{"quote": "The sleeper train to Paris leaves at dawn daily"}]}
    ds = write_dataset(tmp_path / "data", questions=bad)
    assert _run(tmp_path, "o", "--no-hard-cases", dataset=ds) == 2
    err = capsys.readouterr().err
    assert "toy-003" in err
    results = load_results(tmp_path / "o" / "results.json")
    assert results.meta.complete is False
    assert "toy-003" in results.meta.errors[0]
    assert results.datasets[0].questions == []  # stopped before the first query


def _edit(src: Path, dst: Path, fn: Any) -> Path:
    data = json.loads(src.read_text())
    fn(data)
    dst.write_text(json.dumps(data))
    return dst


def test_gate_pass_fail_and_refusal_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = write_dataset(tmp_path / "data")
    assert _run(tmp_path, "base", "--no-hard-cases", dataset=ds) == 0
    base = tmp_path / "base" / "results.json"
    # A rerun gated against the first run passes (deterministic system, same data).
    assert _run(tmp_path, "again", "--no-hard-cases", "--gate", str(base), dataset=ds) == 0
    assert "## Gate: PASS" in (tmp_path / "again" / "report.md").read_text()
    assert (
        main(
            [
                "retrieval",
                "--component",
                "rag",
                "--compare",
                str(base),
                str(base),
                "--tolerance",
                "0",
            ]
        )
        == 0
    )

    def lose_two(data: dict[str, Any]) -> None:
        for q in data["datasets"][0]["questions"][:2]:
            q["sdk_rank"] = None
        data["datasets"][0]["summary"]["sdk"]["recall@5"] = 0.6
        data["datasets"][0]["summary"]["sdk"]["mrr"] = 0.5

    worse = _edit(base, tmp_path / "worse.json", lose_two)
    capsys.readouterr()
    assert main(["retrieval", "--component", "rag", "--compare", str(base), str(worse)]) == 1
    captured = capsys.readouterr()
    assert "## Gate: FAIL" in captured.out
    assert "toy-001" in captured.out and "PASS→FAIL" in captured.out
    assert "sdk recall@5 dropped" in captured.err

    other = _edit(base, tmp_path / "other.json", lambda d: d["meta"].update(embedder="onnx:x"))
    assert main(["retrieval", "--component", "rag", "--compare", str(base), str(other)]) == 3
    assert "embedder" in capsys.readouterr().err

    # A run gated against a baseline of another embedder is refused (exit 3) as soon as
    # the system reports its embedder, before any indexing.
    assert _run(tmp_path, "refused", "--no-hard-cases", "--gate", str(other), dataset=ds) == 3
    refused = load_results(tmp_path / "refused" / "results.json")
    assert refused.meta.errors[0].startswith("NotComparableError")
    assert refused.datasets[0].index is None


def test_bad_baselines_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = tmp_path / "code.json"
    code.write_text(json.dumps({"schema": 1, "meta": {"component": "code"}}))
    assert main(["retrieval", "--component", "rag", "--compare", str(code), str(code)]) == 2
    assert "not a RAG retrieval results file" in capsys.readouterr().err
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema": 7, "meta": {"component": "rag"}}))
    assert main(["retrieval", "--component", "rag", "--compare", str(newer), str(newer)]) == 2
    assert "field 'schema' is 7" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema": 1, "meta": {"component": "rag", "suite": "pr"}}))
    assert main(["retrieval", "--component", "rag", "--compare", str(broken), str(broken)]) == 2
    assert "field 'meta." in capsys.readouterr().err


def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run that fails after it starts still writes its partial results under ./eval/results;
    # keep them out of the checkout.
    monkeypatch.chdir(tmp_path)
    assert main(["retrieval", "--component", "rag", "--suite", "full"]) == 2
    assert "not available in this build" in capsys.readouterr().err
    assert main(["retrieval", "--component", "rag", "--system", TOY, "--embedder", "hash"]) == 2
    assert main(["retrieval", "--component", "rag", "--system", "nope"]) == 2
    ds = write_dataset(tmp_path / "data")
    not_one = "retrieval_rag_toy_system:not_a_retriever"
    args = ["retrieval", "--component", "rag", "--dataset", str(ds), "--system", not_one]
    assert main([*args, "--out", str(tmp_path / "o")]) == 2
    assert "does not implement the Retriever protocol" in capsys.readouterr().err


def test_a_beir_folder_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    beir = tmp_path / "tiny-beir"
    (beir / "qrels").mkdir(parents=True)
    corpus = [
        {"_id": "d1", "title": "Pumps", "text": "The north pump delivers water at 42 bar."},
        {"_id": "d2", "title": "Bees", "text": "A hive holds fifty thousand honey bees."},
        {"_id": "d3", "title": "Trains", "text": "The sleeper train leaves Lisbon at night."},
    ]
    queries = [
        {"_id": "q1", "text": "pump water pressure bar"},
        {"_id": "q2", "text": "how many honey bees in a hive"},
    ]
    (beir / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (beir / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    out = tmp_path / "o"
    args = ["retrieval", "--component", "rag", "--beir", str(beir), "--system", TOY]
    assert main([*args, "--no-hard-cases", "--out", str(out)]) == 0
    results = load_results(out / "results.json")
    (d,) = results.datasets
    assert d.dataset == "tiny-beir"
    assert d.source == f"beir:{beir}"
    # Document-level evidence: any chunk of the relevant document is a hit.
    assert [(q.id, q.sdk_rank) for q in d.questions] == [("q1", 1), ("q2", 1)]
