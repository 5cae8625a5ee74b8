"""Workloads: what the benchmark asks the model. `triage` (the committed email corpus under a
JSON schema), `chat` (synthetic prompts of declared lengths) or a JSONL file of
{messages, max_tokens} rows."""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.throughput.lengths import Lengths

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
    input_len: int | None = None
    """The prompt length drawn for it (chat), in `input_unit`; None when not drawn."""
    input_unit: str | None = None
    """words, or tokens (`--input-tokens`)."""
    turn: int | None = None
    """Multi-turn: the conversation's turn this request sends (1 = its first)."""
    reply: str | None = None
    """ShareGPT: the recorded reply whose length sets max_tokens (recounted in tokens by the
    server's tokenizer at set-up, where it has one)."""


@dataclass(frozen=True)
class Workload:
    """A named, digested list of requests."""

    name: str
    items: list[WorkItem]
    digest: str
    """sha256 over the requests, so runs of different prompts never compare."""
    triage: bool = False
    shared_prefix: bool = False
    """Its prompts share prefixes on purpose (prefix, multiturn): a cache hit is the point."""


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


def _as_lengths(n: int | Lengths) -> Lengths:
    return n if isinstance(n, Lengths) else Lengths("fixed", n)


def chat_prompt(i: int, words: int, rng: random.Random) -> str:
    """The chat workload's prompt `i`: a unique opening, then `words` - 12 story words."""
    body = " ".join(rng.choice(_VOCAB) for _ in range(max(1, words - 12)))
    return f"Request {i}. Write a long story using these words: {body}"


def chat_workload(
    count: int = 32,
    input_words: int | Lengths = 128,
    max_tokens: int | Lengths = 128,
    seed: int = 20260930,
    *,
    ignore_eos: bool = False,
    input_tokens: Lengths | None = None,
) -> Workload:
    """Synthetic prompts of `input_words` words (a unique opening each, so a prefix cache
    cannot serve one prompt from another) asking for `max_tokens` tokens of story, each a
    length or a distribution drawn per request (seeded); `ignore_eos` asks the server
    (vLLM, llama.cpp) to generate exactly that many."""
    # In tokens: drawn as words for now, `fit_tokens` refits them with the tokenizer.
    ins, outs = input_tokens or _as_lengths(input_words), _as_lengths(max_tokens)
    rng = random.Random(seed)
    # Lengths from a stream of their own: a fixed length draws nothing, so the prompts of
    # a fixed-length run stay the ones every earlier run sent.
    lengths = random.Random(seed + 1)
    in_lens, out_lens = ins.draw(count, lengths), outs.draw(count, lengths)
    unit = "tokens" if input_tokens is not None else "words"
    items = []
    for i in range(count):
        items.append(
            WorkItem(
                id=f"chat-{i:04d}",
                messages=[{"role": "user", "content": chat_prompt(i, in_lens[i], rng)}],
                max_tokens=out_lens[i],
                extra={"ignore_eos": True} if ignore_eos else {},
                input_len=in_lens[i] if ins.kind != "fixed" or input_tokens else None,
                input_unit=unit if ins.kind != "fixed" or input_tokens else None,
            )
        )
    eos = ",ignore_eos" if ignore_eos else ""
    name = f"chat(in={ins.label()}{unit[0]},out={outs.label()}{eos})"
    return Workload(name, items, _digest(items))


_SHAREGPT_ROLES = {
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "chatgpt": "assistant",
    "bard": "assistant",
    "assistant": "assistant",
    "system": "system",
}
TOKENS_PER_WORD = 4 / 3
"""A reply's words -> its tokens, where no tokenizer counts it (English BPE, roughly)."""


def _rows(path: Path) -> list[tuple[str, Any]]:
    """(where, row) of a JSONL file, or of a JSON array (ShareGPT's own files are one)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        msg = f"--workload {path}: cannot read ({err.strerror or err})"
        raise InvalidInputError(msg) from err
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as err:
            msg = f"--workload {path}: not a JSON array ({err})"
            raise InvalidInputError(msg) from err
        return [(f"--workload {path} entry {n}", row) for n, row in enumerate(rows, start=1)]
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"--workload {path} line {n}"
        try:
            out.append((where, json.loads(line)))
        except ValueError as err:
            msg = f"{where}: not JSON ({err}); each line is one {{messages, max_tokens}} object"
            raise InvalidInputError(msg) from err
    return out


def _sharegpt(where: str, row: dict[str, Any], max_tokens: int | None) -> WorkItem | None:
    """A ShareGPT row {conversations: [{from, value}, ...]}: its first human turn (with any
    system turn before it) is the prompt; the reply after it sets the answer's length, as
    vLLM's ShareGPT dataset does (words x 4/3 here, or --max-tokens). A row with no reply
    is skipped unless --max-tokens gives the length."""
    turns = row["conversations"]
    if not isinstance(turns, list) or not all(
        isinstance(t, dict)
        and isinstance(t.get("value"), str)
        and str(t.get("from", "")).lower() in _SHAREGPT_ROLES
        for t in turns
    ):
        known = ", ".join(sorted(_SHAREGPT_ROLES))
        msg = f"{where}: field 'conversations' must be a list of {{from ({known}), value}}"
        raise InvalidInputError(msg)
    messages: list[dict[str, Any]] = []
    reply: str | None = None
    for t in turns:
        role = _SHAREGPT_ROLES[str(t["from"]).lower()]
        if role == "assistant":
            if any(m["role"] == "user" for m in messages):
                reply = t["value"]
                break
            continue
        if role == "user" and any(m["role"] == "user" for m in messages):
            break
        messages.append({"role": role, "content": t["value"]})
    if not any(m["role"] == "user" for m in messages):
        return None
    if max_tokens is None and (reply is None or not reply.split()):
        return None
    sized_by_reply = reply is not None and max_tokens is None
    if max_tokens is None:
        if reply is None or not reply.split():
            return None
        max_tokens = max(1, math.ceil(len(reply.split()) * TOKENS_PER_WORD))
    return WorkItem(
        id=str(row.get("id", where.rsplit(" ", 1)[-1])),
        messages=messages,
        max_tokens=max_tokens,
        reply=reply if sized_by_reply else None,
    )


def _story(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(max(1, words)))


def token_prompt(i: int, target: int, count: Callable[[str], int], lead: str = "") -> str:
    """Chat prompt `i` of `target` tokens by `count` (the server's tokenizer): the longest
    run of its seeded story words whose text, after `lead` (the run's nonce, sent in front
    of it), counts no more than `target` tokens; at least one word. Tokens grow with words,
    so a binary search over the word count finds it in a dozen counts."""
    rng = random.Random(f"token-prompt-{i}")
    pool = [rng.choice(_VOCAB) for _ in range(2 * target + 16)]
    opening = f"Request {i}. Write a long story using these words:"

    def text(n: int) -> str:
        return f"{opening} {' '.join(pool[:n])}"

    lo, hi = 1, len(pool)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(lead + text(mid)) <= target:
            lo = mid
        else:
            hi = mid - 1
    return text(lo)


def fit_tokens(workload: Workload, count: Callable[[str], int], lead: str = "") -> Workload:
    """The chat workload with each prompt refit to its drawn length in tokens (items whose
    `input_unit` is tokens), counted by `count` on the text as sent (after `lead`)."""
    items = []
    for n, item in enumerate(workload.items):
        if item.input_unit != "tokens" or item.input_len is None:
            items.append(item)
            continue
        prompt = token_prompt(n, item.input_len, count, lead)
        got = count(lead + prompt)
        items.append(replace(item, messages=[{"role": "user", "content": prompt}], input_len=got))
    return replace(workload, items=items)


def fit_replies(workload: Workload, count: Callable[[str], int]) -> Workload:
    """ShareGPT items' max_tokens recounted as their replies' tokens by `count` (the server's
    tokenizer), as vLLM's ShareGPT dataset counts them, instead of words x 4/3."""
    items = [
        replace(item, max_tokens=max(1, count(item.reply))) if item.reply else item
        for item in workload.items
    ]
    return replace(workload, items=items)


def sized_by_replies(workload: Workload) -> bool:
    return any(i.reply for i in workload.items)


def wants_tokens(workload: Workload) -> bool:
    """True when prompts are to be refit to lengths in tokens (`--input-tokens`)."""
    return any(i.input_unit == "tokens" for i in workload.items)


def prefix_workload(
    count: int = 32,
    prefix_words: int = 512,
    input_words: int | Lengths = 32,
    max_tokens: int | Lengths = 128,
    seed: int = 20260930,
    *,
    ignore_eos: bool = False,
) -> Workload:
    """Prompts sharing one long system prefix of `prefix_words` words, each with a question
    of its own: a server's prefix cache serves the shared part after the first request,
    and TTFT shows it (compare `--prompt-cache on` and `off`)."""
    ins, outs = _as_lengths(input_words), _as_lengths(max_tokens)
    rng = random.Random(seed)
    system = f"You are a storyteller. Keep to these notes: {_story(rng, prefix_words - 8)}"
    lengths = random.Random(seed + 1)
    in_lens, out_lens = ins.draw(count, lengths), outs.draw(count, lengths)
    items = [
        WorkItem(
            id=f"prefix-{i:04d}",
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": chat_prompt(i, in_lens[i], rng)},
            ],
            max_tokens=out_lens[i],
            extra={"ignore_eos": True} if ignore_eos else {},
            input_len=in_lens[i] if ins.kind != "fixed" else None,
            input_unit="words" if ins.kind != "fixed" else None,
        )
        for i in range(count)
    ]
    eos = ",ignore_eos" if ignore_eos else ""
    name = f"prefix(shared={prefix_words}w,in={ins.label()}w,out={outs.label()}{eos})"
    return Workload(name, items, _digest(items), shared_prefix=True)


def multiturn_workload(
    blocks: list[int],
    turns: int = 4,
    input_words: int | Lengths = 32,
    max_tokens: int | Lengths = 64,
    seed: int = 20260930,
    *,
    ignore_eos: bool = False,
) -> Workload:
    """Conversations that grow turn by turn: turn k sends the k - 1 earlier user turns and
    answers, then a new user turn, so each request's prompt starts with the one before.
    The earlier answers are synthetic (of the answer's length in words), so every request
    is prepared before the run and each run sends the same ones.

    `blocks` are the request counts of the warmup and of each level, in run order: each
    block has conversations of its own (no level answers from another's cache), ordered
    turn by turn across them (every conversation's first turn, then every second turn):
    closed loop at a concurrency up to the block's conversation count, a conversation's
    next turn is sent only after its previous one finished."""
    ins, outs = _as_lengths(input_words), _as_lengths(max_tokens)
    rng = random.Random(seed)
    lengths = random.Random(seed + 1)
    items: list[WorkItem] = []
    conv = 0
    for size in blocks:
        if size <= 0:
            continue
        n_conv = -(-size // turns)
        convs: list[list[WorkItem]] = []
        for _ in range(n_conv):
            history: list[dict[str, Any]] = []
            turns_of: list[WorkItem] = []
            in_lens, out_lens = ins.draw(turns, lengths), outs.draw(turns, lengths)
            for k in range(turns):
                history = [
                    *history,
                    {"role": "user", "content": chat_prompt(conv, in_lens[k], rng)},
                ]
                turns_of.append(
                    WorkItem(
                        id=f"conv-{conv:04d}-t{k + 1}",
                        messages=list(history),
                        max_tokens=out_lens[k],
                        extra={"ignore_eos": True} if ignore_eos else {},
                        input_len=in_lens[k] if ins.kind != "fixed" else None,
                        input_unit="words" if ins.kind != "fixed" else None,
                        turn=k + 1,
                    )
                )
                history.append({"role": "assistant", "content": _story(rng, out_lens[k])})
            convs.append(turns_of)
            conv += 1
        block = [c[k] for k in range(turns) for c in convs]
        items.extend(block[:size])
    eos = ",ignore_eos" if ignore_eos else ""
    name = f"multiturn(turns={turns},in={ins.label()}w,out={outs.label()}{eos})"
    return Workload(name, items, _digest(items), shared_prefix=True)


def jsonl_workload(path: Path, max_tokens: int | None = None) -> Workload:
    """Rows {messages, max_tokens, ...} or ShareGPT's {conversations: [{from, value}]};
    a bad row is an error naming the line and field."""
    items = []
    sharegpt = 0
    for where, row in _rows(path):
        n = where.rsplit(" ", 1)[-1]
        if not isinstance(row, dict):
            msg = f"{where}: expected an object with 'messages' and 'max_tokens'"
            raise InvalidInputError(msg)
        if "conversations" in row and "messages" not in row:
            item = _sharegpt(where, row, max_tokens)
            sharegpt += 1
            if item is not None:
                items.append(item)
            continue
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
        msg = (
            f"--workload {path}: no usable rows; add lines of {{messages, max_tokens}} or "
            "ShareGPT {conversations: [{from: human, value}, {from: gpt, value}]}"
        )
        raise InvalidInputError(msg)
    kind = "sharegpt" if sharegpt else "file"
    return Workload(f"{kind}:{Path(path).name}", items, _digest(items))


def nonce_lead(nonce: str) -> str:
    """What a run puts in front of every prompt's first message (see _vary)."""
    return f"(run {nonce}) "


def _vary(messages: list[dict[str, Any]], nonce: str | None) -> list[dict[str, Any]]:
    """The messages with the run's nonce in front of the first one's text: the seeded
    prompts are the same every run, and a server's prompt cache would otherwise answer a
    second run's prefill (TTFT 55 ms instead of 1,329 ms) with no sign of it. In front,
    because a prefix cache matches from the start."""
    if not nonce or not messages or not isinstance(messages[0].get("content"), str):
        return messages
    first = dict(messages[0])
    first["content"] = nonce_lead(nonce) + first["content"]
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
