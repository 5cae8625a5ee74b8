"""The lexical control code index: the reference index searched by the grep baseline."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.code_retrieval import offline_repo
from gaia_eval.code_retrieval.models import CodeSummary, QueryRecord
from gaia_eval.core.results import load_envelope


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def test_lexical_control_scores_what_the_grep_baseline_scores_and_keeps_the_checks(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    argv = ["retrieval", "--component", "code", "--suite", "offline", "--system",
            "gaia_eval.code_retrieval.controls:lexical", "--work-root", str(tmp_path / "w"),
            "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    env = load_envelope(out / "results.json", suite="code-retrieval")
    assert env.header.system == "gaia_eval.code_retrieval.controls:lexical"
    records = [
        QueryRecord.model_validate(r.result)
        for r in env.items
        if r.id.startswith("quality/") and r.result
    ]
    scored = [r for r in records if r.status == "scored"]
    assert len(scored) == len(offline_repo.FIXES) == 26
    for rec in scored:
        assert rec.semantic is not None and rec.lexical is not None
        # the same files and symbols at the same ranks as the grep baseline's
        assert rec.semantic.files == rec.lexical.files, rec
        assert rec.semantic.symbols == rec.lexical.symbols, rec
    summary = CodeSummary.model_validate(env.summary)
    assert summary.incremental is not None and summary.incremental.correct
    assert summary.robustness is not None and summary.robustness.totals["failed"] == 0
    # grep misses gold files the reference finds: the control is measurably weaker
    assert summary.quality is not None
    assert (summary.quality.summary["all"].semantic["file_recall@5"] or 1.0) < 1.0
