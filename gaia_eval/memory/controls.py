"""Three deliberately broken memory systems: the benchmark must catch each one.

Run them like any user's system (`--system gaia_eval.memory.controls:never_supersedes`);
the tests check that each fails the checks it should and keeps passing the others:

- `never_supersedes`: a new value is filed beside the old one, both current (update and
  reminder checks fail: stale values are shown and stay current in the store);
- `forgets_nothing`: `forget` does nothing (forget checks fail);
- `files_every_line`: no provenance, no secret filter, no tombstones, and every line of
  every turn filed as a note (provenance checks fail: documents, quotes, tool output,
  hypotheticals and a password become the user's).
"""

from __future__ import annotations

from datetime import datetime

from gaia_eval.systems.memory import filing
from gaia_eval.systems.memory.protocol import Candidate, Memory, ToolCall
from gaia_eval.systems.memory.provenance import Segment
from gaia_eval.systems.memory.system import ReferenceMemory


class NeverSupersedes(ReferenceMemory):
    name = "control:never_supersedes"

    def _file(self, cand: Candidate, chat_id: str | None, now: datetime) -> str | None:
        return filing.file_item(
            self.store, self.tools.embedder, cand, chat_id=chat_id, now=now, supersede=False
        )


class ForgetsNothing(ReferenceMemory):
    name = "control:forgets_nothing"

    def forget(self, now: datetime, *, item_id: str | None = None, query: str | None = None) -> int:
        return 0


class FilesEveryLine(ReferenceMemory):
    name = "control:files_every_line"

    def _decide(self, cand: Candidate, segments: list[Segment]) -> filing.Decision:
        return filing.Decision(cand, "accepted (no checks)")

    def remember(self, item: Candidate, chat_id: str, now: datetime) -> str | None:
        with self._transaction():
            return self._file(item, chat_id, now)

    def process_turn(
        self,
        chat_id: str,
        user_text: str,
        assistant_text: str,
        tool_record: tuple[ToolCall, ...],
        now: datetime,
    ) -> None:
        super().process_turn(chat_id, user_text, assistant_text, tool_record, now)
        lines = [
            *user_text.splitlines(),
            *(ln for t in tool_record for ln in t.output.splitlines()),
        ]
        with self._transaction():
            for n, line in enumerate(ln.strip() for ln in lines):
                if line:
                    note = Candidate(kind="fact", subject="user", attribute=f"note {n}", value=line)
                    self._file(note, chat_id, now)


def never_supersedes() -> Memory:
    return NeverSupersedes()


def forgets_nothing() -> Memory:
    return ForgetsNothing()


def files_every_line() -> Memory:
    return FilesEveryLine()
