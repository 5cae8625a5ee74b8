"""The code-retrieval report: report.md pinned by a golden file (regenerate with
GAIA_EVAL_UPDATE_GOLDEN=1), rendered from a fixed results file.

`tests/data/code_retrieval/offline-results.json` is an unedited copy of a real offline run
(the committed baseline of commit b2be0458, in the pre-envelope format, read through the
suite's legacy converter), kept here so that the baselines can be re-captured without
moving this test. The current run is that file with one query made worse in memory, so the
gate section shows a regression with its numbers."""

from __future__ import annotations

import os
from pathlib import Path

from gaia_eval.code_retrieval.suite import CodeRetrievalSuite
from gaia_eval.core.gate import compare
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.suite import legacy_converters

HERE = Path(__file__).parent
FIXED = HERE / "data" / "code_retrieval" / "offline-results.json"
GOLDEN = HERE / "golden" / "code_retrieval_report.md"
WORSE = "quality/gaia-eval__invtrack-1"


def _load() -> Envelope:
    return load_envelope(FIXED, suite=CodeRetrievalSuite.name, legacy=legacy_converters())


def _current() -> Envelope:
    baseline, env = _load(), _load()
    (rec,) = [r for r in env.items if r.id == WORSE]
    assert rec.result is not None
    # The gold file drops from rank 1 to rank 4 for the code index.
    rec.result["semantic"]["files"].update({"recall@1": 0.0, "rr": 0.25})
    env.summary = CodeRetrievalSuite.summarise(env).model_dump(mode="json", by_alias=True)
    env.verdict = compare(
        CodeRetrievalSuite, baseline, env, label="tests/data/code_retrieval/offline-results.json"
    )
    return env


def test_report_matches_golden_file() -> None:
    text = render_markdown(CodeRetrievalSuite, _current())
    if os.environ.get("GAIA_EVAL_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_the_gate_names_the_regression_before_the_parts() -> None:
    env = _current()
    assert env.verdict is not None and not env.verdict.passed
    text = render_markdown(CodeRetrievalSuite, env)
    assert text.index("## Gate") < text.index("## Headline") < text.index("## Quality")
    assert "Gate **FAILED**" in text
    assert "| offline/semantic file_recall@1 | 0.7000 | 0.6000 |" in text
    # Every part of the run has its section, and the HTML twin is self-contained.
    for part in ("## Quality", "## Incremental replay", "## Robustness", "## Scale"):
        assert part in text
    html = render_html(CodeRetrievalSuite, env)
    assert "<script" not in html and "Gate" in html


def test_one_query_set_is_shown_once() -> None:
    """With one query set, `all` is a copy of it: neither the gate nor the quality section
    repeats its numbers."""
    env = _current()
    text = render_markdown(CodeRetrievalSuite, env)
    assert "all/semantic" not in text
    assert text.count("| offline/semantic file_recall@1 |") == 1
    quality = text[text.index("## Quality") :].split("\n## ")[0]
    assert quality.count("| metric | semantic | grep |") == 1
    assert "**offline: 10 queries" in quality
    tables = [block for block in text.split("\n\n") if block.startswith("|")]
    assert len(tables) == len(set(tables)), "a table is repeated"
