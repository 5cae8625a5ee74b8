"""Exchanges (prompt, final answer, tools, usage) from one transcript in conversation order.

The flush rule (spec §7): machinery that arrives after an answer has started ends the
exchange; machinery that arrives before any answer is ignored, so the pending question
survives. A new typed prompt also ends an answered exchange; one that arrives before any
answer replaces the unanswered one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gaia_eval.sessions.machinery import is_machinery


@dataclass
class Exchange:
    """One prompt and everything the assistant said until the exchange ended."""

    prompt: str
    prompt_uuid: str | None
    timestamp: str | None
    cwd: str | None
    git_branch: str | None
    texts: list[str] = field(default_factory=list)
    tools: set[str] = field(default_factory=set)
    usage: dict[tuple[str, str | None], dict[str, Any]] = field(default_factory=dict)
    """(message.id, requestId) -> (usage, model), first seen."""
    last_uuid: str | None = None
    """The last record of the exchange (a summary's leafUuid names one of these)."""
    uuids: set[str] = field(default_factory=set)
    """Every record uuid the exchange covers."""

    @property
    def reference(self) -> str:
        """The last text block: what the user finally read."""
        return self.texts[-1] if self.texts else ""

    @property
    def answered(self) -> bool:
        return bool(self.texts or self.tools)


def typed_text(record: dict[str, Any]) -> str | None:
    """The text a person typed, or None for block content (tool results fed back)."""
    content = record.get("message", {}).get("content")
    return content if isinstance(content, str) else None


def extract_exchanges(ordered: list[dict[str, Any]]) -> list[Exchange]:
    """Completed exchanges of `ordered` records (a conversation chain)."""
    out: list[Exchange] = []
    pending: Exchange | None = None

    def flush() -> None:
        nonlocal pending
        if pending is not None and pending.texts:
            out.append(pending)
        pending = None

    for record in ordered:
        kind = record.get("type")
        message = record.get("message")
        if record.get("isSidechain") or kind not in ("user", "assistant"):
            continue
        if not isinstance(message, dict):
            continue
        uid = record.get("uuid") if isinstance(record.get("uuid"), str) else None
        if kind == "user":
            text = typed_text(record)
            if text is None:
                if pending is not None and uid:
                    pending.uuids.add(uid)
                continue
            if is_machinery(text):
                if pending is not None and pending.answered:
                    flush()
                continue
            if pending is not None and pending.answered:
                flush()
            pending = Exchange(
                prompt=text.strip(),
                prompt_uuid=uid,
                timestamp=_str(record.get("timestamp")),
                cwd=_str(record.get("cwd")),
                git_branch=_str(record.get("gitBranch")),
            )
            if uid:
                pending.uuids.add(uid)
                pending.last_uuid = uid
            continue
        if pending is None:
            continue
        _add_assistant(pending, record, message)
        if uid:
            pending.uuids.add(uid)
            pending.last_uuid = uid
    flush()
    return out


def _add_assistant(ex: Exchange, record: dict[str, Any], message: dict[str, Any]) -> None:
    content = message.get("content")
    blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                ex.texts.append(block["text"].strip())
        elif block.get("type") == "tool_use" and isinstance(block.get("name"), str):
            ex.tools.add(block["name"])
    usage = message.get("usage")
    mid = message.get("id")
    if isinstance(usage, dict) and isinstance(mid, str):
        # Split messages repeat message.id (and requestId): count once. The records' counts
        # grow as the message streams (the first often says output_tokens: 1), so each
        # counter keeps its final, largest value: a split message is never undercounted.
        key = (mid, _str(record.get("requestId")))
        entry = ex.usage.setdefault(key, {"usage": {}, "model": _str(message.get("model"))})
        merged = entry["usage"]
        for name, value in usage.items():
            before = merged.get(name)
            if name not in merged or (
                isinstance(value, int) and isinstance(before, int) and value > before
            ):
                merged[name] = value


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
