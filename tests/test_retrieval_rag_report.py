"""report.md is pinned by a golden file; regenerate with GAIA_EVAL_UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
from pathlib import Path

from retrieval_rag_helpers import case, dataset, question, results

from gaia_eval.retrieval import gate, report
from gaia_eval.retrieval.models import FailedDocument

GOLDEN = Path(__file__).parent / "golden" / "retrieval_rag_report.md"


def _pair() -> tuple[gate.GateVerdict, str]:
    base_qs = [question(f"q{i}", 1 if i % 3 else None, 2, tags=("pdf",)) for i in range(6)]
    cur_qs = [
        question("q0", 3, 1, tags=("pdf", "table")),
        question("q1", None, None, returned=0, not_indexed=True, tags=("pdf",)),
        *base_qs[2:],
    ]
    failed = [FailedDocument(doc="d1", required=True, status="failed", error="cannot read")]
    base = results([dataset(base_qs)], hard_cases=[case("replaced_document", "pass")])
    cur = results(
        [dataset(cur_qs, failed=failed)],
        hard_cases=[
            case("replaced_document", "fail", "served the old text | twice"),
            case("scanned_pdf", "skipped", "no renderer"),
        ],
    )
    verdict = gate.compare(base, cur)
    return verdict, report.render(cur, verdict)


def test_report_matches_golden_file() -> None:
    _, text = _pair()
    if os.environ.get("GAIA_EVAL_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_failures_come_before_the_headline() -> None:
    _, text = _pair()
    assert text.index("## Failures and infrastructure") < text.index("## Gate: FAIL")
    assert text.index("## Gate: FAIL") < text.index("## Dataset `toy`")
    assert "document `d1` did not index (failed, required (holds evidence)): cannot read" in text
    assert "| toy | q0 | miss | 3 | FAIL→PASS |" in text
    assert "| toy | q1 | 1 | miss | PASS→FAIL |" in text


def test_clean_run_says_so() -> None:
    text = report.render(results([dataset([question("q1", 1, 1)])], hard_cases=None))
    assert "None: every document indexed and every chunk was located." in text
    assert "## Gate" not in text
    assert "## Hard cases" not in text
