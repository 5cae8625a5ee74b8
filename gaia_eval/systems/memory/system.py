"""The reference memory system: SQLite (WAL), supersession, tombstones, lessons, reminders.

One instance is one chat's agent; every instance of a scenario opens the same database.
Nothing is kept in process memory between calls that the next chat would need.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import cast

from gaia_eval.systems.memory import filing
from gaia_eval.systems.memory.protocol import (
    Candidate,
    Clock,
    ItemKind,
    MemoryInfo,
    MemoryTools,
    ReminderStatus,
    Row,
    RowState,
    Shown,
    Source,
    ToolCall,
    Turn,
)
from gaia_eval.systems.memory.provenance import Segment, looks_secret, split_turn
from gaia_eval.systems.memory.recall import RecallSettings, shown
from gaia_eval.systems.memory.store import Item, Store, iso, parse_iso
from gaia_eval.systems.memory.text import STOPWORDS, content_terms, stem, term_set, words
from gaia_eval.systems.memory.upkeep import (
    UpkeepReport,
    UpkeepSettings,
    consolidate,
    forget_rows,
    prune,
    reconcile,
)

_FORGET_FILLER = frozenset(
    stem(w) for w in ("forget", "everything", "anything", "delete", "remove", "erase", "stuff")
)


class ReferenceMemory:
    """The shipped memory system; `gaia_eval.systems.memory:make` builds one."""

    name = "reference"

    def __init__(
        self,
        *,
        recall: RecallSettings | None = None,
        upkeep_settings: UpkeepSettings | None = None,
        busy_timeout_s: float = 5.0,
    ) -> None:
        self.recall_settings = recall or RecallSettings()
        self.upkeep_settings = upkeep_settings or UpkeepSettings()
        self.busy_timeout_s = busy_timeout_s
        self._store: Store | None = None
        self._tools: MemoryTools | None = None
        self.last_upkeep = UpkeepReport()
        self.decisions: list[tuple[str, str]] = []
        """(candidate text, decision) of this agent's extractions, for debugging."""

    # ---- lifecycle ------------------------------------------------------------------

    def info(self) -> MemoryInfo:
        embedder = self._tools.embedder.spec if self._tools else ""
        settings: dict[str, object] = {
            **{k: str(v) for k, v in asdict(self.recall_settings).items()},
            **{k: str(v) for k, v in asdict(self.upkeep_settings).items()},
        }
        return MemoryInfo(name=self.name, embedder=embedder, settings=settings)

    def open(self, db_path: Path, clock: Clock, tools: MemoryTools) -> None:
        self._store = Store(db_path, busy_timeout_s=self.busy_timeout_s)
        self._tools = tools
        self._clock = clock

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    @property
    def store(self) -> Store:
        if self._store is None:
            msg = "the memory is not open: call open(db_path, clock, tools) first"
            raise RuntimeError(msg)
        return self._store

    @property
    def tools(self) -> MemoryTools:
        assert self._tools is not None
        return self._tools

    def _transaction(self) -> _Tx:
        return _Tx(self.store)

    # ---- writes ---------------------------------------------------------------------

    def upkeep(self, now: datetime) -> None:
        stamp = iso(now)
        assert stamp is not None
        with self._transaction():
            report = UpkeepReport()
            report.forgotten = reconcile(self.store, stamp)
            report.merged = consolidate(
                self.store, self.tools.extractor, self.tools.embedder, now, self.upkeep_settings
            )
            report.pruned = prune(self.store, now, self.upkeep_settings)
        self.last_upkeep = report

    def process_turn(
        self,
        chat_id: str,
        user_text: str,
        assistant_text: str,
        tool_record: tuple[ToolCall, ...],
        now: datetime,
    ) -> None:
        stamp = iso(now)
        assert stamp is not None
        candidates = self.tools.extractor.extract(
            Turn(chat_id, user_text, assistant_text, tuple(tool_record), now)
        )
        segments = split_turn(user_text, assistant_text, tuple(tool_record))
        with self._transaction():
            started = self.store.chat_started(chat_id, stamp)
            for cand in candidates:
                decision = self._decide(cand, segments)
                self.decisions.append(
                    (f"{cand.subject}/{cand.attribute}={cand.value}", decision.reason)
                )
                if decision.candidate is None:
                    continue
                if filing.blocked(self.store, decision.candidate, started):
                    self.decisions[-1] = (self.decisions[-1][0], "forgotten (tombstone)")
                    continue
                self._file(decision.candidate, chat_id, now)

    # The two steps a control (gaia_eval.memory.controls) breaks on purpose.
    def _decide(self, cand: Candidate, segments: list[Segment]) -> filing.Decision:
        return filing.decide(cand, segments)

    def _file(self, cand: Candidate, chat_id: str | None, now: datetime) -> str | None:
        return filing.file_item(self.store, self.tools.embedder, cand, chat_id=chat_id, now=now)

    def remember(self, item: Candidate, chat_id: str, now: datetime) -> str | None:
        stamp = iso(now)
        assert stamp is not None
        if looks_secret(item.attribute, item.value):
            return None
        with self._transaction():
            started = self.store.chat_started(chat_id, stamp)
            if filing.blocked(self.store, item, started):
                return None
            return self._file(item, chat_id, now)

    def update(
        self, value: str, now: datetime, *, item_id: str | None = None, query: str | None = None
    ) -> str | None:
        target = self._target(item_id, query)
        if target is None:
            return None
        cand = Candidate(
            kind=cast("ItemKind", target.kind),
            subject=target.subject,
            attribute=target.attribute,
            value=value,
            confidence=max(target.confidence, 0.9),
            scope=target.scope,
            due=parse_iso(target.due),
        )
        with self._transaction():
            return self._file(cand, target.chat_id, now)

    def _target(self, item_id: str | None, query: str | None) -> Item | None:
        if item_id is not None:
            item = self.store.get(item_id)
            return item if item is not None and item.current else None
        if not query:
            return None
        terms = term_set(query)
        best: tuple[float, str] | None = None
        found = None
        for item in self.store.current():
            have = term_set(f"{item.subject} {item.attribute} {item.value}")
            score = len(terms & have) / max(1, len(terms))
            if score > 0 and (best is None or (score, item.id) > best):
                best, found = (score, item.id), item
        return found

    def forget(self, now: datetime, *, item_id: str | None = None, query: str | None = None) -> int:
        stamp = iso(now)
        assert stamp is not None
        with self._transaction():
            if item_id is not None:
                item = self.store.get(item_id)
                if item is None or item.forgotten_at is not None:
                    return 0
                pattern = f"{item.attribute} {item.value}"
                self.store.add_tombstone(filing.tombstone_pattern(pattern), stamp, None)
                return forget_rows(self.store, [item], stamp)
            return self._forget_about(query or "", stamp)

    def _forget_about(self, query: str, stamp: str) -> int:
        """Forget every row the query is about, and everything about the people it names
        ("forget everything about my manager" takes the manager's name with it)."""
        terms = {t for t in content_terms(query) if t not in _FORGET_FILLER}
        if not terms:
            return 0
        rows = [i for i in self.store.all_items() if i.forgotten_at is None and i.value]
        patterns = [" ".join(sorted(terms))]

        def about(item: Item, need: set[str]) -> bool:
            return filing.covers(
                need, set(term_set(f"{item.subject} {item.attribute} {item.value}"))
            )

        doomed = {i.id: i for i in rows if about(i, terms)}
        for item in list(doomed.values()):
            name = [w for w in words(item.value or "") if w not in STOPWORDS]
            # A short value naming someone (a manager's name) is an entity to forget too.
            short = item.kind in ("fact", "preference") and 0 < len(name) <= 3
            if short and item.value and item.value[:1].isupper():
                patterns.append(item.value)
                need = set(term_set(item.value))
                doomed.update({i.id: i for i in rows if about(i, need)})
        for pattern in patterns:
            self.store.add_tombstone(filing.tombstone_pattern(pattern), stamp, None)
        return forget_rows(self.store, list(doomed.values()), stamp)

    # ---- reads ----------------------------------------------------------------------

    def shown(self, request: str, now: datetime) -> Shown:
        return shown(self.store, self.tools.embedder, request, now, self.recall_settings)

    def dump(self) -> list[Row]:
        rows = []
        for item in self.store.all_items():
            state: RowState
            if item.forgotten_at is not None:
                state = "forgotten"
            elif item.superseded_by is not None:
                state = "superseded"
            else:
                state = "current"
            rows.append(
                Row(
                    id=item.id,
                    kind=cast("ItemKind", item.kind),
                    subject=item.subject,
                    attribute=item.attribute,
                    value=item.value,
                    source=cast("Source", item.source),
                    state=state,
                    chat_id=item.chat_id,
                    created=parse_iso(item.created),
                    valid_from=parse_iso(item.valid_from),
                    superseded_by=item.superseded_by,
                    superseded_at=parse_iso(item.superseded_at),
                    forgotten_at=parse_iso(item.forgotten_at),
                    confidence=item.confidence,
                    due=parse_iso(item.due),
                    status=cast("ReminderStatus | None", item.status),
                    scope=item.scope,
                )
            )
        for n, stone in enumerate(self.store.tombstones(), 1):
            rows.append(
                Row(
                    id=f"t{n:04d}",
                    kind="tombstone",
                    subject="",
                    attribute="",
                    value=stone.pattern,
                    source="user",
                    state="tombstone",
                    created=parse_iso(stone.created),
                )
            )
        return rows


class _Tx:
    """One transaction: a chat's writes land together or not at all."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def __enter__(self) -> None:
        self.store.begin()

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.store.commit()
        else:
            # The original error is the one to report.
            with contextlib.suppress(sqlite3.Error):
                self.store.rollback()
