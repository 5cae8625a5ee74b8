"""What the agent is shown: a profile and the upcoming reminders in the system section, and
the items retrieved for the request (plus their history, when it asks about the past) in the
turn context.

Only items that are true at `now` are candidates: not forgotten, already valid (a move
planned for May is not where the user lives in April), not yet superseded, and said by the
user. Retrieval scores the embedder's cosine plus keyword overlap of stemmed terms; a
threshold keeps unrelated items out, which keeps the context small.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

import numpy as np
import numpy.typing as npt

from gaia_eval.embed import Embedder
from gaia_eval.systems.memory.protocol import Shown
from gaia_eval.systems.memory.store import Item, Store, iso, parse_iso
from gaia_eval.systems.memory.temporal import asked_range
from gaia_eval.systems.memory.text import expanded_terms, norm_key, term_set


@dataclass(frozen=True)
class RecallSettings:
    top_k: int = 6
    min_score: float = 0.3
    profile_size: int = 8
    profile_confidence: float = 0.85
    keyword_weight: float = 0.6
    reminder_grace: timedelta = timedelta(days=1)
    planned_horizon: timedelta = timedelta(days=60)


def visible_at(item: Item, now: str) -> bool:
    """True when the item holds at `now` (ISO text compares in time order)."""
    if item.forgotten_at is not None or item.value is None or item.source != "user":
        return False
    if item.valid_from > now:
        return False
    if item.superseded_by is not None:
        return item.superseded_at is not None and item.superseded_at > now
    return True


def _date(text: str | None) -> str:
    return (text or "")[:10]


def render(item: Item) -> str:
    subj = "" if item.subject == "user" else f"{item.subject} · "
    if item.kind == "reminder":
        due = parse_iso(item.due)
        when = due.strftime("%a %Y-%m-%d %H:%M") if due else "no time"
        return f"- reminder: {subj}{item.attribute}: {item.value} — due {when} ({item.status})"
    if item.kind == "lesson":
        scope = f" ({item.scope})" if item.scope else ""
        return f"- lesson{scope}: {item.attribute}: {item.value}"
    return f"- {subj}{item.attribute}: {item.value}"


def _render_history(item: Item) -> str:
    until = _date(item.superseded_at) if item.superseded_by else "now"
    return f"{render(item)} (from {_date(item.valid_from)} until {until})"


def _score(
    item: Item,
    query_vec: npt.NDArray[np.float32],
    query_terms: frozenset[str],
    s: RecallSettings,
    linked: frozenset[str],
) -> float:
    """Cosine plus keyword overlap: the larger share of the attribute's or the value's
    terms the request holds (asking "where do I work" names the attribute, not the value);
    an item about someone the request names by relation ("my manager") counts as named."""
    vec = item.vector()
    cos = float(vec @ query_vec) if vec is not None and vec.shape == query_vec.shape else 0.0
    shares = [1.0] if norm_key(item.subject) in linked else []
    for part in (f"{item.attribute} {item.scope or ''}", f"{item.subject} {item.value or ''}"):
        terms = term_set(part) - {"user"}
        if terms:
            shares.append(len(terms & query_terms) / len(terms))
    return cos + s.keyword_weight * max(shares, default=0.0)


def _ranked(
    items: list[Item],
    embedder: Embedder,
    request: str,
    s: RecallSettings,
    linked: frozenset[str] = frozenset(),
) -> list[tuple[float, Item]]:
    if not items:
        return []
    query_vec = embedder.embed([request])[0]
    query_terms = expanded_terms(request)
    scored = [(_score(i, query_vec, query_terms, s, linked), i) for i in items]
    scored = [(sc, i) for sc, i in scored if sc >= s.min_score]
    # Ties broken by recency then id, so the order is the same on every run.
    scored.sort(key=lambda p: (-round(p[0], 6), p[1].valid_from, p[1].id), reverse=False)
    return scored


def _upcoming(reminders: list[Item], now: datetime, s: RecallSettings) -> list[Item]:
    out = []
    for r in reminders:
        due = parse_iso(r.due)
        if due is None or r.status not in ("scheduled", "rescheduled"):
            continue
        window = timedelta(seconds=r.window_s or 3 * 86400)
        if due - window <= now <= due + s.reminder_grace:
            out.append(r)
    return sorted(out, key=lambda r: (r.due or "", r.id))


def shown(
    store: Store, embedder: Embedder, request: str, now: datetime, s: RecallSettings
) -> Shown:
    stamp = iso(now)
    assert stamp is not None
    items = [i for i in store.all_items() if visible_at(i, stamp)]
    profile = sorted(
        (
            i
            for i in items
            if i.subject == "user"
            and (
                i.kind == "preference"
                or (i.kind == "fact" and (i.mentions >= 2 or i.confidence >= s.profile_confidence))
            )
        ),
        key=lambda i: (-i.mentions, -i.confidence, i.last_seen, i.id),
    )[: s.profile_size]
    upcoming = _upcoming([i for i in items if i.kind == "reminder"], now, s)
    system = []
    if profile:
        system.append("## What you know about the user")
        system += [render(i) for i in profile]
    if upcoming:
        system.append("## Upcoming")
        system += [render(i) for i in upcoming]
    in_system = {i.id for i in profile} | {i.id for i in upcoming}
    pool = [i for i in items if i.id not in in_system]
    # Items about someone else (a sister, a dog) are shown when the request names them, or
    # names the user's relation to them ("my manager" -> the manager's name).
    asked = term_set(request)
    linked = frozenset(
        norm_key(i.value or "")
        for i in items
        if i.subject == "user" and i.kind == "fact" and term_set(i.attribute) & asked
    )
    pool = [
        i
        for i in pool
        if i.subject == "user" or term_set(i.subject) & asked or norm_key(i.subject) in linked
    ]
    # A request that names a repository sees that repository's lessons only.
    named = {i.scope for i in pool if i.kind == "lesson" and i.scope and term_set(i.scope) <= asked}
    if named:
        pool = [i for i in pool if i.kind != "lesson" or i.scope in named]
    context = [render(i) for _, i in _ranked(pool, embedder, request, s, linked)[: s.top_k]]
    lines = ["## Relevant memories", *context] if context else []
    # Planned changes (a move next month, a job that starts on Monday), marked as such.
    soon = iso(now + s.planned_horizon) or ""
    planned = [
        i
        for i in store.current()
        if i.source == "user" and i.value is not None and stamp < i.valid_from <= soon
    ]
    ahead = [
        f"{render(i)} (from {_date(i.valid_from)})"
        for _, i in _ranked(planned, embedder, request, s)[: s.top_k]
    ]
    if ahead:
        lines += ["## Planned", *ahead]
    span = asked_range(request, now)
    if span is not None:
        start, end = (iso(t) or "" for t in span)
        past = [
            i
            for i in store.all_items()
            if i.forgotten_at is None
            and i.value is not None
            and i.source == "user"
            and i.valid_from < end
            and (i.superseded_at is None or i.superseded_at > start)
        ]
        history = [_render_history(i) for _, i in _ranked(past, embedder, request, s)[: s.top_k]]
        if history:
            lines += [f"## What was true {_date(start)} to {_date(end)}", *history]
    return Shown(system_section="\n".join(system), turn_context="\n".join(lines))
