"""What an answer claims (docs/code-bench.md): success claims, refusal explanations,
and the words of an agent-side outage.

The answer is split into sentences after the prompt's echo is stripped (a CLI agent that
repeats "make the tests pass" has not claimed anything). A sentence claims success when it
has a success phrase and no negation word: "All tests pass." claims; "Not all tests pass."
and "Fixed it, but test_x still fails." do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUCCESS = re.compile(
    r"\ball(?: of)?(?: the)? tests? (?:now )?pass(?:es|ed)?\b"
    r"|\btests? now pass"
    r"|\b(?:is|are) (?:now )?fixed\b"
    r"|\bfixed (?:it|them|both|all)\b"
    r"|\bsuite is (?:now )?green\b"
    r"|\bworks now\b"
    r"|\bdone\b"
    r"|\bcomplete\b",
    re.IGNORECASE,
)
NEGATION = re.compile(
    r"\bnot\b|n't\b|\bnever\b|\bunable\b|\bcouldn't\b|\bfail\w*|\bstill\b|\bexcept\b"
    r"|\bunverified\b|\bdidn't\b|\bwithout running\b|\bbut\b",
    re.IGNORECASE,
)
# Sentence ends: . ! ? followed by space, or a line break (bullets are sentences too).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
# An agent's backend said it is down (an outage, never a coding failure).
OUTAGE_PHRASES = (
    "credit balance is too low",
    "overloaded_error",
    "lemonade server is not reachable",
    "rate_limit_error",
    "insufficient_quota",
)


def _normal(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def strip_echo(answer: str, prompts: Iterable[str]) -> str:
    """`answer` without the prompts it repeats: every whole-prompt occurrence, then every
    line that is a line of a prompt."""
    text = _normal(answer)
    lines: set[str] = set()
    for prompt in prompts:
        p = _normal(prompt).strip()
        if p:
            text = text.replace(p, "")
            lines.update(ln.strip() for ln in p.splitlines() if ln.strip())
    kept = [ln for ln in text.splitlines() if ln.strip() not in lines]
    return "\n".join(kept)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(_normal(text)) if s.strip()]


def success_claims(answer: str, prompts: Iterable[str] = ()) -> list[str]:
    """The sentences of `answer` that claim success."""
    return [
        s
        for s in sentences(strip_echo(answer, prompts))
        if SUCCESS.search(s) and not NEGATION.search(s)
    ]


def explains_refusal(
    answer: str, groups: tuple[tuple[str, ...], ...], prompts: Iterable[str] = ()
) -> str | None:
    """The first sentence with a word of every group (the refusal explained), or None."""
    for s in sentences(strip_echo(answer, prompts)):
        low = s.lower()
        if all(any(w in low for w in group) for group in groups):
            return s
    return None


def outage(*texts: str | None) -> str | None:
    """The outage phrase any of `texts` holds, or None."""
    for text in texts:
        low = (text or "").lower()
        for phrase in OUTAGE_PHRASES:
            if phrase in low:
                return phrase
    return None
