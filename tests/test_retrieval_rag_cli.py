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
from retrieval_rag_data import QUESTIONS, text_pdf, write_dataset

from gaia_eval.cli.main import main
from gaia_eval.core.results import ENVELOPE_SCHEMA, Envelope, load_envelope
from gaia_eval.core.suite import legacy_converters
from gaia_eval.retrieval.models import QuestionResult, RagResults, RagSetup, RagSummary
from gaia_eval.retrieval.summary import questions, result_of

TOY = "retrieval_rag_toy_system:make"
RAG = ["retrieval", "--component", "rag"]


def _run(tmp_path: Path, out: str, *extra: str, dataset: Path | None = None) -> int:
    ds = dataset or write_dataset(tmp_path / "data")
    return main([*RAG, "--dataset", str(ds), "--system", TOY, "--out", str(tmp_path / out), *extra])


def _load(folder: Path) -> Envelope:
    return load_envelope(folder / "results.json", suite="retrieval-rag", legacy=legacy_converters())


def _summary(env: Envelope) -> RagSummary:
    return RagSummary.model_validate(env.summary)


def test_a_user_retriever_runs_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, "run") == 0
    env = _load(tmp_path / "run")
    head = env.header
    assert head.complete and not head.errors
    assert head.system == TOY
    assert head.embedder == "hash:256"  # learned from the built system
    assert head.settings["vlm"] is False
    assert head.tier == "toy"  # a --dataset run is named after its dataset, not "pr"
    # A --dataset run does not run the pr hard cases unless asked.
    assert [r.id for r in env.items] == [f"toy/{q['id']}" for q in QUESTIONS]
    (ds,) = _summary(env).datasets
    assert ds.dataset == "toy"
    qs = questions(env)["toy"]
    assert [q.id for q in qs] == [q["id"] for q in QUESTIONS]
    assert [q.question for q in qs] == [q["question"] for q in QUESTIONS]
    # Each question's wording overlaps its evidence sentence, so dense search finds it.
    assert all(q.sdk_rank is not None and q.sdk_rank <= 3 for q in qs)
    assert ds.summary.sdk.recall_at_5 == 1.0
    assert all(q.agent_returned == 3 for q in qs)
    ix = ds.index
    assert ix is not None
    assert ix.documents == 5
    assert ix.indexed == 5
    assert ix.unlocated_chunks == 0
    assert ix.chunks == sum(d.chunks for d in ix.per_document)
    assert ix.cache_on_disk_mb is None  # a user system has no cache we know of
    assert ix.rss_peak_mb >= ix.rss_start_mb > 0
    assert set(ds.by_tag) == {"lang:en", "numeric", "spec", "text"}
    assert _summary(env).hard_cases is None
    assert RagSetup.model_validate(env.setup).system is not None
    raw = json.loads((tmp_path / "run" / "results.json").read_text())
    assert raw["schema"] == ENVELOPE_SCHEMA and raw["kind"] == "gaia-eval/results"
    RagResults.model_validate(raw)  # the published schema's model reads it
    assert "recall@5" in raw["summary"]["datasets"][0]["summary"]["sdk"]
    assert len((tmp_path / "run" / "items.jsonl").read_text().splitlines()) == 5
    report = (tmp_path / "run" / "report.md").read_text()
    assert report.startswith("# RAG retrieval — toy\n")
    assert "## Dataset `toy` (5 questions)" in report
    assert "<svg" in (tmp_path / "run" / "report.html").read_text()
    out = capsys.readouterr().out
    assert "toy: sdk R@5 / MRR: 1.000" in out
    assert f"report: {tmp_path / 'run' / 'report.md'}" in out


def test_a_dataset_run_is_foldered_by_its_dataset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds = write_dataset(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    assert main([*RAG, "--dataset", str(ds), "--system", TOY]) == 0
    (folder,) = (tmp_path / "eval" / "results").iterdir()
    assert folder.name.startswith("retrieval-rag-toy-")
    assert (folder / "report.md").is_file()


def test_hard_cases_with_a_user_retriever(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "d2")
    assert _run(tmp_path, "hc", "--hard-cases", dataset=ds) == 0
    env = _load(tmp_path / "hc")
    cases = {
        r.id.removeprefix("hard/"): result_of(r) for r in env.items if r.id.startswith("hard/")
    }
    assert list(cases) == [
        "replaced_document",
        "exact_duplicate",
        "corrupted_cache",
        "corrupted_pdf",
        "capacity_eviction",
        "scanned_pdf",
    ]
    got = {
        cid: c for cid, c in cases.items() if c is not None and not isinstance(c, QuestionResult)
    }
    assert got["replaced_document"].status == "pass"
    assert got["exact_duplicate"].status in ("pass", "fail")
    # The toy system's identical copies rank side by side: a real finding, measured.
    assert "duplicate_share_top5" in got["exact_duplicate"].details
    for cid in ("corrupted_cache", "capacity_eviction"):
        assert got[cid].status == "skipped"
        assert "reference system" in got[cid].finding
    for cid in ("scanned_pdf", "corrupted_pdf"):
        assert got[cid].status == "skipped"
        assert "no PDF" in got[cid].finding
    assert _summary(env).hard_cases == {cid: c.status for cid, c in got.items()}


def test_a_crash_partway_fails_the_run_and_keeps_the_rest(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "data")
    crashing = "retrieval_rag_toy_system:make_crashing"
    code = main([*RAG, "--dataset", str(ds), "--system", crashing, "--out", str(tmp_path / "o")])
    assert code == 1
    env = _load(tmp_path / "o")
    assert env.header.item_errors == 3
    assert [r.id for r in env.items if r.status == "ok"] == ["toy/toy-001", "toy/toy-002"]
    crashed = [r for r in env.items if r.status == "error"]
    assert all(r.error == "RuntimeError: toy index lost its vectors" for r in crashed)
    (d,) = _summary(env).datasets
    assert d.summary.questions == 2
    assert d.index is not None
    report = (tmp_path / "o" / "report.md").read_text()
    assert "**3 item(s) crashed**" in report
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
    cmd = [sys.executable, "-m", "gaia_eval", *RAG]
    cmd += ["--dataset", str(ds), "--system", "retrieval_rag_toy_system:make_slow"]
    cmd += ["--out", str(tmp_path / "o")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, err.decode()
    result = _load(tmp_path / "o")
    assert result.header.complete is False and result.header.interrupted
    assert result.header.errors == ["Terminated: the run received signal 15"]
    assert len(result.items) < len(QUESTIONS)
    assert "Measured so far:" in (tmp_path / "o" / "report.md").read_text()


def test_a_wrong_label_stops_the_run_naming_the_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = [dict(q) for q in QUESTIONS]
    bad[2] = {**bad[2], "evidence": [{"quote": "The sleeper train to Paris leaves at dawn daily"}]}
    ds = write_dataset(tmp_path / "data", questions=bad)
    assert _run(tmp_path, "o", dataset=ds) == 2
    err = capsys.readouterr().err
    # A text document's quotes are checked when the dataset loads, with its other problems:
    # the file, the field path and the question, before anything ran.
    assert f"{ds}: invalid dataset (1 problem):" in err
    assert "questions[2].evidence[0].quote: question toy-003" in err
    assert not (tmp_path / "o" / "results.json").exists()


def test_wrong_labels_in_a_pdf_are_all_named_once_extracted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PDF's text is known only once extracted: its labels are checked before the first
    query, every wrong one named with the dataset file, its field path and question."""
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "manual.pdf").write_bytes(text_pdf([["The valve opens at nine in the morning."]]))
    wrong = {"answer": "x", "answer_type": "exact", "doc": "manual", "question": "When?"}
    bad = [
        *QUESTIONS,
        {**wrong, "id": "pdf-1", "evidence": [{"quote": "The valve closes at noon every day"}]},
        {**wrong, "id": "pdf-2", "evidence": [{"quote": "Nothing like this is in the PDF"}]},
    ]
    ds = write_dataset(folder, questions=bad, extra_docs={"manual": "manual.pdf"})
    argv = [*RAG, "--dataset", str(ds), "--embedder", "hash", "--out", str(tmp_path / "o")]
    assert main(argv) == 2  # the reference system, which extracts the PDF
    err = capsys.readouterr().err
    assert f"{ds}: evidence not in its document (2 problems):" in err
    assert "questions[5].evidence[0]: question pdf-1, document manual" in err
    assert "questions[6].evidence[0]: question pdf-2, document manual" in err
    assert _load(tmp_path / "o").items == []  # stopped before the first query


def _edit(src: Path, dst: Path, fn: Any) -> Path:
    data = json.loads(src.read_text())
    fn(data)
    dst.write_text(json.dumps(data))
    return dst


def test_gate_pass_fail_and_refusal_exit_codes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = write_dataset(tmp_path / "data")
    assert _run(tmp_path, "base", dataset=ds) == 0
    base = tmp_path / "base" / "results.json"
    # A rerun gated against the first run passes (deterministic system, same data).
    assert _run(tmp_path, "again", "--gate", str(base), dataset=ds) == 0
    assert "Gate **PASSED**" in (tmp_path / "again" / "report.md").read_text()
    assert _load(tmp_path / "again").verdict is not None
    assert main([*RAG, "--compare", str(base), str(base), "--tolerance", "0"]) == 0

    def lose_two(data: dict[str, Any]) -> None:
        for rec in data["items"][:2]:
            rec["result"]["sdk_rank"] = None
        data["summary"]["datasets"][0]["summary"]["sdk"]["recall@5"] = 0.6
        data["summary"]["datasets"][0]["summary"]["sdk"]["mrr"] = 0.5

    worse = _edit(base, tmp_path / "worse.json", lose_two)
    capsys.readouterr()
    assert main([*RAG, "--compare", str(base), str(worse)]) == 1
    captured = capsys.readouterr()
    assert "Gate **FAILED**" in captured.out
    assert "| `toy/toy-001` | sdk hit@5 | pass | fail | no |" in captured.out
    assert "sdk recall@5 dropped" in captured.err

    def other_embedder(data: dict[str, Any]) -> None:
        data["header"]["embedder"] = "onnx:x"

    other = _edit(base, tmp_path / "other.json", other_embedder)
    assert main([*RAG, "--compare", str(base), str(other)]) == 3
    assert "embedder" in capsys.readouterr().err

    # A run gated against a baseline of another embedder is refused (exit 3) as soon as
    # the system reports its embedder, before any indexing; what it has is written.
    assert _run(tmp_path, "refused", "--gate", str(other), dataset=ds) == 3
    refused = _load(tmp_path / "refused")
    assert refused.header.errors[0].startswith("not comparable with")
    assert RagSetup.model_validate(refused.setup).index("toy") is None

    # A baseline that cannot gate is refused before the run: nothing is measured or written.
    def incomplete(data: dict[str, Any]) -> None:
        data["header"]["complete"] = False

    broken = _edit(base, tmp_path / "incomplete.json", incomplete)
    capsys.readouterr()
    assert _run(tmp_path, "never", "--gate", str(broken), dataset=ds) == 2
    assert "did not complete" in capsys.readouterr().err
    assert not (tmp_path / "never" / "results.json").exists()


def test_bad_baselines_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = tmp_path / "code.json"
    code.write_text(json.dumps({"schema": 1, "meta": {"component": "code"}}))
    assert main([*RAG, "--compare", str(code), str(code)]) == 2
    assert "a code retrieval results file, not a retrieval-rag results.json" in (
        capsys.readouterr().err
    )
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"schema": 7, "meta": {"component": "rag"}}))
    assert main([*RAG, "--compare", str(newer), str(newer)]) == 2
    assert "field 'schema' is 7" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema": 1, "meta": {"component": "rag", "suite": "pr"}}))
    assert main([*RAG, "--compare", str(broken), str(broken)]) == 2
    assert "field 'meta." in capsys.readouterr().err
    truncated = tmp_path / "truncated.json"
    truncated.write_text('{"schema": 1, "kind": "gaia-eval/res')
    assert main([*RAG, "--compare", str(truncated), str(truncated)]) == 2
    assert "truncated.json" in capsys.readouterr().err


def test_a_baseline_that_measured_nothing_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shipped = Path(__file__).parents[1] / "gaia_eval" / "baselines" / "retrieval" / "pr.json"
    empty = _edit(shipped, tmp_path / "empty.json", lambda d: d.update(datasets=[]))
    assert _run(tmp_path, "o", "--gate", str(empty)) == 2
    assert "measured nothing" in capsys.readouterr().err
    assert not (tmp_path / "o" / "results.json").exists()


def test_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A run that fails after it starts still writes its partial results under ./eval/results;
    # keep them out of the checkout.
    monkeypatch.chdir(tmp_path)
    # The shipped manifest leaves the technical documents unverified (not fetched here):
    # the full suite refuses them by name before any download.
    assert main([*RAG, "--suite", "full", "--offline"]) == 2
    assert "--no-vlm" in capsys.readouterr().err  # a full run says whether images are read
    assert main([*RAG, "--suite", "full", "--offline", "--no-vlm"]) == 2
    err = capsys.readouterr().err
    assert "no verified sha256" in err and "arxiv/attention-is-all-you-need" in err
    assert main([*RAG, "--system", TOY, "--embedder", "hash"]) == 2
    assert main([*RAG, "--system", "nope"]) == 2
    assert main([*RAG, "--embedder", ""]) == 2
    ds = write_dataset(tmp_path / "data")
    not_one = "retrieval_rag_toy_system:not_a_retriever"
    args = [*RAG, "--dataset", str(ds), "--system", not_one]
    assert main([*args, "--out", str(tmp_path / "o")]) == 2
    assert "does not implement the Retriever protocol" in capsys.readouterr().err
    # An --out folder holding another run's files is refused before anything runs.
    assert main([*RAG, "--dataset", str(ds), "--system", TOY, "--out", str(tmp_path / "o")]) == 2
    assert "not empty" in capsys.readouterr().err
    assert main([*RAG, "--dataset", str(ds), "--system", TOY, "--shard", "3/2"]) == 2
    # Two datasets of one id would share item ids; a dataset without questions measures
    # nothing: both exit 2 before anything runs.
    assert main([*RAG, "--dataset", str(ds), "--dataset", str(ds), "--system", TOY]) == 2
    assert "also the id of" in capsys.readouterr().err
    empty = write_dataset(tmp_path / "empty", questions=[])
    assert main([*RAG, "--dataset", str(empty), "--system", TOY]) == 2
    assert "has no questions; nothing would be measured" in capsys.readouterr().err
    assert not list((tmp_path / "eval" / "results").glob("retrieval-rag-toy+toy-*"))
    for bad in ("nan", "inf", "-0.1"):
        with pytest.raises(SystemExit) as info:
            main([*RAG, "--dataset", str(ds), "--system", TOY, "--tolerance", bad])
        assert info.value.code == 2
    assert "--tolerance" in capsys.readouterr().err


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
    assert main([*RAG, "--beir", str(beir), "--system", TOY, "--out", str(out)]) == 0
    env = _load(out)
    assert env.header.tier == "tiny-beir"
    (d,) = _summary(env).datasets
    assert d.dataset == "tiny-beir"
    assert d.source == f"beir:{beir}"
    # Document-level evidence: any chunk of the relevant document is a hit.
    assert [(q.id, q.sdk_rank) for q in questions(env)["tiny-beir"]] == [("q1", 1), ("q2", 1)]
