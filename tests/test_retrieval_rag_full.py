"""`--suite full` end to end on a stand-in corpus served from 127.0.0.1: fetched into a
temporary cache, then run `--offline` through every dataset, scale tier and hard case;
the narrowing flags; labels verified against the extracted text; answers against a
loopback OpenAI-compatible model with the canary checked in every answer."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retrieval_fileserver import manifest_for, serve
from retrieval_full_standin import standin_files
from tasks_fakes import FakeLLM
from tasks_fakes import serve as serve_model

from gaia_eval.cli.main import main
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.retrieval.answering import INJECTION_CANARY
from gaia_eval.retrieval.models import HardCase, RagSummary, ScaleTier
from gaia_eval.retrieval.summary import result_of

RAG = ["retrieval", "--component", "rag"]
XQ = [f"xquad-{lang}" for lang in ("en", "de", "es", "ru", "zh", "ar", "hi")]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """(manifest, cache root): the stand-in corpus fetched once over loopback."""
    root = tmp_path_factory.mktemp("full")
    files, layout = standin_files()
    with serve(files) as srv:
        manifest = manifest_for(srv, layout, root / "sources.json")
        mp = pytest.MonkeyPatch()
        mp.setenv("GAIA_EVAL_CACHE", str(root / "cache"))
        try:
            assert main([*RAG, "--fetch-only", "--sources", str(manifest)]) == 0
        finally:
            mp.undo()
        assert len(srv.log) == len(files)
    yield manifest, root / "cache"


def _full(manifest: Path, out: Path, *extra: str) -> int:
    return main(
        [
            *RAG,
            "--suite",
            "full",
            "--offline",
            "--sources",
            str(manifest),
            "--embedder",
            "hash",
            "--no-vlm",
            "--out",
            str(out),
            *extra,
        ]
    )


def _load(out: Path) -> Envelope:
    return load_envelope(out / "results.json", suite="retrieval-rag")


def _no_sockets(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []

    def guard(self: Any, address: Any) -> None:
        calls.append(address)
        raise AssertionError(f"an offline run connected to {address}")

    monkeypatch.setattr(socket.socket, "connect", guard)
    return calls


def test_full_offline_runs_every_dataset_tier_and_hard_case(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest, cache = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(cache))
    calls = _no_sockets(monkeypatch)
    out = tmp_path / "run"
    rc = _full(manifest, out, "--retrieval-only", "--scale-tiers", "10,30", "--ann-from", "30")
    assert rc == 0
    assert calls == []
    env = _load(out)
    summary = RagSummary.model_validate(env.summary)
    assert [d.dataset for d in summary.datasets] == [
        "repo_docs",
        "technical_docs",
        "financebench",
        *XQ,
    ]
    for d in summary.datasets:
        assert d.summary.questions == d.questions_total > 0
        assert d.index is not None and d.index.required_failed == 0
    fb = next(d for d in summary.datasets if d.dataset == "financebench")
    assert fb.summary.sdk.recall_at_5 == 1.0  # page-only evidence, each on its page
    overlaps = {
        r.id: r.result["label_overlap"] for r in env.items if r.id.startswith("financebench/")
    }
    assert overlaps["financebench/financebench_id_00001"] == 1.0  # its text is on its page
    assert overlaps["financebench/financebench_id_09999"] == 1.0  # "Risk factors", page 3
    assert "Label check: for 4 of 4" in (out / "report.md").read_text(encoding="utf-8")
    results = {r.id: result_of(r) for r in env.items}
    tiers = [r for r in results.values() if isinstance(r, ScaleTier)]
    assert [t.tier for t in tiers] == [10, 30]
    for t in tiers:
        assert t.ok and t.index.documents == t.tier and t.distractors == "wikipedia"
        assert t.faiss_index == "IndexIDMap2(IndexFlatIP)"
        assert t.index.chunks_per_s > 0 and t.index.rss_peak_mb > 0
        assert t.summary.sdk_latency.p95_ms is not None
    assert tiers[0].ann == [] and {a.index.split("(")[0] for a in tiers[1].ann} == {
        "IndexIVFFlat",
        "IndexHNSWFlat",
    }
    assert all(0 < a.recall_at_10_vs_flat <= 1 for a in tiers[1].ann)
    near = results["hard/near_duplicate_filings"]
    assert isinstance(near, HardCase) and near.status == "measured"
    assert near.details["filings"] == {"ACME": ["ACME_2021_10K", "ACME_2022_10K", "ACME_2023_10K"]}
    assert 0 < near.details["top5_share_from_asked_year"] <= 1
    assert env.header.settings["scale"]["tiers"] == [10, 30]
    assert set(env.setup["sources"]) == {"financebench", "xquad", "wikipedia", "amd", "arxiv"}
    assert env.setup["sources"]["xquad"]["license"] == "test data"
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "Scale tiers" in html and "<svg" in html


def test_offline_without_the_cache_names_what_is_missing(
    corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    manifest, _ = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "empty"))
    calls = _no_sockets(monkeypatch)
    assert (
        _full(
            manifest,
            tmp_path / "run",
            "--retrieval-only",
            "--datasets",
            "xquad",
            "--xquad-languages",
            "de",
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "xquad/xquad.de.json" in err and "--fetch-only" in err
    assert "xquad.en.json" not in err  # only what the narrowed run needs
    assert calls == []


def test_narrowing_flags(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest, cache = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(cache))
    out = tmp_path / "run"
    rc = _full(
        manifest,
        out,
        "--retrieval-only",
        "--datasets",
        "xquad,financebench",
        "--xquad-languages",
        "de,zh",
        "--financebench-docs",
        "1",
        "--no-scale",
        "--no-hard-cases",
    )
    assert rc == 0
    env = _load(out)
    summary = RagSummary.model_validate(env.summary)
    assert [d.dataset for d in summary.datasets] == ["financebench", "xquad-de", "xquad-zh"]
    fb = summary.datasets[0]
    assert fb.index is not None and fb.index.documents == 1  # ACME_2022_10K, first by name
    assert not any(r.id.startswith(("scale/", "hard/")) for r in env.items)
    assert "scale" not in env.header.settings


@pytest.mark.parametrize(
    ("flags", "needle"),
    [
        (["--datasets", "nope"], "unknown dataset"),
        (["--xquad-languages", "fr"], "not pinned"),
        (["--datasets", "xquad", "--financebench-docs", "2"], "leaves out"),
        (["--no-scale", "--scale-tiers", "10"], "contradict"),
        (["--datasets", "xquad", "--scale-tiers", "10"], "keep repo_docs"),
    ],
)
def test_bad_narrowing_is_refused(  # noqa: PLR0917 - pytest passes fixtures by position
    corpus: tuple[Path, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    needle: str,
) -> None:
    manifest, cache = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(cache))
    assert _full(manifest, tmp_path / "run", "--retrieval-only", *flags) == 2
    assert needle in capsys.readouterr().err


def test_full_flags_need_the_full_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*RAG, "--suite", "pr", "--datasets", "xquad"]) == 2
    assert "only with --suite full" in capsys.readouterr().err


def test_a_label_not_on_its_page_stops_the_run_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files, layout = standin_files()
    from gaia_eval.systems.rag.minipdf import pdf_bytes

    key = "tech/arxiv/attention-is-all-you-need-1706.03762v7.pdf"
    files[key] = pdf_bytes([f"Page {p} says nothing of the kind." for p in range(1, 8)])
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    with serve(files) as srv:
        manifest = manifest_for(srv, layout, tmp_path / "sources.json")
        rc = main(
            [
                *RAG,
                "--suite",
                "full",
                "--no-vlm",
                "--sources",
                str(manifest),
                "--embedder",
                "hash",
                "--retrieval-only",
                "--datasets",
                "technical_docs",
                "--no-scale",
                "--no-hard-cases",
                "--out",
                str(tmp_path / "run"),
            ]
        )
    assert rc == 2
    assert "tech-001" in capsys.readouterr().err


# ---- answers ------------------------------------------------------------------------------


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    prompt = body["messages"][-1]["content"]
    # One scripted question is taken over by a planted instruction; the others say
    # what the first context passage says.
    if "fiscal year 2023" in prompt.rsplit("Question: ", 1)[-1]:
        text = f"{INJECTION_CANARY}"
    else:
        text = "The answer is in the context: " + prompt.split("\n", 3)[-1][:80]
    return {"content": text, "usage": {"prompt_tokens": 10, "completion_tokens": 5}}


def test_answers_check_the_canary_in_every_answer_and_history_is_not_resent(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest, cache = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(cache))
    model = FakeLLM(answer=_answer)
    with serve_model(model) as url:
        out = tmp_path / "run"
        rc = _full(
            manifest, out, "--model", f"openai:{url}/v1#scripted",
            "--datasets", "repo_docs,financebench", "--no-scale",
        )  # fmt: skip
    assert rc == 0
    env = _load(out)
    summary = RagSummary.model_validate(env.summary)
    assert summary.canary_answers == ["financebench/financebench_id_00002"]
    results = {r.id: result_of(r) for r in env.items}
    leak = results["hard/query_history_leak"]
    assert isinstance(leak, HardCase) and leak.status == "pass", leak
    assert leak.details["second_messages"] == 2
    assert "hard/prompt_injection" in results
    # Every scored question was sent as a fresh two-message conversation.
    assert all(len(r["messages"]) == 2 for r in model.requests)
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "canary" in report.lower()


def test_datasets_takes_xquad_lang_as_the_docs_name_it(
    corpus: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest, cache = corpus
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(cache))
    out = tmp_path / "run"
    flags = ["--retrieval-only", "--datasets", "xquad-en,xquad-zh", "--no-scale", "--no-hard-cases"]
    assert _full(manifest, out, *flags) == 0
    summary = RagSummary.model_validate(_load(out).summary)
    assert [d.dataset for d in summary.datasets] == ["xquad-en", "xquad-zh"]


def test_pin_unverified_makes_the_full_suite_runnable_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped manifest has unverified entries, so --fetch-only and --offline exit 2
    until they are pinned: --pin-unverified downloads and pins them (in the user's cache,
    never the manifest), and every later run uses the pins and says it does."""
    import json

    from gaia_eval.retrieval.sources import PINNED_NOTE

    files, layout = standin_files()
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    narrow = ["--datasets", "technical_docs", "--no-scale", "--no-hard-cases"]
    with serve(files) as srv:
        manifest = manifest_for(srv, layout, tmp_path / "sources.json")
        data = json.loads(manifest.read_text())
        for name in ("amd-cdna-3-white-paper.pdf", "amd-instinct-mi300x-data-sheet.pdf"):
            data["sources"]["amd"]["files"][name].update(
                sha256=None, bytes=None, unverified="vendor host"
            )
        manifest.write_text(json.dumps(data))
        fetch = [*RAG, "--fetch-only", "--sources", str(manifest), *narrow]
        assert main(fetch) == 2
        assert "--pin-unverified" in capsys.readouterr().err
        assert main([*fetch, "--pin-unverified"]) == 0
        assert f"2 file(s) {PINNED_NOTE}" in capsys.readouterr().out
    out = tmp_path / "run"
    assert _full(manifest, out, "--retrieval-only", *narrow) == 0  # offline, no flag
    assert f"corpus: 2 file(s) {PINNED_NOTE}" in capsys.readouterr().out
    env = _load(out)
    assert env.setup["pinned_corpus_files"] == [
        "amd/amd-cdna-3-white-paper.pdf",
        "amd/amd-instinct-mi300x-data-sheet.pdf",
    ]
    report = (out / "report.md").read_text()
    trust = report.index("## Infrastructure and unmeasured")
    assert trust < report.index(f"2 corpus file(s) {PINNED_NOTE}") < report.index("## Headline")
