"""The deterministic checks of a probe: against what was shown, what the store held, and
(in `full`) the model's answer. Every check is one result with a stable id.

Matching is on normalised words (case, punctuation and spacing ignored), whole words only,
so "Portland" is not found in "Portlandia". An ISO date label also matches the common ways a
system renders it ("2025-10-14", "Oct 14", "14 October", "10/14").

A store check matches rows by the fields it gives: `subject` and `attribute` by their
words (all of the label's words are in the row's, or the other way round), `value` as a
phrase inside the row's value, `source` (`user` unless `any`), and `state` at the probe's
time (`current` unless `superseded`, `forgotten` or `any`), computed from `valid_from`,
`superseded_at` and `forgotten_at` where the system gives them.
"""

from __future__ import annotations

import re
from datetime import datetime

from gaia_eval.memory.scenario import Label, StoreCheckSpec, label_alternatives
from gaia_eval.systems.memory.protocol import Row
from gaia_eval.systems.memory.text import norm_key, term_set

_ISO_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_SELF = {"user", "me", "i", "myself", "the user"}


def _date_variants(label: str) -> list[str]:
    m = _ISO_DATE.match(label.strip())
    if not m:
        return [label]
    d = datetime(int(m[1]), int(m[2]), int(m[3]))
    return [
        label,
        f"{d:%b} {d.day}", f"{d:%B} {d.day}", f"{d.day} {d:%b}", f"{d.day} {d:%B}",
        f"{d.month}/{d.day}", f"{d.day}/{d.month}",
    ]  # fmt: skip


def found(label: Label, text: str) -> bool:
    """True when any alternative of the label occurs in `text` as whole words."""
    hay = f" {norm_key(text)} "
    for alt in label_alternatives(label):
        for variant in _date_variants(alt):
            key = norm_key(variant)
            if key and f" {key} " in hay:
                return True
    return False


def state_at(row: Row, at: datetime) -> str:
    """The row's state at the probe's time, from its times where the system gives them."""
    if row.state == "tombstone":
        return "tombstone"
    if row.state == "forgotten" or (row.forgotten_at is not None and row.forgotten_at <= at):
        return "forgotten"
    if row.valid_from is not None and row.valid_from > at:
        return "future"
    replaced = row.superseded_by is not None or row.state == "superseded"
    if replaced and (row.superseded_at is None or row.superseded_at <= at):
        return "superseded"
    return "current"


def _words_match(label: str, have: str) -> bool:
    a, b = term_set(label), term_set(have)
    return bool(a) and bool(b) and (a <= b or b <= a)


def _subject_match(label: str, have: str) -> bool:
    la, ha = norm_key(label), norm_key(have)
    if la in _SELF or ha in _SELF:
        return (la in _SELF) == (ha in _SELF)
    return _words_match(label, have)


def row_matches(check: StoreCheckSpec, row: Row, at: datetime) -> bool:
    if row.state == "tombstone":
        return False
    if check.kind is not None and row.kind != check.kind:
        return False
    if check.source not in ("any", row.source):
        return False
    if check.state != "any" and state_at(row, at) != check.state:
        return False
    if check.status is not None and row.status != check.status:
        return False
    if check.subject is not None and not _subject_match(check.subject, row.subject):
        return False
    if check.attribute is not None and not _words_match(check.attribute, row.attribute):
        return False
    return not (check.value is not None and not found(check.value, row.value or ""))


def describe_check(check: StoreCheckSpec) -> str:
    parts = [f"{k}={v}" for k, v in check.model_dump(exclude_none=True).items()]
    return ", ".join(parts)


def describe_row(row: Row, at: datetime) -> str:
    subj = "" if row.subject == "user" else f"{row.subject} · "
    value = row.value if row.value is not None else "(erased)"
    extra = f" due {row.due:%Y-%m-%d %H:%M} {row.status}" if row.due else ""
    return (
        f"{row.id} {row.kind} [{state_at(row, at)}, {row.source}] {subj}{row.attribute}: "
        f"{value}{extra}"
    )


def relevant_rows(check: StoreCheckSpec, rows: list[Row], at: datetime) -> list[str]:
    """Rows that share the check's attribute or value words: what the store held about it."""
    out = []
    for row in rows:
        if row.state == "tombstone":
            continue
        text = f"{row.subject} {row.attribute} {row.value or ''}"
        keys = [k for k in (check.attribute, check.value) if k]
        if any(term_set(k) & term_set(text) for k in keys):
            out.append(describe_row(row, at))
    return out[:12]


# ---- ranks, abstention ---------------------------------------------------------------------

# What an answer that declines says; whole-word phrases on normalised text.
ABSTAIN_PHRASES = (
    "don't know", "do not know", "not sure", "no record", "don't have", "do not have",
    "haven't told", "have not told", "never told", "never mentioned", "not mentioned",
    "no information", "not aware", "can't find", "cannot find", "don't see", "no memory",
)  # fmt: skip


def memory_lines(text: str) -> list[str]:
    """The shown memory lines in order (`- ...`), headings left out: the ranked list."""
    return [line for line in text.splitlines() if line.lstrip().startswith("- ")]


def rank_of(label: Label, text: str) -> int | None:
    """1-based position of the first shown memory line holding the label, else None."""
    for n, line in enumerate(memory_lines(text), 1):
        if found(label, line):
            return n
    return None


def _line_attribute(line: str) -> str:
    """`- reminder: Juniper · surgery: ...` -> `Juniper · surgery`: the part before the value."""
    body = line.lstrip()[2:]
    for prefix in ("reminder:", "lesson"):
        if body.startswith(prefix):
            body = body.split(":", 1)[1] if ":" in body else body
    return body.split(":", 1)[0]


def lines_about(attribute: str, text: str) -> list[str]:
    """Shown memory lines whose attribute holds every word of `attribute`."""
    want = term_set(attribute)
    return [ln for ln in memory_lines(text) if want and want <= term_set(_line_attribute(ln))]


def rows_about(attribute: str, rows: list[Row], at: datetime) -> list[Row]:
    """Rows current at `at`, from any source, whose attribute holds every word of it."""
    want = term_set(attribute)
    return [
        r
        for r in rows
        if r.state != "tombstone"
        and state_at(r, at) == "current"
        and want
        and want <= term_set(r.attribute)
    ]


def abstains(answer: str) -> bool:
    text = answer.replace("\u2019", "'")
    return any(found(p, text) for p in ABSTAIN_PHRASES)
