"""A deliberately worse memory system (for `--system` in the compare tests): the reference
system, except that it files nothing the chats say, so every later probe that needs a
remembered fact fails while the probes that need silence still pass."""

from __future__ import annotations

from datetime import datetime

from gaia_eval.systems.memory import ReferenceMemory
from gaia_eval.systems.memory.protocol import Memory, ToolCall


class _Forgetful(ReferenceMemory):
    def process_turn(
        self,
        chat_id: str,
        user_text: str,
        assistant_text: str,
        tool_record: tuple[ToolCall, ...],
        now: datetime,
    ) -> None:
        return None


def forgetful() -> Memory:
    return _Forgetful()
