"""Checks on an agent's work that every agent suite shares: which tool calls edit files,
and a probe snippet run inside the finished project."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from gaia_eval.agents.isolation import run_text
from gaia_eval.agents.models import CheckRecord

EDIT_TOOLS = {"write_file", "edit_file", "Edit", "Write", "MultiEdit", "NotebookEdit"}


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "(no output)"


def check_probe(probe: str, project: Path, env: Mapping[str, str], timeout_s: float) -> CheckRecord:
    """Run the probe snippet inside the project; non-zero exit fails with the last line."""
    with tempfile.TemporaryDirectory(prefix="gaia-probe-") as tmp:
        script = Path(tmp) / "probe.py"
        script.write_text(probe + "\n", encoding="utf-8")
        probe_env = dict(env)
        probe_env["PYTHONPATH"] = str(project)
        rc, out, timed_out = run_text(
            [sys.executable, str(script)], cwd=project, env=probe_env, timeout_s=timeout_s
        )
    if timed_out:
        return CheckRecord(kind="probe", passed=False, detail=f"probe ran past {timeout_s}s")
    return CheckRecord(kind="probe", passed=rc == 0, detail=last_line(out) if rc else "probe ok")
