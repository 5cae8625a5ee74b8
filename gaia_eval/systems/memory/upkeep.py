"""Upkeep on each chat's first message: reconcile, consolidate, prune (on the injected clock).

- reconcile: forget any row a tombstone covers that predates it (a chat that was filing
  while another forgot), so no path around a forget survives the next chat;
- consolidate: current user items about one subject, older than `consolidate_after`, whose
  values are the same or whose texts are near-identical, go to the extractor to merge; the
  merged item supersedes the group;
- prune: current low-confidence items not mentioned for `prune_after` are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np

from gaia_eval.embed import Embedder
from gaia_eval.systems.memory.filing import covers, hashed_terms, item_key, item_text
from gaia_eval.systems.memory.protocol import ConsolidationRequest, Extractor
from gaia_eval.systems.memory.store import Item, Store, iso
from gaia_eval.systems.memory.text import norm_key


@dataclass(frozen=True)
class UpkeepSettings:
    consolidate_after: timedelta = timedelta(days=14)
    near_duplicate: float = 0.8
    prune_after: timedelta = timedelta(days=60)
    prune_below: float = 0.5


@dataclass
class UpkeepReport:
    forgotten: int = 0
    merged: int = 0
    pruned: int = 0


def forget_rows(store: Store, items: list[Item], stamp: str) -> int:
    """Erase the text of each row (value, subject, attribute, vector); keep when."""
    for item in items:
        store.set(
            item.id, value=None, subject="", attribute="", embedding=None, forgotten_at=stamp,
            skey=f"forgotten|{item.id}",
        )  # fmt: skip
    return len(items)


def reconcile(store: Store, stamp: str) -> int:
    stones = store.tombstones()
    if not stones:
        return 0
    doomed = []
    for item in store.all_items():
        if item.forgotten_at is not None or item.value is None:
            continue
        have = hashed_terms(f"{item.subject} {item.attribute} {item.value}")
        for stone in stones:
            need = set(stone.pattern.split())
            if need and covers(need, have) and item.created < stone.created:
                doomed.append(item)
                break
    return forget_rows(store, doomed, stamp)


def _groups(items: list[Item], threshold: float) -> list[list[Item]]:
    """Connected groups of duplicates (same value, or near-identical text), oldest first."""
    parent = list(range(len(items)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a in range(len(items)):
        for b in range(a + 1, len(items)):
            x, y = items[a], items[b]
            same = norm_key(x.value or "") == norm_key(y.value or "")
            vx, vy = x.vector(), y.vector()
            near = vx is not None and vy is not None and float(np.dot(vx, vy)) >= threshold
            if same or near:
                parent[find(a)] = find(b)
    groups: dict[int, list[Item]] = {}
    for i, item in enumerate(items):
        groups.setdefault(find(i), []).append(item)
    return [g for g in groups.values() if len(g) > 1]


def consolidate(
    store: Store, extractor: Extractor, embedder: Embedder, now: datetime, s: UpkeepSettings
) -> int:
    stamp = iso(now)
    cutoff = iso(now - s.consolidate_after)
    assert stamp is not None and cutoff is not None
    by_subject: dict[tuple[str, str], list[Item]] = {}
    for item in store.current():
        if item.kind in ("fact", "preference") and item.source == "user" and item.created <= cutoff:
            by_subject.setdefault((item.kind, item.subject), []).append(item)
    merged = 0
    for (kind, subject), items in sorted(by_subject.items()):
        for group in _groups(items, s.near_duplicate):
            answer = extractor.consolidate(
                ConsolidationRequest(
                    subject=subject,
                    items=tuple((i.attribute, i.value or "") for i in group),
                    now=now,
                )
            )
            if answer is None:
                continue
            attribute, value = answer
            new_id = store.insert(
                kind=kind,
                subject=subject,
                attribute=attribute,
                value=value,
                skey=item_key(kind, subject, attribute, None),
                source="user",
                chat_id=None,
                created=stamp,
                valid_from=min(i.valid_from for i in group),
                last_seen=max(i.last_seen for i in group),
                mentions=sum(i.mentions for i in group),
                confidence=max(i.confidence for i in group),
                embedding=bytes(
                    embedder.embed([item_text(subject, attribute, value)])[0].tobytes()
                ),
            )
            for i in group:
                store.set(i.id, superseded_by=new_id, superseded_at=stamp)
            merged += len(group)
    return merged


def prune(store: Store, now: datetime, s: UpkeepSettings) -> int:
    cutoff = iso(now - s.prune_after)
    assert cutoff is not None
    stale = [
        i
        for i in store.current()
        if i.kind != "reminder" and i.confidence < s.prune_below and i.last_seen < cutoff
    ]
    for item in stale:
        store.delete(item.id)
    return len(stale)
