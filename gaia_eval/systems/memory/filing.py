"""Filing: what the reference system believes of a candidate, and how it lands in the store.

Decisions, in order: secrets are never stored; provenance must put the value in the user's
own words (lessons may also rest on the assistant's words or a tool's output, never on a
document's); a forget tombstone blocks re-import from any chat that began before it; then
the item supersedes the current one of the same key, or reinforces it when the value is the
same. Reminders change status in place (cancel, done) and are superseded when rescheduled.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from datetime import datetime

from gaia_eval.embed import Embedder
from gaia_eval.systems.memory.protocol import Candidate
from gaia_eval.systems.memory.provenance import Segment, locate, looks_secret
from gaia_eval.systems.memory.store import Item, Store, iso
from gaia_eval.systems.memory.text import content_terms, norm_key

_SELF = frozenset({"user", "me", "i", "myself", "the user"})
_STATUS_WORDS = re.compile(
    r"\b(cancel\w*|called off|calling off|won't (?:go|make)|not going|done|went|finished|"
    r"completed|had (?:my|the)|moved|reschedul\w*|pushed|postponed|changed|landed|arrived|"
    r"attended|made it|back from)\b",
    re.IGNORECASE,
)
_FACT_REJECT = frozenset({"hypothetical", "other_person", "document", "tool", "assistant"})


@dataclass(frozen=True)
class Decision:
    """What the system makes of one candidate."""

    candidate: Candidate | None
    """The candidate to file (possibly re-attributed), or None when refused."""
    reason: str
    """`accepted`, `re-attributed`, or why it was refused."""


def canonical_subject(subject: str) -> str:
    s = norm_key(subject)
    return "user" if s in _SELF else s


def item_key(kind: str, subject: str, attribute: str, scope: str | None) -> str:
    parts = [canonical_subject(subject), norm_key(attribute)]
    if kind == "lesson":
        parts.append(norm_key(scope or ""))
    return "|".join(parts)


def decide(candidate: Candidate, segments: list[Segment]) -> Decision:
    """Provenance and secrecy for an extractor's candidate (explicit calls skip provenance)."""
    seg = locate(candidate.value, segments, context=candidate.attribute)
    evidence = seg.text if seg else ""
    if looks_secret(candidate.attribute, candidate.value, evidence):
        return Decision(None, "secret")
    if seg is None:
        # No words of the value anywhere: a paraphrase. Trust the extractor only when it
        # says the user said it and the user did say something of their own.
        own = any(s.source == "user" for s in segments)
        if candidate.source == "user" and own:
            return Decision(candidate, "accepted (paraphrase)")
        return Decision(None, f"no evidence ({candidate.source})")
    if candidate.kind == "lesson":
        # A lesson may rest on the agent's own words or commands, or on a failed tool's
        # output; never on a document or a tool's successful output (a README, an issue).
        usable = seg.source in ("user", "assistant") or seg.tool_args or seg.failed_tool
        if not usable:
            return Decision(None, f"provenance: {seg.source} (lesson)")
    elif seg.source in _FACT_REJECT:
        return Decision(None, f"provenance: {seg.source}")
    if candidate.kind == "reminder" and seg.about:
        return Decision(None, f"someone else's appointment ({seg.about})")
    status_change = candidate.kind == "reminder" and candidate.status in ("cancelled", "done")
    if status_change and not _STATUS_WORDS.search(evidence):
        return Decision(None, "status without a status word")
    user_subject = canonical_subject(candidate.subject) == "user"
    if seg.about and user_subject and seg.about not in norm_key(candidate.attribute):
        return Decision(replace(candidate, subject=seg.about), "re-attributed")
    return Decision(candidate, "accepted")


def _hash_term(term: str) -> str:
    return hashlib.blake2b(term.encode(), digest_size=6).hexdigest()


def tombstone_pattern(text: str) -> str:
    """A tombstone keeps hashes of the forgotten terms, never the text itself."""
    return " ".join(sorted({_hash_term(t) for t in content_terms(text)}))


def covers(need: set[str], have: set[str]) -> bool:
    """True when a forget pattern is about an item: most of the pattern's terms are the
    item's, or half of the item's terms are the pattern's."""
    common = len(need & have)
    return common > 0 and (common / len(need) >= 0.6 or common / len(have) >= 0.5)


def hashed_terms(text: str) -> set[str]:
    return {_hash_term(t) for t in content_terms(text)}


def blocked(store: Store, candidate: Candidate, chat_started: str) -> bool:
    """True when a tombstone newer than the chat's start covers the candidate."""
    have = hashed_terms(f"{candidate.subject} {candidate.attribute} {candidate.value}")
    for stone in store.tombstones():
        need = set(stone.pattern.split())
        if need and covers(need, have) and chat_started < stone.created:
            return True
    return False


def item_text(subject: str, attribute: str, value: str) -> str:
    subj = "" if canonical_subject(subject) == "user" else subject
    return f"{subj} {attribute} {value}".strip()


def _vector(embedder: Embedder, text: str) -> bytes:
    return bytes(embedder.embed([text])[0].tobytes())


def file_item(
    store: Store,
    embedder: Embedder,
    c: Candidate,
    *,
    chat_id: str | None,
    now: datetime,
    source: str = "user",
    supersede: bool = True,
) -> str | None:
    """Insert, supersede or reinforce; returns the id holding the candidate's value.
    `supersede=False` leaves older values current (only the broken control does that)."""
    key = item_key(c.kind, c.subject, c.attribute, c.scope)
    existing = store.current_by_key(c.kind, key)
    stamp = iso(now)
    assert stamp is not None
    if c.kind == "reminder":
        return _file_reminder(
            store, embedder=embedder, c=c, key=key, existing=existing, chat_id=chat_id,
            stamp=stamp, supersede=supersede,
        )  # fmt: skip
    value_key = norm_key(c.value)
    for item in existing:
        if norm_key(item.value or "") == value_key:
            store.set(
                item.id,
                mentions=item.mentions + 1,
                last_seen=stamp,
                confidence=max(item.confidence, c.confidence),
            )
            return item.id
    valid_from = iso(c.since) if c.since else stamp
    new_id = _insert(
        store, embedder=embedder, c=c, key=key, chat_id=chat_id, stamp=stamp,
        valid_from=valid_from, source=source,
    )  # fmt: skip
    for item in existing if supersede else []:
        # The old value stays, as history, until the new one became true.
        until = max(valid_from or stamp, item.valid_from)
        store.set(item.id, superseded_by=new_id, superseded_at=until)
    return new_id


def _insert(
    store: Store,
    *,
    embedder: Embedder,
    c: Candidate,
    key: str,
    chat_id: str | None,
    stamp: str,
    valid_from: str | None,
    source: str,
    status: str | None = None,
) -> str:
    return store.insert(
        kind=c.kind,
        subject="user" if canonical_subject(c.subject) == "user" else c.subject.strip(),
        attribute=c.attribute,
        value=c.value,
        skey=key,
        source=source,
        chat_id=chat_id,
        created=stamp,
        valid_from=valid_from or stamp,
        last_seen=stamp,
        mentions=1,
        confidence=c.confidence,
        embedding=_vector(embedder, item_text(c.subject, c.attribute, c.value)),
        scope=c.scope,
        due=iso(c.due),
        window_s=int(c.window.total_seconds()) if c.window else None,
        status=status,
    )


def _file_reminder(
    store: Store,
    *,
    embedder: Embedder,
    c: Candidate,
    key: str,
    existing: list[Item],
    chat_id: str | None,
    stamp: str,
    supersede: bool,
) -> str | None:
    active = [i for i in existing if i.status in ("scheduled", "rescheduled")]
    if c.status in ("cancelled", "done"):
        for item in active:
            store.set(item.id, status=c.status, last_seen=stamp)
        return active[-1].id if active else None
    if c.due is None:
        # Mentioned in passing: nothing to schedule, nothing changes.
        for item in existing:
            store.set(item.id, mentions=item.mentions + 1, last_seen=stamp)
        return existing[-1].id if existing else None
    due = iso(c.due)
    for item in active:
        if item.due == due:
            store.set(item.id, mentions=item.mentions + 1, last_seen=stamp)
            return item.id
    status = "rescheduled" if active else "scheduled"
    new_id = _insert(
        store, embedder=embedder, c=c, key=key, chat_id=chat_id, stamp=stamp,
        valid_from=stamp, source="user", status=status,
    )  # fmt: skip
    for item in existing if supersede else []:
        store.set(item.id, superseded_by=new_id, superseded_at=stamp)
    return new_id
