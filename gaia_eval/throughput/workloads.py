"""Workloads: what the benchmark asks the model. `triage` (the committed email corpus under a
JSON schema), `chat` (synthetic prompts of declared lengths) or a JSONL file of
{messages, max_tokens} rows."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError

TRIAGE_FILE = "triage_emails.jsonl"
URGENT_AT = 4
CATEGORIES = ("work", "finance", "travel", "shopping", "newsletter", "social", "security", "health")

TRIAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "urgency": {"type": "integer", "minimum": 1, "maximum": 5},
        "category": {"type": "string", "enum": list(CATEGORIES)},
        "personal": {"type": "boolean"},
    },
    "required": ["urgency", "category", "personal"],
    "additionalProperties": False,
}

TRIAGE_SYSTEM = (
    "You triage a person's email inbox. For the email given, answer with one JSON object: "
    '"urgency" 1-5 (1 can be ignored, 2 low, 3 normal, 4 needs action today, 5 needs action '
    f'now), "category" (one of {", ".join(CATEGORIES)}), and "personal" (true when it is '
    "about the reader's own life rather than their job or a company's marketing)."
)

_VOCAB = (
    "river", "stone", "lantern", "orbit", "maple", "signal", "harbor", "ember", "cobalt",
    "meadow", "quartz", "willow", "summit", "canyon", "velvet", "prism", "falcon", "thunder",
    "glacier", "saffron", "copper", "delta", "ridge", "nova",
)  # fmt: skip


@dataclass(frozen=True)
class WorkItem:
    """One request of a workload."""

    id: str
    messages: list[dict[str, Any]]
    max_tokens: int
    response_format: dict[str, Any] | None = None
    labels: dict[str, Any] | None = None
    """Triage labels of the email (the scorer reads them)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Further request fields (a JSONL row's own, e.g. temperature)."""


@dataclass(frozen=True)
class Workload:
    """A named, digested list of requests."""

    name: str
    items: list[WorkItem]
    digest: str
    """sha256 over the requests, so runs of different prompts never compare."""
    triage: bool = False


def _digest(items: list[WorkItem]) -> str:
    blob = json.dumps(
        [[i.id, i.messages, i.max_tokens, i.response_format, i.labels, i.extra] for i in items],
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


def triage_workload(max_tokens: int | None = None) -> Workload:
    """The committed corpus, each email one classification request under TRIAGE_SCHEMA."""
    text = resources.files("gaia_eval.throughput").joinpath("data", TRIAGE_FILE).read_text("utf-8")
    items = []
    for row in (json.loads(line) for line in text.splitlines() if line.strip()):
        email = f"From: {row['from']}\nSubject: {row['subject']}\n\n{row['body']}"
        items.append(
            WorkItem(
                id=row["id"],
                messages=[
                    {"role": "system", "content": TRIAGE_SYSTEM},
                    {"role": "user", "content": email},
                ],
                max_tokens=max_tokens or 64,
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "triage", "strict": True, "schema": TRIAGE_SCHEMA},
                },
                labels=row["labels"],
            )
        )
    return Workload("triage", items, _digest(items), triage=True)


def chat_workload(
    count: int = 32,
    input_words: int = 128,
    max_tokens: int = 128,
    seed: int = 20260930,
    *,
    ignore_eos: bool = False,
) -> Workload:
    """Synthetic prompts of `input_words` words (a unique opening each, so a prefix cache
    cannot serve one prompt from another) asking for `max_tokens` tokens of story;
    `ignore_eos` asks the server (vLLM, llama.cpp) to generate exactly that many."""
    rng = random.Random(seed)
    items = []
    for i in range(count):
        words = " ".join(rng.choice(_VOCAB) for _ in range(max(1, input_words - 12)))
        prompt = f"Request {i}. Write a long story using these words: {words}"
        items.append(
            WorkItem(
                id=f"chat-{i:04d}",
                messages=[{"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                extra={"ignore_eos": True} if ignore_eos else {},
            )
        )
    name = f"chat(in={input_words}w,out={max_tokens}{',ignore_eos' if ignore_eos else ''})"
    return Workload(name, items, _digest(items))


def jsonl_workload(path: Path, max_tokens: int | None = None) -> Workload:
    """Rows {messages, max_tokens, ...}; a bad row is an error naming the line and field."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as err:
        msg = f"--workload {path}: cannot read ({err.strerror or err})"
        raise InvalidInputError(msg) from err
    items = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"--workload {path} line {n}"
        try:
            row = json.loads(line)
        except ValueError as err:
            msg = f"{where}: not JSON ({err}); each line is one {{messages, max_tokens}} object"
            raise InvalidInputError(msg) from err
        if not isinstance(row, dict):
            msg = f"{where}: expected an object with 'messages' and 'max_tokens'"
            raise InvalidInputError(msg)
        messages = row.get("messages")
        if (
            not isinstance(messages, list)
            or not messages
            or not all(isinstance(m, dict) and "role" in m and "content" in m for m in messages)
        ):
            msg = f"{where}: field 'messages' must be a non-empty list of {{role, content}}"
            raise InvalidInputError(msg)
        mt = row.get("max_tokens", max_tokens)
        if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
            msg = f"{where}: field 'max_tokens' must be an integer >= 1 (or pass --max-tokens)"
            raise InvalidInputError(msg)
        extra = {k: v for k, v in row.items() if k not in ("messages", "max_tokens", "id")}
        items.append(
            WorkItem(
                id=str(row.get("id", f"row-{n}")),
                messages=messages,
                max_tokens=max_tokens or mt,
                extra=extra,
            )
        )
    if not items:
        msg = f"--workload {path}: no rows; add lines of {{messages, max_tokens}}"
        raise InvalidInputError(msg)
    return Workload(f"file:{Path(path).name}", items, _digest(items))


def _vary(messages: list[dict[str, Any]], nonce: str | None) -> list[dict[str, Any]]:
    """The messages with the run's nonce in front of the first one's text: the seeded
    prompts are the same every run, and a server's prompt cache would otherwise answer a
    second run's prefill (TTFT 55 ms instead of 1,329 ms) with no sign of it. In front,
    because a prefix cache matches from the start."""
    if not nonce or not messages or not isinstance(messages[0].get("content"), str):
        return messages
    first = dict(messages[0])
    first["content"] = f"(run {nonce}) {first['content']}"
    return [first, *messages[1:]]


def request_body(item: WorkItem, api: str, model: str, nonce: str | None = None) -> dict[str, Any]:
    """The streaming request body for `api` (openai | anthropic); `nonce` varies the
    prompt per run (see _vary)."""
    messages = _vary(list(item.messages), nonce)
    if api == "anthropic":
        system = "\n".join(str(m["content"]) for m in messages if m["role"] == "system")
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": item.max_tokens,
            "messages": [m for m in messages if m["role"] != "system"],
            "stream": True,
        }
        if system:
            body["system"] = system
        return body | item.extra
    body = {
        "model": model,
        "messages": messages,
        "max_tokens": item.max_tokens,
        "stream": True,
        # Usage in the last chunk: the server's own token count, not ours.
        "stream_options": {"include_usage": True},
        "temperature": 0,
    }
    if item.response_format is not None:
        body["response_format"] = item.response_format
    return body | item.extra
