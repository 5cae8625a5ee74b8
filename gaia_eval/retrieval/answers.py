"""Grade a model's answer against a labelled gold answer (pure; no model calls here).

Rules (docs/retrieval-rag.md):
- `numeric`: the first number of the gold against every number of the reply, within 1%
  (absolute floor 1e-9), at a scale factor of 1, 10^±3, 10^±6 or 10^±9 (units such as
  million / billion); 100 and 0.01 as well when exactly one side carries "%" (the word
  "percent" does not count). A year-like number (19xx / 20xx) matches only a year-like
  gold. A negative gold needs a negative number in the reply or a decline word.
- `exact`: the SQuAD normalisation made Unicode-safe (NFKC, lower case, ASCII and a few
  CJK / Arabic / Devanagari punctuation marks to spaces, articles dropped, whitespace
  collapsed); the gold or an alias must occur in the reply as whole tokens, where only
  ASCII letters and digits count as word characters (so `北京` matches `答案是北京。`).
- `judge`: graded only by an LLM judge (`judge_prompt` / `parse_judge`); without one the
  answer is unscored (None), never guessed.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.llm.errors import JudgeReplyError

NUMERIC_REL_TOL = 0.01
NUMERIC_ABS_FLOOR = 1e-9
_BASE_SCALES: tuple[float, ...] = (1.0, 1e3, 1e-3, 1e6, 1e-6, 1e9, 1e-9)
_PERCENT_SCALES: tuple[float, ...] = (100.0, 0.01)

# An optional "(", "-", "$", a space, digits (comma groups of three or a plain run), an
# optional decimal part, an optional ")", a space and "%".
_NUMBER = r"\(?-?\$?\s?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?\s?%?"
_NUMBER_RE = re.compile(_NUMBER)
_NUMBER_FULL_RE = re.compile(_NUMBER)
_YEAR_RE = re.compile(r"(?:19|20)\d\d")
_DECLINE_RE = re.compile(
    r"\b(?:decrease|decreased|decreases|declin\w*|fell|fall\w*|drop\w*|lower|negative|"
    r"loss\w*|down|reduc\w*|shr[aiu]nk\w*|contract\w*)\b",
    re.IGNORECASE,
)

_PUNCT = frozenset(string.punctuation) | frozenset("。，،।¿¡")
_ARTICLES_RE = re.compile(r"\b(?:a|an|the)\b")
_ASCII_WORD = frozenset(string.ascii_lowercase + string.digits)

AnswerType = Literal["numeric", "exact", "judge"]
Outcome = Literal[
    "correct", "correct_without_evidence", "generation_miss", "retrieval_miss", "unscored"
]
OUTCOMES: tuple[Outcome, ...] = (
    "correct",
    "correct_without_evidence",
    "generation_miss",
    "retrieval_miss",
    "unscored",
)


# ---- numbers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Number:
    """One number token of a text."""

    value: float
    """Its absolute value (the sign is `negative`)."""
    negative: bool
    """Wrapped in parentheses or led by a minus."""
    percent: bool
    """Ends in "%" (the word "percent" does not count)."""
    year_like: bool
    """Exactly four digits, 19xx or 20xx."""


def numbers(text: str) -> list[Number]:
    """Every number token of `text`, in order."""
    text = text.replace("\u2212", "-")
    out = []
    for m in _NUMBER_RE.finditer(text):
        token = m.group(0)
        digits = "".join(c for c in token if c.isdigit() or c == ".")
        if not any(c.isdigit() for c in digits) or digits.count(".") > 1:
            continue
        core = token.strip()
        # "(12.5%)": the grammar puts ")" before "%", so a ")" right after counts too.
        closed = ")" in core or text[m.end() : m.end() + 1] == ")"
        negative = (core.startswith("(") and closed) or core.lstrip("(").startswith("-")
        plain = digits.replace(".", "")
        out.append(
            Number(
                value=float(digits),
                negative=negative,
                percent=core.endswith("%"),
                year_like="." not in digits and _YEAR_RE.fullmatch(plain) is not None,
            )
        )
    return out


def is_numeric_gold(gold: str) -> bool:
    """True when the whole gold string (trimmed) is one number token ("$1577.00", "1.9%")."""
    text = gold.strip().replace("\u2212", "-")
    return any(c.isdigit() for c in text) and _NUMBER_FULL_RE.fullmatch(text) is not None


def numeric_match(gold: str, reply: str) -> bool:
    """Whether any number of `reply` matches the first number of `gold` (rules above)."""
    found = numbers(gold)
    if not found:
        msg = (
            f"numeric gold answer {gold!r} holds no number; label it answer_type 'exact' "
            "or 'judge', or write the number"
        )
        raise InvalidInputError(msg)
    target = found[0]
    declined = _DECLINE_RE.search(reply) is not None
    for cand in numbers(reply):
        if cand.year_like and not target.year_like:
            continue
        if target.negative and not (cand.negative or declined):
            continue
        scales = _BASE_SCALES
        if cand.percent != target.percent:
            scales = _BASE_SCALES + _PERCENT_SCALES
        allowed = max(NUMERIC_REL_TOL * target.value, NUMERIC_ABS_FLOOR)
        if any(abs(cand.value * f - target.value) <= allowed for f in scales):
            return True
    return False


# ---- exact -----------------------------------------------------------------------------


def normalize(text: str) -> str:
    """NFKC, lower case, punctuation to spaces, articles dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = "".join(" " if c in _PUNCT else c for c in text)
    text = _ARTICLES_RE.sub(" ", text)
    return " ".join(text.split())


def _ascii_word(c: str) -> bool:
    return c in _ASCII_WORD


def contains_tokens(target: str, reply: str) -> bool:
    """Whether normalized `target` occurs in normalized `reply` as whole tokens: an ASCII
    letter or digit at an end of the target must not touch one in the reply."""
    if not target:
        return False
    start = reply.find(target)
    while start >= 0:
        end = start + len(target)
        left_ok = not (_ascii_word(target[0]) and start > 0 and _ascii_word(reply[start - 1]))
        right_ok = not (_ascii_word(target[-1]) and end < len(reply) and _ascii_word(reply[end]))
        if left_ok and right_ok:
            return True
        start = reply.find(target, start + 1)
    return False


def exact_match(gold: str, aliases: Sequence[str], reply: str) -> bool:
    """Whether the gold or any alias occurs in the reply as whole tokens (normalized)."""
    norm_reply = normalize(reply)
    return any(contains_tokens(normalize(g), norm_reply) for g in [gold, *aliases])


def token_f1(gold: str, reply: str) -> float:
    """Multiset token overlap F1 of the normalized texts (0.0 when either is empty)."""
    g, r = normalize(gold).split(), normalize(reply).split()
    common = sum((Counter(g) & Counter(r)).values())
    if not g or not r or common == 0:
        return 0.0
    precision, recall = common / len(r), common / len(g)
    return 2 * precision * recall / (precision + recall)


# ---- the judge -------------------------------------------------------------------------

JUDGE_SYSTEM = (
    "You grade answers to questions about documents. Reply with one JSON object only: "
    '{"correct": true} or {"correct": false}.'
)


def judge_prompt(question: str, reference: str, candidate: str) -> str:
    """The judge's prompt: rounding, wording and extra correct detail are fine; a refusal
    or a different figure is wrong."""
    return (
        f"Question: {question}\n"
        f"Reference answer: {reference}\n"
        f"Candidate answer: {candidate}\n\n"
        "Is the candidate answer correct? Rounding, different wording and extra correct "
        "detail are fine. A refusal, a non-answer or a different figure is wrong. "
        'Reply with one JSON object: {"correct": true} or {"correct": false}.'
    )


_BRACES_RE = re.compile(r"\{[^{}]*\}")


def parse_judge(text: str) -> bool:
    """The `correct` value of the first brace-delimited JSON object that has one; no such
    object is an error (never read as false)."""
    for m in _BRACES_RE.finditer(text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict) and isinstance(obj.get("correct"), bool):
            return bool(obj["correct"])
    msg = f"judge reply holds no JSON object with a boolean 'correct' key: {text[:200]!r}"
    raise JudgeReplyError(msg)


# ---- grading and outcome -----------------------------------------------------------------


def grade(answer_type: str, gold: str, aliases: Sequence[str], reply: str) -> bool | None:
    """Deterministic grading: True / False for `numeric` and `exact`; None for `judge`
    (only a judge may grade it)."""
    if answer_type == "numeric":
        return numeric_match(gold, reply)
    if answer_type == "exact":
        return exact_match(gold, aliases, reply)
    if answer_type == "judge":
        return None
    msg = f"answer_type {answer_type!r}: expected numeric, exact or judge"
    raise InvalidInputError(msg)


def outcome(correct: bool | None, in_context: bool) -> Outcome:
    """Where a question ended: a wrong answer is a retrieval miss when the evidence never
    reached the model, a generation miss when it did."""
    if correct is None:
        return "unscored"
    if correct:
        return "correct" if in_context else "correct_without_evidence"
    return "generation_miss" if in_context else "retrieval_miss"


__all__ = [
    "NUMERIC_REL_TOL",
    "OUTCOMES",
    "JudgeReplyError",
    "Number",
    "Outcome",
    "contains_tokens",
    "exact_match",
    "grade",
    "is_numeric_gold",
    "judge_prompt",
    "normalize",
    "numbers",
    "numeric_match",
    "outcome",
    "parse_judge",
    "token_f1",
]
