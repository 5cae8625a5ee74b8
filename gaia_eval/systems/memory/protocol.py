"""The `Memory` protocol: what the memory benchmark needs from any agent memory system.

The reference system (`gaia_eval.systems.memory`) implements it; a user's own memory plugs in
with `--system module:factory`, where the factory takes no arguments and returns a fresh,
unopened object. The replay calls the factory once per chat (a fresh agent per chat, as in a
chat UI) and opens every instance on the scenario's one database, so anything a system keeps
only in process memory is lost between chats, as it would be for a real user.

Time is injected: the replay owns a simulated clock and passes `now` to every call, so months
pass in seconds while ages, windows and forget ordering behave as they would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from gaia_eval.embed import Embedder

ItemKind = Literal["fact", "preference", "lesson", "reminder"]
Source = Literal["user", "document", "tool", "other_person", "hypothetical"]
ReminderStatus = Literal["scheduled", "rescheduled", "cancelled", "done"]
RowState = Literal["current", "superseded", "forgotten", "tombstone"]

ITEM_KINDS: tuple[ItemKind, ...] = ("fact", "preference", "lesson", "reminder")
SOURCES: tuple[Source, ...] = ("user", "document", "tool", "other_person", "hypothetical")
REMINDER_STATUSES: tuple[ReminderStatus, ...] = ("scheduled", "rescheduled", "cancelled", "done")


@runtime_checkable
class Clock(Protocol):
    """The injected clock; the replay's simulated clock implements it."""

    def now(self) -> datetime:
        """The current (simulated) time, timezone-aware UTC."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One tool call the agent made during a turn, with its output."""

    tool: str
    """The tool's name (`weather`, `read_file`, `run`, `email_search`, ...)."""
    args: str = ""
    """The arguments as the agent wrote them."""
    output: str = ""
    """What the tool returned: never the user's words."""
    ok: bool = True
    """False when the call failed (a command that exited non-zero, an error)."""


@dataclass(frozen=True)
class Candidate:
    """A memory item an extractor proposes, or an explicit `remember` call files."""

    kind: ItemKind
    subject: str
    """Who or what the item is about: `user`, `sister`, `Biscuit`, `repo:widget`."""
    attribute: str
    """What about it: `city`, `employer`, `diet`, `test command`, `dentist`."""
    value: str
    """The value as text: `Portland`, `vegetarian`, `python -m pytest`."""
    source: Source = "user"
    """Where the extractor says the text came from; a system decides for itself."""
    confidence: float = 0.8
    """The extractor's confidence, 0..1 (hedged statements are low)."""
    since: datetime | None = None
    """When the value became true, if the text says (else: when it was said)."""
    due: datetime | None = None
    """Reminders: when it is due."""
    window: timedelta | None = None
    """Reminders: how long before `due` it should be surfaced."""
    status: ReminderStatus | None = None
    """Reminders: the status this mention sets."""
    scope: str | None = None
    """Lessons: the repository (or project) the lesson describes."""


@dataclass(frozen=True)
class Turn:
    """One turn of a chat as an extractor sees it."""

    chat_id: str
    user_text: str
    assistant_text: str
    tool_record: tuple[ToolCall, ...]
    now: datetime


@dataclass(frozen=True)
class ConsolidationRequest:
    """A group of items a system thinks are duplicates, for the extractor to merge."""

    subject: str
    items: tuple[tuple[str, str], ...]
    """(attribute, value) of each item in the group, oldest first."""
    now: datetime


@runtime_checkable
class Extractor(Protocol):
    """Turns text into candidate items: scripted in `pr`, a model in `full`."""

    @property
    def spec(self) -> str:
        """What extracts (`scripted`, or the model spec); recorded in results."""
        ...

    def extract(self, turn: Turn) -> list[Candidate]:
        """The candidates a turn yields (facts, preferences, lessons, reminders)."""
        ...

    def consolidate(self, request: ConsolidationRequest) -> tuple[str, str] | None:
        """The merged (attribute, value) for a duplicate group, or None to keep them apart."""
        ...


@dataclass(frozen=True)
class MemoryTools:
    """What the benchmark hands a system when it opens: the extractor and the embedder."""

    extractor: Extractor
    embedder: Embedder


@dataclass(frozen=True)
class Shown:
    """Exactly the text the agent would see for a request."""

    system_section: str
    """Memory's part of the system prompt (profile, upcoming reminders)."""
    turn_context: str
    """The per-turn context retrieved for this request."""

    @property
    def text(self) -> str:
        return f"{self.system_section}\n{self.turn_context}".strip()


@dataclass(frozen=True)
class Row:
    """One row of the store, for store probes and the report's timeline."""

    id: str
    kind: ItemKind | Literal["tombstone"]
    subject: str
    attribute: str
    value: str | None
    """None once forgotten (the text itself must be gone)."""
    source: Source
    state: RowState
    """The row's state as the system sees it at dump time; store probes at an earlier time
    use `valid_from` and `superseded_at` where given."""
    chat_id: str | None = None
    created: datetime | None = None
    valid_from: datetime | None = None
    superseded_by: str | None = None
    superseded_at: datetime | None = None
    forgotten_at: datetime | None = None
    confidence: float = 1.0
    due: datetime | None = None
    status: ReminderStatus | None = None
    scope: str | None = None


@dataclass(frozen=True)
class MemoryInfo:
    """Settings recorded in results; the gate compares `name` and `embedder`."""

    name: str
    embedder: str
    settings: dict[str, object] = field(default_factory=dict)


@runtime_checkable
class Memory(Protocol):
    """An agent memory system under test. One instance is one chat's agent."""

    def info(self) -> MemoryInfo: ...

    def open(self, db_path: Path, clock: Clock, tools: MemoryTools) -> None:
        """Open (creating when absent) the scenario's one shared database."""
        ...

    def upkeep(self, now: datetime) -> None:
        """Reconcile, consolidate, prune: run on each chat's first message."""
        ...

    def process_turn(
        self,
        chat_id: str,
        user_text: str,
        assistant_text: str,
        tool_record: tuple[ToolCall, ...],
        now: datetime,
    ) -> None:
        """Extract and file what the turn says (through `tools.extractor`)."""
        ...

    def remember(self, item: Candidate, chat_id: str, now: datetime) -> str | None:
        """An explicit remember call by the agent; returns the item's id, or None when the
        system refused to store it (a password, say)."""
        ...

    def update(
        self, value: str, now: datetime, *, item_id: str | None = None, query: str | None = None
    ) -> str | None:
        """Replace the value of one item (by id, or the best match of `query`); returns the
        id of the item now holding the value, or None when nothing matched."""
        ...

    def forget(self, now: datetime, *, item_id: str | None = None, query: str | None = None) -> int:
        """Forget one item, or everything `query` is about; returns how many were forgotten.
        Forgotten must stay forgotten: a later replay of an older chat may not re-import it."""
        ...

    def shown(self, request: str, now: datetime) -> Shown:
        """What the agent is shown for `request` at `now`."""
        ...

    def dump(self) -> list[Row]:
        """Every row: current, superseded (with pointers), forgotten, and tombstones."""
        ...

    def close(self) -> None: ...
