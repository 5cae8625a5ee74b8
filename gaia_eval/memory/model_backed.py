"""The `full` suite's model parts: a model extracts and consolidates (the system's
extractor), answers each probe's request with what memory showed, and, with `--judge`,
grades the answer.

A reply that does not parse is the model's failure, counted (`extract_failures`) and
extracting nothing: the model is part of what `full` measures. An unreachable backend is an
infrastructure error (the scenario is unmeasured). A judge reply that does not parse is an
error of the scenario, never a score.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, get_args

from gaia_eval.llm.errors import JudgeReplyError
from gaia_eval.llm.spec import ModelSpec
from gaia_eval.systems.memory.protocol import (
    Candidate,
    ConsolidationRequest,
    ItemKind,
    ReminderStatus,
    Shown,
    Source,
    Turn,
)

_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_MAX_TOOL_CHARS = 1500

EXTRACT_SYSTEM = """You maintain an assistant's long-term memory of one user.
From the chat turn you are given, list what is worth remembering about the user:
facts, preferences, lessons (how to work in a repository: commands, quirks) and reminders
(appointments with a due time). Copy names, places, dates and commands from the turn itself.
Only what the user said about themselves counts as theirs; say where each item came from in
"source": user, document, tool, other_person or hypothetical.
Reply with JSON only: {"items": [...]}, each item with kind (fact, preference, lesson or
reminder), subject ("user" or who it is about), attribute, value, source, confidence (0 to
1), due (ISO datetime, reminders only), status (scheduled, rescheduled, cancelled or done,
reminders only) and scope (the repository, lessons only).
Reply {"items": []} when nothing is worth remembering."""

CONSOLIDATE_SYSTEM = """You tidy an assistant's memory. You are given items about one
subject that may say the same thing. If they are duplicates, reply with the one item that
replaces them: {"merge": true, "attribute": "...", "value": "..."}. If they say different
things, reply {"merge": false}. JSON only."""

ANSWER_SYSTEM = """You are a helpful personal assistant. Answer the user's request briefly,
using what your memory shows about them. If memory does not hold what the request asks,
say you don't know rather than guessing. Memory:
"""

JUDGE_SYSTEM = """You grade an assistant's answer. Given the request, the answer and the
facts the answer must use, reply with JSON only: {"pass": true or false, "reason": "..."}.
Pass only when the answer uses every fact correctly and asserts nothing contradicting
them."""


# Short strings: a small model that rambles inside a value still closes its JSON in budget.
_TEXT: dict[str, Any] = {"type": "string", "maxLength": 60}
_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "kind": {"enum": list(get_args(ItemKind))},
        "subject": _TEXT,
        "attribute": _TEXT,
        "value": _TEXT,
        "source": {"enum": list(get_args(Source))},
        "confidence": {"type": "number"},
        "due": {"type": ["string", "null"], "maxLength": 25},
        "status": {"enum": [*get_args(ReminderStatus), None]},
        "scope": {"type": ["string", "null"], "maxLength": 40},
    },
    "required": ["kind", "subject", "attribute", "value", "source"],
}
EXTRACT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"items": {"type": "array", "items": _ITEM_SCHEMA, "maxItems": 4}},
    "required": ["items"],
}
CONSOLIDATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "merge": {"type": "boolean"},
        "attribute": _TEXT,
        "value": _TEXT,
    },
    "required": ["merge"],
}
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"pass": {"type": "boolean"}, "reason": {"type": "string", "maxLength": 200}},
    "required": ["pass", "reason"],
}
# Reply budgets: enough for a few items or a short answer, so a small model that rambles
# costs seconds, not minutes.
EXTRACT_MAX_TOKENS = 400
SHORT_MAX_TOKENS = 160


def _complete(
    spec: ModelSpec,
    system: str,
    prompt: str,
    *,
    schema: dict[str, Any] | None = None,
    max_tokens: int = SHORT_MAX_TOKENS,
) -> tuple[str, int, int]:
    from gaia_eval.llm.complete import complete

    out = complete(spec, system, prompt, timeout_s=120.0, max_tokens=max_tokens, json_schema=schema)
    return out.text, out.input_tokens, out.output_tokens


def parse_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (models wrap JSON in prose or fences)."""
    m = _OBJECT.search(text)
    if not m:
        return None
    try:
        data = json.loads(m.group(0))
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


def candidates_from(data: dict[str, Any], now: datetime) -> list[Candidate]:
    """Candidates from a reply's `items`; malformed items are skipped."""
    out = []
    items = data.get("items")
    for raw in items if isinstance(items, list) else []:
        if not isinstance(raw, dict):
            continue
        attribute, value = raw.get("attribute"), raw.get("value")
        if not isinstance(attribute, str) or not isinstance(value, str | int | float):
            continue
        kind: ItemKind = raw["kind"] if raw.get("kind") in get_args(ItemKind) else "fact"
        source: Source = raw["source"] if raw.get("source") in get_args(Source) else "user"
        status: ReminderStatus | None = (
            raw["status"] if raw.get("status") in get_args(ReminderStatus) else None
        )
        try:
            confidence = min(1.0, max(0.0, float(raw.get("confidence", 0.8))))
        except (TypeError, ValueError):
            confidence = 0.8
        due = _time(raw.get("due"))
        if due is not None and due.tzinfo is None:
            due = due.replace(tzinfo=now.tzinfo)
        out.append(
            Candidate(
                kind=kind,
                subject=str(raw.get("subject") or "user"),
                attribute=attribute,
                value=str(value),
                source=source,
                confidence=confidence,
                due=due,
                status=status,
                scope=raw.get("scope") if isinstance(raw.get("scope"), str) else None,
            )
        )
    return out


class ModelExtractor:
    """Extraction and consolidation by a model spec (`full`)."""

    def __init__(self, spec: ModelSpec) -> None:
        self._spec = spec
        self.failures = 0
        self.tokens: dict[str, int] = {"input": 0, "output": 0}

    @property
    def spec(self) -> str:
        return self._spec.text

    def _ask(
        self, system: str, prompt: str, schema: dict[str, Any], max_tokens: int
    ) -> dict[str, Any] | None:
        text, tin, tout = _complete(
            self._spec, system, prompt, schema=schema, max_tokens=max_tokens
        )
        self.tokens["input"] += tin
        self.tokens["output"] += tout
        data = parse_object(text)
        if data is None:
            self.failures += 1
        return data

    def extract(self, turn: Turn) -> list[Candidate]:
        tools = "\n".join(
            f"- {t.tool}({t.args}) -> {'ok' if t.ok else 'FAILED'}: {t.output[:_MAX_TOOL_CHARS]}"
            for t in turn.tool_record
        )
        prompt = (
            f"Now: {turn.now:%Y-%m-%d %H:%M} UTC\nUser: {turn.user_text}\n"
            f"Assistant: {turn.assistant_text}\n" + (f"Tool calls:\n{tools}\n" if tools else "")
        )
        data = self._ask(EXTRACT_SYSTEM, prompt, EXTRACT_SCHEMA, EXTRACT_MAX_TOKENS)
        return [] if data is None else candidates_from(data, turn.now)

    def consolidate(self, request: ConsolidationRequest) -> tuple[str, str] | None:
        listing = "\n".join(f"- {a}: {v}" for a, v in request.items)
        prompt = f"Subject: {request.subject}\n{listing}"
        data = self._ask(CONSOLIDATE_SYSTEM, prompt, CONSOLIDATE_SCHEMA, SHORT_MAX_TOKENS)
        if not data or data.get("merge") is not True:
            return None
        attribute, value = data.get("attribute"), data.get("value")
        if isinstance(attribute, str) and isinstance(value, str) and attribute and value:
            return attribute, value
        return None


class ModelAnswerer:
    """Answers a probe's request with what memory showed."""

    def __init__(self, spec: ModelSpec, tokens: dict[str, int]) -> None:
        self._spec = spec
        self.tokens = tokens

    def __call__(self, shown: Shown, request: str) -> str:
        system = ANSWER_SYSTEM + (shown.system_section or "(nothing)")
        prompt = f"{shown.turn_context}\n\nRequest: {request}".strip()
        text, tin, tout = _complete(self._spec, system, prompt)
        self.tokens["input"] += tin
        self.tokens["output"] += tout
        return text.strip()


class ModelJudge:
    """`--judge`: grades an answer against the facts it must use."""

    def __init__(self, spec: ModelSpec) -> None:
        self._spec = spec

    def __call__(self, request: str, answer: str, facts: list[str]) -> tuple[bool, str]:
        prompt = (
            f"Request: {request}\nAnswer: {answer}\nFacts the answer must use: {'; '.join(facts)}"
        )
        text, _, _ = _complete(self._spec, JUDGE_SYSTEM, prompt, schema=JUDGE_SCHEMA)
        data = parse_object(text)
        if data is None or not isinstance(data.get("pass"), bool):
            msg = f"the judge {self._spec.text} replied without a pass/fail verdict: {text[:200]!r}"
            raise JudgeReplyError(msg)
        return bool(data["pass"]), str(data.get("reason", ""))[:300]
