"""The streaming record a child agent writes (`progress.jsonl`), one event per line, and
its reading back into an AgentOutcome. Written line by line and flushed, so a run killed
at the wall-clock cap keeps every tool call and model call it made."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # the child process writes records and never needs the models
    from gaia_eval.agents.models import AgentOutcome

PROGRESS = "progress.jsonl"


class RecordWriter:
    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] = (run_dir / PROGRESS).open("a", encoding="utf-8")
        self._t0 = time.monotonic()
        self.tool_index = 0

    def event(self, event_type: str, /, **fields: Any) -> None:
        fields["type"] = event_type
        fields["t"] = round(time.monotonic() - self._t0, 3)
        self._fh.write(json.dumps(fields, ensure_ascii=False) + "\n")
        self._fh.flush()

    def tool(
        self, name: str, args: dict[str, Any], result: str, is_error: bool, check: bool | None
    ) -> None:
        self.event(
            "tool",
            index=self.tool_index,
            name=name,
            args=args,
            result=result,
            is_error=is_error,
            check_passed=check,
        )
        self.tool_index += 1

    def llm(self, input: int, output: int, cached: int) -> None:
        """One model call's tokens (read back as a step of the outcome)."""
        self.event("llm", input=input, output=output, cached=cached)

    def close(self) -> None:
        self._fh.close()


def read_outcome(run_dir: Path) -> AgentOutcome:
    """Rebuild the outcome from the events; a torn last line (killed mid-write) is skipped."""
    from gaia_eval.agents.models import AgentOutcome, ToolCall

    out = AgentOutcome()
    path = run_dir / PROGRESS
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "llm":
            out.steps += 1
            out.input_tokens += int(ev.get("input", 0))
            out.output_tokens += int(ev.get("output", 0))
            out.cached_tokens += int(ev.get("cached", 0))
        elif kind == "tool":
            out.tool_calls.append(
                ToolCall(
                    index=len(out.tool_calls),
                    name=str(ev.get("name", "")),
                    args=ev.get("args") if isinstance(ev.get("args"), dict) else {},
                    result=str(ev.get("result", "")),
                    is_error=bool(ev.get("is_error")),
                    check_passed=ev.get("check_passed"),
                    t=float(ev.get("t", 0.0)),
                )
            )
        elif kind == "answer":
            if out.first_answer_at is None:
                out.first_answer_at = len(out.tool_calls)
            out.answer = str(ev.get("text", ""))
        elif kind == "error":
            out.error = str(ev.get("message", ""))
            out.error_kind = "unavailable" if ev.get("kind") == "unavailable" else "failed"
    return out
