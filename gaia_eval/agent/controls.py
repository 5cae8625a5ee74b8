"""A deliberately bad chat agent: the scenario suite must score it below the reference.

Run it like any user's agent (`--system gaia_eval.agent.controls:says_nothing`): it reads
each document as one chunk (so the scenario's setup succeeds), never uses them, calls no
tool and answers every message with an empty reply, which the suite's own rules fail
whatever a judge says (docs/agent.md, Scoring).
"""

from __future__ import annotations

from pathlib import Path

from gaia_eval.agent.protocol import AgentInfo, AgentReply


class SaysNothing:
    """Every reply is empty."""

    def __init__(self) -> None:
        self.documents: list[str] = []

    def info(self) -> AgentInfo:
        return AgentInfo(name="control:says_nothing")

    def reset(self, documents: list[Path]) -> int:
        self.documents = [p.read_text(encoding="utf-8", errors="replace") for p in documents]
        return len(self.documents)

    def send(self, message: str) -> AgentReply:
        return AgentReply(text="")

    def close(self) -> None:
        return None


def says_nothing() -> SaysNothing:
    return SaysNothing()
