"""Read one Claude Code transcript (JSONL) and put its records in conversation order.

Order comes from the `parentUuid` chain, never from timestamps or line order: a rewound
conversation leaves abandoned branches in the file, compaction leaves records whose parent
is gone (or null, with a `logicalParentUuid`), and attachment or system records sit in the
chain without being messages. Walking back from the newest leaf, a missing parent jumps
to the newest earlier record that is not yet on the chain, so those gaps do not cut the
conversation short.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Transcript:
    """The records of one file, and what could not be read."""

    path: Path
    records: list[dict[str, Any]] = field(default_factory=list)
    """Every parsed record, file order."""
    skipped: dict[str, int] = field(
        default_factory=lambda: {"blank": 0, "unparseable": 0, "truncated": 0}
    )
    """Lines skipped, by reason."""

    @property
    def stem(self) -> str:
        """The session id (file stem)."""
        return self.path.stem

    def summary_leaves(self) -> list[str]:
        """`leafUuid`s of summary records: leaves of the conversation this file continues."""
        return [
            str(r["leafUuid"])
            for r in self.records
            if r.get("type") == "summary" and isinstance(r.get("leafUuid"), str)
        ]


def read_transcript(path: Path) -> Transcript:
    """Parse `path`, skipping (and counting) blank, unparseable and truncated lines."""
    out = Transcript(path)
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    last = len(lines) - 1
    for index, line in enumerate(lines):
        if index == last and not line:
            break  # the newline that ends the file
        if not line.strip():
            out.skipped["blank"] += 1
            continue
        try:
            record = json.loads(line.decode("utf-8", errors="replace"))
        except (json.JSONDecodeError, RecursionError):  # RecursionError: nested too deeply
            # A final line with no newline is a write cut short (the session was running).
            reason = "truncated" if index == last else "unparseable"
            out.skipped[reason] += 1
            continue
        if not isinstance(record, dict):
            out.skipped["unparseable"] += 1
            continue
        if b"\\u" in line:  # a lone surrogate escape cannot be written again: U+FFFD
            from gaia_eval.core.jsontext import repaired

            record = repaired(record)
        out.records.append(record)
    return out


def conversation_order(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records on the main conversation chain, oldest first (see the module docstring)."""
    chained = [r for r in records if isinstance(r.get("uuid"), str)]
    if not chained:
        return []
    position = {str(r["uuid"]): i for i, r in enumerate(chained)}
    parents = {_parent(r) for r in chained}
    # A loop of parent links (a record its own parent, or A -> B -> A) leaves no leaf:
    # start from the newest record then; the walk below never visits a record twice.
    leaves = [r for r in chained if r["uuid"] not in parents] or chained
    # The newest leaf that is a message: what the user was looking at when the file ended.
    messages = [r for r in leaves if r.get("type") in ("user", "assistant")] or leaves
    current: dict[str, Any] | None = max(messages, key=lambda r: position[str(r["uuid"])])
    seen: set[str] = set()
    chain: list[dict[str, Any]] = []
    while current is not None and str(current["uuid"]) not in seen:
        uid = str(current["uuid"])
        seen.add(uid)
        chain.append(current)
        parent = _parent(current)
        if parent is not None and parent in position:
            current = chained[position[parent]]
            continue
        # Orphan (compaction) or broken link (attachment): continue with the newest earlier
        # record not yet on the chain, but only across a gap, never into an abandoned branch.
        current = _newest_before(chained, position[uid], seen, parents)
    chain.reverse()
    return chain


def _parent(record: dict[str, Any]) -> str | None:
    for key in ("parentUuid", "logicalParentUuid"):
        value = record.get(key)
        if isinstance(value, str) and value and value != record.get("uuid"):
            return value  # a record named as its own parent has none
    return None


def _newest_before(
    chained: list[dict[str, Any]], end: int, seen: set[str], parents: set[str | None]
) -> dict[str, Any] | None:
    """The newest record before `end` that no other record names as parent (the end of the
    segment the gap cut off), or None at the start of the file."""
    for i in range(end - 1, -1, -1):
        record = chained[i]
        uid = str(record["uuid"])
        if uid in seen:
            continue
        if uid not in parents:
            return record
        return None  # the record before the gap has a child: the chain really started here
    return None
