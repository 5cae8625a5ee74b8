"""`gaia-eval benchmark` end to end against the loopback stub: results.json fields, the
report, error accounting, repeats, the performance gate, and bad input."""

from __future__ import annotations

import itertools
import json
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.throughput.data.make_triage_corpus import generate, render
from gaia_eval.throughput.stub import stub_process
from gaia_eval.throughput.workloads import TRIAGE_FILE, triage_workload


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    with stub_process() as url:
        yield url


def _run(out: Path, *args: str) -> tuple[int, dict[str, Any]]:
    code = main(["benchmark", *args, "--out", str(out)])
    path = out / "results.json"
    return code, json.loads(path.read_text()) if path.exists() else {}


def test_concurrency_levels_write_every_field(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run",
        "--model", f"openai:{stub}/v1#custom:ttft_ms=30,gap_ms=5,chunks=12",
        "--concurrency", "1,2,4", "--requests", "8", "--warmup", "1",
    )  # fmt: skip
    assert code == 0
    levels = res["summary"]["levels"]
    assert [lv["level"] for lv in levels] == ["c1", "c2", "c4"]
    for i, (lv, conc) in enumerate(zip(levels, (1, 2, 4), strict=True)):
        assert lv["concurrency"] == conc and lv["requests"] == 8 and lv["errors"] == 0
        for key in ("ttft_ms", "tpot_ms", "itl_ms", "e2e_ms"):
            assert set(lv[key]) == {"mean", "p50", "p90", "p95", "p99", "max"}
        rows = res["items"][i]["result"]["requests"]
        # The stub's schedule is a floor no scheduling can beat: the first chunk leaves
        # 30 ms after the request arrives, the 12th 11 x 5 ms later. Only a unit slip
        # (microseconds) or a hang reaches the ceiling.
        assert 28 < lv["ttft_ms"]["p50"] < 5000
        assert all(80 < row["chunk_offsets_ms"][-1] < 5000 for row in rows)
        # ITL is the gaps between the recorded chunk arrivals, one per token. A busy client
        # can read several events in one socket read, which are then 0 ms apart (as every
        # streaming client sees them), so the figure is checked against the recorded
        # arrivals rather than against the stub's 5 ms.
        gaps = [b - a for row in rows for a, b in itertools.pairwise(row["chunk_offsets_ms"])]
        assert len(gaps) == 8 * 11 and min(gaps) >= 0
        assert lv["itl_ms"]["mean"] == pytest.approx(statistics.fmean(gaps), abs=1e-2)
        assert lv["itl_ms"]["p50"] == pytest.approx(statistics.median(gaps), abs=1e-2)
        assert lv["token_source"] == "usage"
        assert lv["output_tokens"] == 8 * 12
        assert lv["output_tokens_per_s"] > 0 and lv["requests_per_s"] > 0
        assert set(lv["client_lag_ms"]) == {"p50", "p99"}
        assert lv["in_flight"]["max"] <= conc
        assert lv["server_ctx_size"] == 4096
        assert lv["server_metrics"]["llamacpp:tokens_predicted_total"] == 8 * 12
    raw = res["items"][2]["result"]["requests"]
    assert len(raw) == 8
    row = raw[0]
    assert row["level"] == "c4" and len(row["chunk_offsets_ms"]) == 12
    assert row["chunk_tokens"] == [1] * 12 and row["chunk_kinds"] == "t" * 12
    assert row["ttft_ms"] == pytest.approx(row["chunk_offsets_ms"][0], abs=1e-3)
    assert row["server_request_id"].startswith("stub-")
    assert res["setup"]["server"]["warmup"] == {"requests": 1, "errors": 0}
    report = (tmp_path / "run" / "report.md").read_text()
    assert "TTFT p50 / p99 ms" in report and "**tpot_ms**" in report
    html = (tmp_path / "run" / "report.html").read_text()
    assert html.count("<svg") >= 3 and "<script" not in html


def test_report_html_opens_in_chromium(stub: str, tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    from test_core_report_html import console_messages

    code, _ = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=5,gap_ms=1,chunks=6",
        "--concurrency", "1,2", "--requests", "4", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    assert console_messages(tmp_path / "run" / "report.html") == []


def test_open_loop_rate_and_repeats(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run",
        "--model", f"openai:{stub}/v1#custom:ttft_ms=5,gap_ms=2,chunks=5",
        "--rate", "40", "--arrivals", "constant", "--requests", "10", "--repeats", "3",
        "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    levels = res["summary"]["levels"]
    assert [lv["level"] for lv in levels] == ["r40#1", "r40#2", "r40#3"]
    assert all(lv["rate"] == 40 and lv["arrivals"] == "constant" for lv in levels)
    raw = res["items"][0]["result"]["requests"]
    sched = [r["scheduled_ms"] for r in raw]
    assert sched == pytest.approx([25.0 * i for i in range(10)], abs=0.01)
    # Open loop: TTFT is measured from the scheduled time, so it is >= sent-based.
    for r in raw:
        assert r["ttft_ms"] >= r["chunk_offsets_ms"][0] - 1e-6
    var = res["summary"]["variance"]["r40"]
    assert var["ttft_ms.p50"]["n"] == 3
    assert set(var["ttft_ms.p50"]) == {
        "n",
        "mean",
        "stdev",
        "min",
        "max",
        "cv_pct",
        "ci95_half_width",
    }


def test_errors_are_counted_never_latencies(
    stub: str, tmp_path: Path, tmp_path_factory: Any
) -> None:
    jsonl = tmp_path / "mixed.jsonl"
    rows = [
        {"messages": [{"role": "user", "content": "a"}], "max_tokens": 8, "model": m}
        for m in ("custom:ttft_ms=10,chunks=4", "drop", "custom:ttft_ms=10,chunks=4", "no-done")
    ]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#ignored", "--workload", str(jsonl),
        "--concurrency", "1", "--requests", "8", "--warmup", "0", "--max-error-rate", "0.9",
    )  # fmt: skip
    assert code == 0
    lv = res["summary"]["levels"][0]
    assert lv["requests"] == 8 and lv["errors"] == 4 and lv["error_rate"] == 0.5
    assert lv["errors_by_kind"] == {"no_done": 2, "reset": 2}
    raw = res["items"][0]["result"]["requests"]
    for r in raw:
        if r["error_kind"]:
            assert r["ttft_ms"] is None and r["e2e_ms"] is None and r["output_tokens"] is None
    assert lv["output_tokens"] == 4 * 4


def test_error_rate_stops_a_level(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#status500", "--concurrency", "1",
        "--requests", "50", "--warmup", "0",
    )  # fmt: skip
    assert code == 3  # every request failed: an outage, not a measurement
    assert res["header"]["infra_errors"] == 1
    assert "every one of 8 requests failed" in res["items"][0]["error"]


def test_unreachable_server_is_exit_3_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = "http://127.0.0.1:9/v1"
    code, res = _run(tmp_path / "run", "--model", f"openai:{dead}#m", "--requests", "2")
    assert code == 3 and res == {} and not (tmp_path / "run").exists()
    err = capsys.readouterr().err
    assert f"--model 'openai:{dead}#m': nothing answers at {dead}" in err


def test_a_server_that_hangs_up_is_an_unmeasured_level(tmp_path: Path) -> None:
    from tasks_fakes import hang_up

    with hang_up() as url:
        args = ("--model", f"openai:{url}/v1#m", "--requests", "2", "--warmup", "0")
        code, res = _run(tmp_path / "run", *args)
    assert code == 3
    assert res["header"]["infra_errors"] == 1 and res["items"][0]["status"] == "infra_error"


def test_triage_workload_scores_the_corpus(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=2,gap_ms=1,chunks=6",
        "--workload", "triage", "--concurrency", "4", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    corpus = [r.labels for r in triage_workload().items]
    assert corpus and all(c is not None for c in corpus)
    tri = res["summary"]["levels"][0]["triage"]
    # The stub answers {"urgency": 4, "category": "work", "personal": false} to every email.
    n = len(corpus)
    assert tri["emails"] == tri["classified"] == n
    assert tri["within_one_bucket_accuracy"] == round(sum(c["urgency"] >= 3 for c in corpus) / n, 4)  # type: ignore[index]
    assert tri["urgent_vs_not_accuracy"] == round(sum(c["urgency"] >= 4 for c in corpus) / n, 4)  # type: ignore[index]
    assert tri["urgent_recall"] == 1.0 and tri["personal_recall"] == 0.0
    assert tri["category_accuracy"] == round(sum(c["category"] == "work" for c in corpus) / n, 4)  # type: ignore[index]
    assert tri["output_tokens_per_triage"] == 6.0
    raw = res["items"][0]["result"]["requests"]
    assert json.loads(raw[0]["answer"]) == {"urgency": 4, "category": "work", "personal": False}
    assert "Email triage" in (tmp_path / "run" / "report.md").read_text()


def test_corpus_is_reproducible_and_large_enough() -> None:
    text = (
        Path(__file__).parents[1] / "gaia_eval" / "throughput" / "data" / TRIAGE_FILE
    ).read_text()
    assert render(generate()) == text
    rows = generate()
    assert len(rows) >= 60
    labels = [r["labels"] for r in rows]
    assert {lab["urgency"] for lab in labels} == {1, 2, 3, 4, 5}  # type: ignore[index]
    assert any(lab["personal"] for lab in labels) and not all(lab["personal"] for lab in labels)  # type: ignore[index]


def test_gate_manifest_report_mode_and_enforced(stub: str, tmp_path: Path) -> None:
    model = f"openai:{stub}/v1#custom:ttft_ms=60,gap_ms=2,chunks=4"
    strict = tmp_path / "strict.yaml"
    strict.write_text("ttft_max_s: 0.01\nthroughput_min_tps: 1\nenforce: true\n")
    loose = tmp_path / "loose.json"
    loose.write_text(json.dumps({"ttft_max_s": 0.01, "enforce": False}))
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({"ttft_max_s": 5, "peak_memory_max_gb": 16, "enforce": True}))
    common = ["--model", model, "--requests", "3", "--warmup", "0"]
    code, res = _run(tmp_path / "a", *common, "--gate", str(strict))
    assert code == 1
    assert not res["verdict"]["passed"] and "c1 ttft_s" in res["verdict"]["failures"][0]
    code, res = _run(tmp_path / "b", *common, "--gate", str(loose))
    assert code == 0 and res["verdict"]["passed"]
    assert any("would fail" in n for n in res["verdict"]["notes"])
    code, res = _run(tmp_path / "c", *common, "--gate", str(ok))
    assert code == 0 and res["verdict"]["passed"]
    assert any("peak_memory_gb: not measured" in n for n in res["verdict"]["notes"])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--concurrency", "1,0"], "--concurrency"),
        (["--rate", "abc"], "--rate"),
        (["--requests", "0"], "--requests"),
        (["--workload", "nope.jsonl"], "--workload"),
        (["--model", "claude-code:x"], "--model"),
        (["--gate", "missing.yaml"], "--gate"),
    ],
)
def test_bad_input_is_exit_2(
    tmp_path: Path, args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "benchmark",
            "--model",
            "openai:http://127.0.0.1:9/v1#m",
            *args,
            "--out",
            str(tmp_path / "r"),
        ]
    )
    assert code == 2
    assert needle in capsys.readouterr().err


def test_bad_jsonl_row_names_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.jsonl"
    path.write_text(
        '{"messages": [{"role": "user", "content": "a"}], "max_tokens": 4}\n{"messages": []}\n'
    )
    code = main(["benchmark", "--model", "openai:http://127.0.0.1:9/v1#m", "--workload", str(path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "'messages'" in err


@pytest.mark.serial  # how many requests fit in 0.5 s depends on the cores being free
def test_duration_bounds_sending(stub: str, tmp_path: Path) -> None:
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=40,gap_ms=2,chunks=5",
        "--concurrency", "2", "--duration", "0.5", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    lv = res["summary"]["levels"][0]
    # Each request takes ~48 ms, two at a time, sends stop after 0.5 s: about 20, never 24+.
    assert 6 <= lv["requests"] <= 24
    raw = res["items"][0]["result"]["requests"]
    assert max(r["start_ms"] for r in raw) < 500 + 50


def test_shipped_manifest_holds_the_spec_bars() -> None:
    from gaia_eval.throughput.gate import DEFAULT_MANIFEST, load_manifest

    path = Path(__file__).parents[1] / "gaia_eval" / "throughput" / "data" / "perf_gate.yaml"
    assert load_manifest(path) == DEFAULT_MANIFEST


def test_tokenizer_counts_when_the_server_sends_no_usage(stub: str, tmp_path: Path) -> None:
    tok = Path(__file__).parents[1] / "gaia_eval/embed/data/all-MiniLM-L6-v2/tokenizer.json"
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#no-usage", "--requests", "2",
        "--warmup", "0", "--tokenizer", str(tok),
    )  # fmt: skip
    assert code == 0
    lv = res["summary"]["levels"][0]
    assert lv["token_source"] == "tokenizer"
    row = res["items"][0]["result"]["requests"][0]
    # Each chunk is " wN": BERT's word pieces split it into "w" + "##N" (2 tokens).
    assert row["chunk_tokens"] == [2] * 8 and row["output_tokens"] == 16
    assert res["header"]["settings"]["tokenizer"] == str(tok)


def test_a_local_run_leads_with_the_plumbing_note(
    stub: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """As every suite does: the note comes before any number, in the terminal and in the
    report (it used to sit under "Server" near the bottom). The stub stands in for the
    embedded server; the facts are what the local server records about itself."""
    import dataclasses

    from gaia_eval.llm.local_server import LOCAL_NOTE
    from gaia_eval.throughput import runner

    real = runner.resolve_target

    def as_local(spec: str, *, slots: int | None = None) -> runner.Target:
        facts = {"model": "smollm2-135m", "threads": 1, "note": LOCAL_NOTE}
        return dataclasses.replace(real(spec, slots=slots), facts=facts)

    monkeypatch.setattr(runner, "resolve_target", as_local)
    code, res = _run(
        tmp_path / "run", "--model", f"openai:{stub}/v1#custom:ttft_ms=5,gap_ms=1,chunks=6",
        "--concurrency", "1", "--requests", "2", "--warmup", "0",
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    first = next(i for i, line in enumerate(out) if "measured" in line)
    assert out[first + 1].strip() == LOCAL_NOTE
    report = (tmp_path / "run" / "report.md").read_text()
    sections = [line for line in report.splitlines() if line.startswith("## ")]
    assert sections[0] == "## Model" and report.count(LOCAL_NOTE) == 1
    assert res["setup"]["local_model"]["note"] == LOCAL_NOTE


def test_goodput_counts_the_requests_that_met_every_slo(stub: str, tmp_path: Path) -> None:
    # Every request of this stub takes ~30 ms to its first token and ~5 ms per token.
    model = f"openai:{stub}/v1#custom:ttft_ms=30,gap_ms=5,chunks=12"
    common = ["--model", model, "--concurrency", "1", "--requests", "6", "--warmup", "0"]
    code, res = _run(tmp_path / "easy", *common, "--slo", "ttft_ms=5000,e2e_ms=20000")
    assert code == 0
    (lv,) = res["summary"]["levels"]
    good = lv["goodput"]
    assert good["slo"] == {"ttft_ms": 5000.0, "e2e_ms": 20000.0}
    assert good["met"] == 6 and good["share"] == 1.0
    assert good["output_tokens_per_s"] == pytest.approx(lv["output_tokens_per_s"], rel=0.01)
    code, res = _run(tmp_path / "hard", *common, "--slo", "ttft_ms=1")  # no server is this fast
    (lv,) = res["summary"]["levels"]
    assert lv["goodput"]["met"] == 0 and lv["goodput"]["output_tokens_per_s"] is None
    report = (tmp_path / "hard" / "report.md").read_text()
    assert "Goodput: requests that met every objective (ttft_ms <= 1)" in report
    assert res["header"]["settings"]["slo"] == {"ttft_ms": 1.0}


@pytest.mark.parametrize("bad", ["ttft=5", "ttft_ms=-1", "ttft_ms", "e2e_ms=inf"])
def test_a_bad_slo_is_exit_2_naming_the_part(
    bad: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["benchmark", "--model", "openai:http://127.0.0.1:9/v1#m", "--slo", bad,
                 "--out", str(tmp_path / "r")])  # fmt: skip
    assert code == 2
    assert "--slo" in capsys.readouterr().err
