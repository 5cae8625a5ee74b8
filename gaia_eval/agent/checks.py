"""State checks: what a turn left behind, verified directly (tau2-bench's state-based
evaluation), beside the judge's scores.

A scenario turn declares `checks:` (models.StateCheck): a tool called (with given
arguments) or not, a memory held or not, a file written (with given text) or not. After
the turn gaia_eval reads the turn's tool calls and the agent's `state()` and records each
check as passed, failed, or unverified when the agent shows no such state. The judge never
sees these results and they do not change the scenario's status: the report shows both,
so a judge fooled by a confident reply (or a state check too strict for a good answer) is
visible.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from gaia_eval.agent.models import CheckResult, StateCheck, ToolUse
from gaia_eval.agent.protocol import AgentState, MemoryRecord
from gaia_eval.core.paths import outside

EVIDENCE_CHARS = 400
FILE_BYTES = 1_000_000
"""A checked file is read up to this many bytes (enough for any note a turn writes)."""


def _has(haystack: str, needle: str) -> bool:
    return " ".join(needle.split()).casefold() in " ".join(haystack.split()).casefold()


def _arguments(raw: str) -> dict[str, str] | None:
    try:
        data = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in data.items()}


def _call_matches(call: ToolUse, name: str, want: dict[str, str]) -> bool:
    if call.name != name:
        return False
    if not want:
        return True
    args = _arguments(call.arguments)
    for key, text in want.items():
        if args is None:  # not a JSON object: match against the raw text
            if not _has(call.arguments, text):
                return False
        elif key == "*":
            if not any(_has(v, text) for v in args.values()):
                return False
        elif key not in args or not _has(args[key], text):
            return False
    return True


def _describe(check: StateCheck) -> str:
    kind, target = check.kind(), check.target()
    args = ", ".join(f"{k} ~ {v!r}" for k, v in check.arguments.items())
    if kind == "tool_called":
        return f"calls {target}" + (f" with {args}" if args else "")
    if kind == "tool_not_called":
        return f"does not call {target}" + (f" with {args}" if args else "")
    if kind == "memory_has":
        return f"a current memory contains {target!r}"
    if kind == "memory_lacks":
        return f"no current memory contains {target!r}"
    if kind == "file_has":
        return f"file {target} exists" + (
            f" and contains {check.contains!r}" if check.contains else ""
        )
    return f"file {target} does not exist"


def memory_text(memories: Sequence[MemoryRecord]) -> str:
    """The memories as the judge and the evidence show them, one per line."""
    if not memories:
        return "(no memories)"
    lines = []
    for m in memories:
        tag = m.state if m.superseded_by is None else f"{m.state}, superseded_by {m.superseded_by}"
        lines.append(f"- [{tag}] {m.key}: {m.value if m.value is not None else '(forgotten)'}")
    return "\n".join(lines)


def _current(memories: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return [m for m in memories if m.state == "current" and m.value is not None]


def _verify(
    check: StateCheck, tools: Sequence[ToolUse], state: AgentState | None, no_state: str
) -> tuple[bool | None, str]:
    kind, target = check.kind(), check.target()
    if kind in ("tool_called", "tool_not_called"):
        calls = [t for t in tools if _call_matches(t, target, check.arguments)]
        seen = "; ".join(f"{t.name}({t.arguments})" for t in tools) or "no tool calls"
        return (bool(calls) if kind == "tool_called" else not calls), seen
    if kind in ("memory_has", "memory_lacks"):
        if state is None or state.memories is None:
            return None, no_state if state is None else "the agent shows no memory"
        current = _current(state.memories)
        hits = [m for m in current if _has(f"{m.key} {m.value}", target)]
        shown = memory_text(hits or current)
        return (bool(hits) if kind == "memory_has" else not hits), shown
    if state is None or state.workspace is None:
        return None, no_state if state is None else "the agent shows no workspace"
    path = state.workspace / target
    if path.exists() and outside(path, state.workspace):
        return False, f"{target} leads outside the workspace"
    if kind == "file_absent":
        return not path.exists(), "exists" if path.exists() else "absent"
    if not path.is_file():
        return False, f"{target} is absent (files: {_listing(state.workspace)})"
    with path.open("rb") as fh:
        text = fh.read(FILE_BYTES).decode("utf-8", errors="replace")
    if check.contains is None:
        return True, text
    return _has(text, check.contains), text


def _listing(folder: Path) -> str:
    if not folder.is_dir():
        return "none"
    names = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    return ", ".join(names[:20]) or "none"


def run_checks(
    turn: int,
    checks: Sequence[StateCheck],
    tools: Sequence[ToolUse],
    state: AgentState | None,
    no_state: str = "the agent has no state() to read",
) -> list[CheckResult]:
    """Each check of a turn against its tool calls and the agent's state after it."""
    out = []
    for check in checks:
        passed, evidence = _verify(check, tools, state, no_state)
        out.append(
            CheckResult(
                turn=turn,
                kind=check.kind(),
                expect=_describe(check),
                passed=passed,
                evidence=evidence[:EVIDENCE_CHARS],
            )
        )
    return out


def verdict(results: Sequence[CheckResult]) -> bool | None:
    """False when a check failed, True when every check passed, None otherwise (none
    declared, or one could not be verified)."""
    if any(r.passed is False for r in results):
        return False
    if results and all(r.passed is True for r in results):
        return True
    return None
