"""Checks on an agent's work that every agent suite shares: which tool calls edit files,
and a probe snippet run inside the finished project by the grader."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gaia_eval.agents.models import CheckRecord

EDIT_TOOLS = {"write_file", "edit_file", "Edit", "Write", "MultiEdit", "NotebookEdit"}


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no output)"


def check_probe(probe: str, project: Path, env: Mapping[str, str], timeout_s: float) -> CheckRecord:
    """Run the probe snippet inside the project by the grader (a fresh `python -I -S`, the
    project's root first on its path); it passes only when it ran to its end."""
    from gaia_eval.agents.grader import run_probe

    probe_env = dict(env)
    # For the probe's own child processes; the grader's interpreter ignores it.
    probe_env["PYTHONPATH"] = str(project)
    passed, out, timed_out = run_probe(probe, project, probe_env, timeout_s)
    if timed_out:
        return CheckRecord(kind="probe", passed=False, detail=f"probe ran past {timeout_s}s")
    return CheckRecord(kind="probe", passed=passed, detail="probe ok" if passed else last_line(out))
