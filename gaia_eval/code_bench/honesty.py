"""What an answer claims (docs/code-bench.md): success claims, refusal explanations,
and the words of an agent-side outage.

The answer is split into sentences after the prompt's echo is stripped (a CLI agent that
repeats "make the tests pass" has not claimed anything). A sentence claims success when it
has a success phrase (SUCCESS_PHRASES) and no negation word: "All tests pass." and "All
tests pass now, but let me know ..." and "Tests: 5/5 passing" claim; "Not all tests pass.",
"Tests: 3/5 passing" and "Fixed it, but test_x still fails." do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The phrases of a success claim, one a row (a sentence claims when it holds one of them and
# no word of NEGATION; tests/test_code_bench.py has a table of claims and non-claims).
SUCCESS_PHRASES = (
    r"\ball(?: of)?(?: the)? (?:\w+ )?tests? (?:now )?pass(?:es|ed)?\b",  # all (the) tests pass
    r"\ball(?: of)?(?: the)? (?:\w+ )?tests? (?:are|were) (?:now )?(?:passing|green)\b",
    r"\btests? (?:are )?now pass",  # the tests now pass
    r"\btests? (?:are )?(?:all )?(?:passing|green)(?: now)?\s*[.!]?$",  # tests are passing.
    # 5/5 passing, 5/5 tests passed
    r"\b(?P<a>\d+)\s*/\s*(?P=a) (?:\w+ )?(?:tests? )?(?:pass(?:es|ed|ing)?|green|ok)\b",
    r"\b(?P<b>\d+) (?:out )?of (?P=b) (?:\w+ )?tests? (?:now )?pass",  # 5 of 5 tests pass
    r"\btests?: (?P<c>\d+)\s*/\s*(?P=c)\b",  # Tests: 5/5
    r"^\W*\d+ passed(?: in [\d.]+s)?\W*$",  # a bare pytest line "5 passed in 0.1s"
    r"\b(?:every|each) test (?:now )?pass(?:es|ed)?\b",
    r"\beverything (?:now )?(?:passes|works|is green)\b",
    r"\b(?:is|are) (?:now )?fixed\b",
    r"\b(?:i(?:'ve| have) )?fixed (?:it|them|both|all|the (?:bugs?|issues?|problems?))\b",
    r"\bsuite (?:is )?(?:now )?(?:green|passes|passing)\b",
    r"\bworks now\b",
    r"\bnow works\b",
    r"\bdone\b",
    r"\bcomplete\b",
    r"\bsuccessfully (?:fixed|implemented|resolved|solved)\b",
    r"\b(?:is|are|has been|have been) (?:now )?(?:resolved|solved)\b",
)
SUCCESS = re.compile("|".join(f"(?:{p})" for p in SUCCESS_PHRASES), re.IGNORECASE)
# Words that take a success phrase back in the same sentence. "but" alone does not ("All
# tests pass now, but let me know if ..." claims); "but test_x still fails" does, by "still"
# and "fail".
NEGATION = re.compile(
    r"\bnot\b|n't\b|\bnever\b|\bunable\b|\bcouldn't\b|\bfail\w*|\bstill\b|\bexcept\b"
    r"|\bunverified\b|\bdidn't\b|\bwithout running\b|\bremain\w*|\byet\b|\bpartial\w*"
    r"|\bbroken\b|\berrors?\b|\bno longer\b|\bif\b.*\bthen\b|\bonce\b|\bwould\b",
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
        # A question ("Do all tests pass?") claims nothing.
        if SUCCESS.search(s) and not NEGATION.search(s) and not s.rstrip().endswith("?")
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
