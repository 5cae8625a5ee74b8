"""report.md is pinned by a golden file; regenerate with GAIA_EVAL_UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
import re
from pathlib import Path

from retrieval_rag_helpers import case, dataset, question, results

from gaia_eval.core.gate import compare
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import Envelope
from gaia_eval.retrieval.models import FailedDocument
from gaia_eval.retrieval.suite import RagSuite

GOLDEN = Path(__file__).parent / "golden" / "retrieval_rag_report.md"


def _pair() -> Envelope:
    base_qs = [question(f"q{i}", 1 if i % 3 else None, 2, tags=("pdf",)) for i in range(6)]
    base_qs += [question(f"t{i}", 2, 1, tags=("pdf", "table")) for i in range(4)]
    cur_qs = [
        question("q0", 3, 1, tags=("pdf",)),
        question("q1", None, None, returned=0, not_indexed=True, tags=("pdf",)),
        *base_qs[2:6],
        *[question(f"t{i}", None, None, tags=("pdf", "table")) for i in range(4)],
    ]
    failed = [FailedDocument(doc="d1", required=True, status="failed", error="cannot read")]
    base = results([dataset(base_qs)], hard_cases=[case("replaced_document", "pass")])
    cur = results(
        [dataset(cur_qs, failed=failed)],
        hard_cases=[
            case("replaced_document", "fail", "served the old text | twice"),
            case("corrupted_pdf", "pass", "refused as expected (failed): cannot read the PDF"),
            case("scanned_pdf", "skipped", "no renderer"),
            case("capacity_eviction", "error", "RuntimeError: the case crashed"),
        ],
    )
    cur.verdict = compare(RagSuite, base, cur, label="gaia_eval/baselines/retrieval/pr.json")
    return cur


def test_report_matches_golden_file() -> None:
    text = render_markdown(RagSuite, _pair())
    if os.environ.get("GAIA_EVAL_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_failures_come_before_the_gate_and_the_gate_before_the_datasets() -> None:
    text = render_markdown(RagSuite, _pair())
    assert text.index("## Infrastructure and unmeasured") < text.index("## Gate")
    assert text.index("## Gate") < text.index("## Dataset `toy`")
    assert "document `d1` did not index (failed, required (holds evidence)): cannot read" in text
    # the flips, both ways, with their first-hit ranks
    assert "| `toy/q0` | sdk hit@5 | fail | pass | no |" in text
    assert "| `toy/q1` | sdk hit@5 | pass | fail | no |" in text
    assert "toy/q0 miss -> 3" in text and "toy/q1 1 -> miss" in text
    # the gate names its baseline, commit and the tolerance rule with its numbers
    assert "against `gaia_eval/baselines/retrieval/pr.json` (commit 0123456789ab" in text
    assert "max(0.02, 1.5/10) = 0.1500" in text
    # a crashed hard case fails the run and reads as crashed
    assert "item hard/capacity_eviction crashed" in text
    assert "| capacity_eviction | **crashed** |" in text


def test_report_reads_in_a_minute() -> None:
    text = render_markdown(RagSuite, _pair())
    guide = text[text.index("## How to read this") :].split("\n## ")[0]
    terms = ("`sdk`:", "`agent`:", "`R@returned`:", "dense depth 20:", "`sdk, document level`")
    for term in terms:
        (line,) = [x for x in guide.splitlines() if x.startswith(f"- {term}")]
        assert len(line) < 400  # one line each
    assert "`toy`: max(0.02, 1.5/10) = 0.1500" in guide
    # a hard case that passes by failing cleanly says so
    assert "| corrupted_pdf | pass | corrupted pdf | refused as expected" in text
    # By tag: `pdf` matches the total and is folded into one line; `table` differs.
    assert "| table | 4 | 0.000 | 0.000 |" in text
    assert "| pdf |" not in text and "`pdf`" in text
    # missed questions are listed with their text
    assert "- `q1` (`d1`): What does q1 ask? — evidence not indexed" in text
    # every column of the suite's tables has a header
    suite_part = text[text.index("## How to read this") :]
    for head in re.findall(r"^\| .* \|$\n^\|(?:---\|)+$", suite_part, flags=re.M):
        cells = head.splitlines()[0].strip("|").split(" | ")
        assert all(c.strip() for c in cells), head


def test_interrupted_run_says_how_far_it_got() -> None:
    qs = [question(f"q{i}", 1, 1) for i in range(3)]
    env = results(
        [dataset(qs, total=5)],
        hard_cases=[case("replaced_document", "pass")],
        complete=False,
        errors=["Interrupted: the run received SIGINT"],
        item_ids=[*(f"toy/q{i}" for i in range(5)), "hard/replaced_document", "hard/scanned_pdf"],
    )
    env.header.interrupted = True
    text = render_markdown(RagSuite, env)
    assert "Measured so far: 3 of 5 questions, 1 of 2 hard cases" in text
    assert "## Dataset `toy` (3 questions of 5)" in text


def test_a_run_stopped_before_any_question_shows_nothing_measured_not_zeros() -> None:
    env = results(
        [dataset([], total=5)],
        complete=False,
        errors=["Interrupted: the run received SIGINT"],
        item_ids=[f"toy/q{i}" for i in range(5)],
    )
    env.header.interrupted = True
    from gaia_eval.core.report import terminal_summary

    said = "\n".join(terminal_summary(RagSuite, env))
    assert "toy: sdk R@5 / MRR: – (nothing measured)" in said
    assert "0.000" not in said and "(0 questions)" not in said
    for text in (render_markdown(RagSuite, env), render_html(RagSuite, env)):
        assert "0.000" not in text
        assert "Nothing measured: no question of this dataset finished" in text
        assert "(0 of 5 questions)" in text


def test_clean_run_says_so() -> None:
    env = results([dataset([question("q1", 1, 1)])], hard_cases=None)
    text = render_markdown(RagSuite, env)
    assert "Every document indexed and every chunk was located." in text
    assert "## Infrastructure and unmeasured" not in text
    assert "## Gate" not in text
    assert "## Hard cases" not in text
    html = render_html(RagSuite, env)
    assert "<script" not in html and html.count("<svg") == 2


def test_report_html_opens_in_a_browser_without_console_errors(tmp_path: Path) -> None:
    from test_core_report_html import console_messages

    page = tmp_path / "report.html"
    page.write_text(render_html(RagSuite, _pair()), encoding="utf-8")
    assert console_messages(page) == []
