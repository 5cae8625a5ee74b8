"""Build Claude Code transcripts (JSONL) record by record for the session-replay tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

LONG_ANSWER = (
    "The retry loop lives in client.py: `fetch()` wraps the request in a for-loop over "
    "three attempts, sleeping 2 s and then 4 s between them, and re-raises the last "
    "error. Timeouts are counted as retryable, HTTP 4xx are not."
)


class Chat:
    """Appends records with a proper parentUuid chain; `gap()` breaks it like compaction."""

    def __init__(self, session: str, cwd: str = "/home/u/proj", branch: str = "main") -> None:
        self.session = session
        self.cwd = cwd
        self.branch = branch
        self.records: list[dict[str, Any]] = []
        self.lines: list[str] = []
        self.parent: str | None = None
        self.n = 0

    def _uuid(self) -> str:
        self.n += 1
        return f"{self.session[:4]}-{self.n:04d}"

    def add(self, record: dict[str, Any], *, chain: bool = True) -> str:
        uid = self._uuid()
        full = {
            "uuid": uid,
            "parentUuid": self.parent,
            "sessionId": self.session,
            "cwd": self.cwd,
            "gitBranch": self.branch,
            "timestamp": f"2026-11-01T10:{self.n // 60:02d}:{self.n % 60:02d}Z",
            **record,
        }
        self.records.append(full)
        self.lines.append(json.dumps(full))
        if chain:
            self.parent = uid
        return uid

    def user(self, text: str | list[dict[str, Any]], **extra: Any) -> str:
        return self.add({"type": "user", "message": {"role": "user", "content": text}, **extra})

    def assistant(
        self,
        blocks: list[dict[str, Any]],
        *,
        mid: str | None = None,
        request: str | None = "req",
        usage: dict[str, int] | None = None,
        **extra: Any,
    ) -> str:
        message: dict[str, Any] = {
            "role": "assistant",
            "id": mid or f"msg_{self.n + 1}",
            "model": "claude-sonnet-4-5",
            "content": blocks,
            "usage": usage or {"input_tokens": 10, "output_tokens": 100},
        }
        record: dict[str, Any] = {"type": "assistant", "message": message, **extra}
        if request is not None:
            record["requestId"] = request
        return self.add(record)

    def answer(self, text: str, *, tools: tuple[str, ...] = ()) -> None:
        """A turn: thinking, tool calls with their results, then the final text."""
        self.assistant([{"type": "thinking", "thinking": "let me look", "signature": "x"}])
        for name in tools:
            self.assistant([{"type": "tool_use", "id": f"t{self.n}", "name": name, "input": {}}])
            self.user([{"type": "tool_result", "tool_use_id": f"t{self.n}", "content": "ok"}])
        self.assistant([{"type": "text", "text": "Looking now."}])
        self.assistant([{"type": "text", "text": text}])

    def gap(self) -> None:
        """The next record's parent is a uuid that is not in the file (compaction)."""
        self.parent = "gone-0000"

    def raw(self, line: str) -> None:
        self.lines.append(line)

    def write(self, folder: Path, *, mtime: float | None = None, tail: str = "\n") -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.session}.jsonl"
        path.write_text("\n".join(self.lines) + tail, encoding="utf-8")
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path


def answer_text(topic: str) -> str:
    """A reference long enough (>= 200 chars) to be selected."""
    return f"About {topic}: " + LONG_ANSWER
