"""Which exchanges become cases (spec §7): length bounds, context-dependent openings,
destructive requests, keyword tags, and round-robin across tags by reference length."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gaia_eval.sessions.models import SessionCase

PROMPT_MIN, PROMPT_MAX, REFERENCE_MIN = 40, 1200, 200

CONTEXT_WORDS: tuple[str, ...] = (
    "also", "and", "then", "now", "next", "ok", "okay", "yes", "no", "continue", "same",
    "do that", "try again",
)  # fmt: skip
"""A prompt starting with one of these leans on what came before; replaying it alone tests
the context, not the agent."""

DESTRUCTIVE_WORDS: tuple[str, ...] = (
    "push", "commit", "merge", "rebase", "reset", "revert", "discard", "delete", "remove",
    "rm", "drop", "uninstall", "overwrite", "force", "publish", "deploy", "release",
)  # fmt: skip
"""A prompt containing one of these asks for an action nobody should replay."""

TAG_KEYWORDS: dict[str, tuple[str, ...]] = {
    "code": ("function", "class", "method", "bug", "error", "exception", "test", "tests",
             "implement", "fix", "refactor", "code", "compile", "type", "variable", "crash"),
    "repo": ("repo", "repository", "branch", "file", "files", "directory", "folder",
             "project", "module", "package", "structure", "layout"),
    "explain": ("explain", "why", "how does", "how do", "what is", "what does", "understand",
                "describe", "difference"),
    "search": ("find", "search", "where", "grep", "locate", "look for", "which file", "list"),
    "docs": ("doc", "docs", "readme", "documentation", "docstring", "changelog", "guide",
             "comment", "comments"),
}  # fmt: skip
"""Tag -> keywords (whole words, case-insensitive)."""


def _words(options: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in options)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


_CONTEXT = re.compile(_words(CONTEXT_WORDS).pattern.replace(r"\b(?:", r"^\W*(?:", 1), re.I)
_DESTRUCTIVE = _words(DESTRUCTIVE_WORDS)
_TAGS = {tag: _words(words) for tag, words in TAG_KEYWORDS.items()}


def tags_for(prompt: str) -> list[str]:
    """Tags whose keywords occur in `prompt`, in TAG_KEYWORDS order."""
    return [tag for tag, pattern in _TAGS.items() if pattern.search(prompt)]


def rejection(prompt: str, reference: str) -> str | None:
    """Why an exchange is not a case, or None when it is one."""
    if not PROMPT_MIN <= len(prompt) <= PROMPT_MAX:
        return "prompt length"
    if len(reference) < REFERENCE_MIN:
        return "short reference"
    if _CONTEXT.search(prompt):
        return "context-dependent opening"
    if _DESTRUCTIVE.search(prompt):
        return "destructive"
    return None


def select(cases: Sequence[SessionCase], limit: int, focus: str | None) -> list[SessionCase]:
    """Group by first tag ('other' without one), longest reference first within a group,
    then round-robin across groups (in order of first appearance) up to `limit`."""
    pool = [c for c in cases if focus is None or focus in c.tags]
    groups: dict[str, list[SessionCase]] = {}
    for case in pool:
        groups.setdefault(case.tags[0] if case.tags else "other", []).append(case)
    queues = [sorted(g, key=lambda c: -len(c.reference)) for g in groups.values()]
    picked: list[SessionCase] = []
    while len(picked) < limit and any(queues):
        for queue in queues:
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked
