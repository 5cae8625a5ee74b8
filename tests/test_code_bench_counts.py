"""The per-try failure counts (Aider's): malformed edits, syntax errors introduced, context
exhausted, test timeouts, read off a try's record and its project."""

from __future__ import annotations

from pathlib import Path

from gaia_eval.agents.models import AgentOutcome, ToolCall
from gaia_eval.code_bench.counts import syntax_errors, try_counts


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def test_a_syntax_error_the_try_introduced_is_counted_one_already_there_is_not(
    tmp_path: Path,
) -> None:
    base = _tree(tmp_path / "base", {"a.py": "x = 1\n", "b.py": "def (:\n", "c.py": "y = 2\n"})
    now = _tree(
        tmp_path / "now",
        {"a.py": "x = (1\n", "b.py": "def (:\n", "c.py": "y = 2\n", "new.py": "if\n"},
    )
    assert syntax_errors(now, base) == ["a.py", "new.py"]


def test_one_tries_counts(tmp_path: Path) -> None:
    base = _tree(tmp_path / "base", {"a.py": "x = 1\n"})
    now = _tree(tmp_path / "now", {"a.py": "x = 1\n"})
    calls = [
        ToolCall(index=0, name="edit_file", is_error=True),  # refused edit
        ToolCall(index=1, name="edit_file"),
        ToolCall(index=2, name="run_shell", is_error=True),  # not an edit
        ToolCall(index=3, name="Edit", is_error=True),
    ]
    out = AgentOutcome(
        tool_calls=calls, error="400: this model's maximum context length is 8192 tokens"
    )
    c = try_counts(out, now, base, timed_out=True)
    assert (c.malformed_edits, c.syntax_errors) == (2, 0)
    assert c.context_exhausted and c.test_timeout
    clean = try_counts(AgentOutcome(error="the run timed out"), now, base, timed_out=False)
    assert not clean.context_exhausted and not clean.test_timeout


def test_a_run_records_the_counts_per_try_and_sums_them(tmp_path: Path) -> None:
    import json

    from gaia_eval.cli.main import main

    out = tmp_path / "run"
    argv = ["code", "run", "--harness", "replay", "--replay", "reference"]
    assert main([*argv, "--tasks", "edit-fix-bugs", "--out", str(out)]) == 0
    data = json.loads((out / "results.json").read_text())
    (item,) = data["items"]
    (first,) = item["result"]["tries"]
    assert first["counts"] == {
        "malformed_edits": 0, "syntax_errors": 0, "context_exhausted": False,
        "test_timeout": False,
    }  # fmt: skip
    assert data["summary"]["try_counts"]["try1"]["syntax_errors"] == 0
    assert "try1: malformed edits / syntax errors" in (out / "report.md").read_text()
