"""Token counts read from what an upstream model server answered: a JSON body or an SSE
stream, OpenAI-shaped (`prompt_tokens`, ...) or Anthropic-shaped (`input_tokens`, ...).

Pure: the gateway feeds it bytes and asks for the normalised usage at the end. A reply that
reported nothing (or only zeros, as some servers do on streamed Anthropic replies) has no
usage (None), which every report shows as `n/a`, never as 0.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict

# Bodies larger than this are not parsed for usage (a JSON reply that big is not a chat
# completion); the reply itself still streams through whole.
BODY_CAP = 8 * 1024 * 1024
_KEYS = (
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


class Usage(BaseModel):
    """One call's usage, normalised: input counts every prompt token (cached included)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    input: int
    """Prompt tokens: prompt_tokens, or input_tokens + cache_read + cache_creation."""
    cached: int
    """Prompt tokens served from the server's cache."""
    output: int
    """Completion tokens."""


def _raw(usage: Any) -> dict[str, int]:
    """The integer counters of one `usage` object (nested cached_tokens flattened)."""
    if not isinstance(usage, dict):
        return {}
    out = {k: int(v) for k, v in usage.items() if k in _KEYS and isinstance(v, int)}
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
        out["cached_tokens"] = int(details["cached_tokens"])
    return out


def usages_in(event: Any) -> list[dict[str, int]]:
    """Every usage object of one JSON reply or stream event: top-level `usage` (OpenAI
    bodies and final chunks, Anthropic bodies and message_delta) and `message.usage`
    (Anthropic message_start)."""
    if not isinstance(event, dict):
        return []
    found = [_raw(event.get("usage"))]
    message = event.get("message")
    if isinstance(message, dict):
        found.append(_raw(message.get("usage")))
    return [u for u in found if u]


def normalise(raw: dict[str, int]) -> Usage | None:
    """{input, cached, output} of merged counters; None when nothing (or only 0) was counted."""
    if "prompt_tokens" in raw or "completion_tokens" in raw:
        usage = Usage(
            input=raw.get("prompt_tokens", 0),
            cached=raw.get("cached_tokens", 0),
            output=raw.get("completion_tokens", 0),
        )
    else:
        cached = raw.get("cache_read_input_tokens", 0)
        usage = Usage(
            input=raw.get("input_tokens", 0) + cached + raw.get("cache_creation_input_tokens", 0),
            cached=cached,
            output=raw.get("output_tokens", 0),
        )
    if usage.input == 0 and usage.output == 0:
        return None  # a reply that reached the model but counted nothing is unknown
    return usage


class UsageReader:
    """Fed the reply's bytes as they stream through; `usage()` at the end.

    Stream counters are cumulative (Anthropic's message_delta repeats the running total),
    so the merge keeps the largest value seen per key rather than adding them up.
    """

    def __init__(self, content_type: str) -> None:
        self.sse = "text/event-stream" in content_type.lower()
        self._buf = bytearray()
        self._merged: dict[str, int] = {}
        self._too_big = False
        self._skipping = False  # inside an SSE line over BODY_CAP: dropped to its end

    def feed(self, data: bytes) -> None:
        if self.sse:
            self._feed_sse(data)
        elif not self._too_big:
            self._buf += data
            if len(self._buf) > BODY_CAP:
                self._too_big = True
                self._buf = bytearray()

    def _feed_sse(self, data: bytes) -> None:
        # Linear in what arrives: each byte is searched once and the consumed lines are
        # cut off once per feed (re-partitioning the buffer per line was quadratic: 40 MB of
        # 2-byte lines took minutes). A line over BODY_CAP is no usage event: skipped.
        start = 0
        while (end := data.find(b"\n", start)) != -1:
            if self._skipping:
                self._skipping = False
            else:
                self._buf += data[start:end]
                self._line(bytes(self._buf))
            self._buf.clear()
            start = end + 1
        if not self._skipping:
            self._buf += data[start:]
            if len(self._buf) > BODY_CAP:
                self._skipping = True
                self._buf.clear()

    def _line(self, line: bytes) -> None:
        text = line.strip()
        if not text.startswith(b"data:"):
            return
        payload = text[len(b"data:") :].strip()
        if not payload or payload == b"[DONE]":
            return
        try:
            event = json.loads(payload)
        except (ValueError, RecursionError):  # not JSON, or nested past the decoder
            return
        self._merge(usages_in(event))

    def _merge(self, found: list[dict[str, int]]) -> None:
        for raw in found:
            for k, v in raw.items():
                self._merged[k] = max(v, self._merged.get(k, 0))

    def usage(self) -> Usage | None:
        if self.sse:
            if self._buf:
                self._line(bytes(self._buf))
                self._buf = bytearray()
        elif self._buf:
            with contextlib.suppress(ValueError, RecursionError):
                self._merge(usages_in(json.loads(bytes(self._buf))))
        return normalise(self._merged)
