"""A chat client for any OpenAI-compatible `/v1/chat/completions` server, with tool calls.

`chat` is non-streaming on purpose: the agent loop needs whole tool-call messages and the
usage block, which every server returns on a plain response. `stream` is for what only a
stream can show (time to first token); it asks for the usage block in the last chunk.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from gaia_eval.core import limits
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.llm.outage import ModelRequestError, error_for_status, unreachable

RETRIES = 3
RETRY_BACKOFF_S = 1.0
THROTTLE_RETRIES = 8
"""Attempts when the server keeps saying slow down (429 / overload): the shared backoff
waits between them, so these are cheap for the server; a throttle is not an outage until
they run out."""
MAX_REPLY_BYTES = 32 * 1024 * 1024
"""A plain reply past this is not read on (an answer that size is a model running away,
and holding it cost 1.6 GB for 100 MB): the request fails as the system's own error."""


def _read_capped(resp: httpx.Response, cap: int, url: str) -> bytes:
    """The body of a streamed response, read piecewise and refused past `cap` bytes."""
    body = bytearray()
    for piece in resp.iter_bytes():
        body += piece
        if len(body) > cap:
            msg = (
                f"{url} sent a reply over {cap // (1024 * 1024)} MiB; not read on (a model "
                "running away: bound the answer with max_tokens)"
            )
            raise ModelRequestError(msg)
    return bytes(body)


@dataclass(frozen=True)
class ToolRequest:
    """A tool call the model asked for."""

    id: str
    name: str
    arguments: str


@dataclass
class ChatReply:
    """One assistant turn."""

    content: str
    tool_calls: list[ToolRequest]
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    raw_message: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    """The `model` the server says answered (None when it did not say)."""

    def assistant_message(self) -> dict[str, Any]:
        """This turn as the assistant message a tool loop sends back (OpenAI format)."""
        if not self.tool_calls:
            return {"role": "assistant", "content": self.content}
        return {
            "role": "assistant",
            "content": self.content or None,
            "tool_calls": [
                {
                    "id": tc.id,
                    "type": "function",
                    "function": {"name": tc.name, "arguments": tc.arguments},
                }
                for tc in self.tool_calls
            ],
        }


@dataclass
class StreamedReply(ChatReply):
    """A streamed assistant turn, with its timing."""

    first_token_s: float | None = None
    """Seconds from sending to the first content (or tool-call) delta."""
    total_s: float = 0.0
    """Seconds from sending to the end of the stream."""
    chunks: int = 0
    """Data chunks received."""
    finish_reason: str | None = None
    """stop, length, tool_calls, ... as the last choice reported it."""


def chat_url(base_url: str) -> str:
    """`<base>/chat/completions`, adding `/v1` when the base has no version segment."""
    base = base_url.rstrip("/")
    if not base.rsplit("/", 1)[-1].startswith("v"):
        base += "/v1"
    return base + "/chat/completions"


class OpenAIChat:
    """Chat completions against one model on one server."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        timeout_s: float = 300.0,
        retries: int = RETRIES,
        backoff_s: float = RETRY_BACKOFF_S,
    ) -> None:
        self.url = chat_url(base_url)
        self.model = model
        self.retries = retries
        self.backoff_s = backoff_s
        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(timeout=timeout_s, headers=headers, trust_env=False)

    def close(self) -> None:
        self._client.close()

    def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> ChatReply:
        """One plain request; `response_format` e.g. {"type": "json_schema", ...}."""
        body = self._body(messages, tools, temperature, max_tokens, response_format)
        data = self._post(body)
        return _parse_reply(data, self.url)

    def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> StreamedReply:
        """One streamed request, assembled; retried like `chat` until the first byte."""
        body = self._body(messages, tools, temperature, max_tokens, response_format)
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
        tries = _Attempts(self.url, self.retries, self.backoff_s)
        for _ in tries:
            try:
                with tries.lim.slot():
                    t0 = time.monotonic()  # from the send: waiting for a slot is not TTFT
                    with self._client.stream("POST", self.url, json=body) as resp:
                        if resp.status_code != 200:
                            tries.refused(resp, resp.read().decode())
                            continue
                        tries.lim.ok()
                        return _read_stream(resp.iter_lines(), t0, self.url)
            except httpx.HTTPError as err:
                # Mid-stream too: a cut stream is an outage, not an answer.
                tries.failed(unreachable(self.url, err))
        raise tries.last()

    def _body(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        temperature: float | None,
        max_tokens: int | None,
        response_format: dict[str, Any] | None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if tools:
            body["tools"] = tools
        if temperature is not None:
            body["temperature"] = temperature
        if max_tokens:
            body["max_tokens"] = max_tokens
        if response_format:
            body["response_format"] = response_format
        return body

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        tries = _Attempts(self.url, self.retries, self.backoff_s)
        for _ in tries:
            try:
                with tries.lim.slot(), self._client.stream("POST", self.url, json=body) as resp:
                    raw = _read_capped(resp, MAX_REPLY_BYTES, self.url)
            except httpx.HTTPError as err:
                tries.failed(unreachable(self.url, err))
                continue
            if resp.status_code != 200:
                tries.refused(resp, raw.decode("utf-8", "replace"))
                continue
            tries.lim.ok()
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError) as err:
                tries.failed(InfrastructureError(f"{self.url} returned invalid JSON: {err}"))
                continue
            if not isinstance(data, dict):
                raise InfrastructureError(f"{self.url} returned a non-object reply")
            return data
        raise tries.last()


class _Attempts:
    """The attempts of one request: up to `retries` failures (with exponential pauses
    between them) and up to THROTTLE_RETRIES throttles that named their wait (the
    endpoint's shared limiter waits those out, for every worker)."""

    def __init__(self, url: str, retries: int, backoff_s: float) -> None:
        self.url, self.retries, self.backoff_s = url, retries, backoff_s
        self.lim = limits.limiter(url)
        self.failures = self.throttles = 0
        self.pause = False
        self.error: Exception | None = None

    def __iter__(self) -> Iterator[int]:
        while self.failures < self.retries and self.throttles < THROTTLE_RETRIES:
            if self.pause:
                time.sleep(self.backoff_s * 2 ** (self.failures - 1))
            self.pause = True  # a throttle clears it: the limiter waits instead
            yield self.failures + self.throttles

    def failed(self, err: Exception) -> None:
        self.error = err
        self.failures += 1

    def refused(self, resp: httpx.Response, text: str) -> None:
        """A reply other than 200: a throttle waits, a refusal of the request itself or of
        the credentials is raised at once, anything else is one more failure."""
        err = error_for_status(self.url, resp.status_code, text)
        if said := _throttle(self.lim, resp, self.backoff_s):
            self.error, self.pause = err, False
            self.throttles += said == "retry-after"
            self.failures += said == "throttled"
            return
        if isinstance(err, ModelRequestError) or resp.status_code in (401, 403):
            raise err
        self.failed(err)

    def last(self) -> Exception:
        assert self.error is not None
        return self.error


def _throttle(lim: limits.Limiter, resp: httpx.Response, base_s: float) -> str:
    """A 429 / overload reply starts the endpoint's shared backoff (every worker waits).
    "retry-after": the server named the wait, so it is a pace, not a failure (retried up
    to THROTTLE_RETRIES times); "throttled": no wait named (it may be a spent quota), it
    counts as one of the request's few failures; "": not a throttle."""
    after = limits.retry_after_s(resp.headers.get("retry-after"))
    if not limits.is_throttle(resp.status_code, after):
        return ""
    lim.throttled(after, base_s=base_s)
    return "retry-after" if after is not None else "throttled"


def _parse_reply(data: dict[str, Any], url: str) -> ChatReply:
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as err:
        msg = f"{url} reply has no choices[0].message"
        raise InfrastructureError(msg) from err
    calls = []
    for i, tc in enumerate(message.get("tool_calls") or []):
        fn = tc.get("function") or {}
        args = fn.get("arguments", "")
        if not isinstance(args, str):
            args = json.dumps(args)
        calls.append(
            ToolRequest(
                id=str(tc.get("id") or f"call_{i}"), name=str(fn.get("name", "")), arguments=args
            )
        )
    input_tokens, output_tokens, cached_tokens = usage_counts(data.get("usage"), url)
    return ChatReply(
        content=str(message.get("content") or ""),
        tool_calls=calls,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_tokens=cached_tokens,
        raw_message=message,
        model=str(data["model"]) if data.get("model") else None,
    )


def _read_stream(lines: Iterator[str], t0: float, url: str) -> StreamedReply:
    """Assemble server-sent `data:` chunks: content deltas, tool-call deltas by index, and
    the usage block (in the last chunk, with no choices)."""
    reply = StreamedReply(content="", tool_calls=[])
    parts: list[str] = []
    # Tool-call deltas by index: id, name, and the argument pieces (joined once at the end:
    # `+=` on a growing string is quadratic in a 50 MB argument sent in small deltas).
    calls: dict[int, dict[str, Any]] = {}
    usage: dict[str, Any] = {}
    done = False
    size = 0  # bytes of content and arguments held so far, capped like a plain reply
    for line in lines:
        if not line.startswith("data:"):
            continue  # comments, keep-alives, event names
        payload = line[len("data:") :].strip()
        if payload == "[DONE]":
            done = True
            break
        try:
            chunk = json.loads(payload)
        except ValueError as err:
            msg = f"{url} sent a stream chunk that is not JSON: {payload[:200]}"
            raise InfrastructureError(msg) from err
        reply.chunks += 1
        if chunk.get("error"):
            msg = f"{url} stream error: {str(chunk['error'])[:300]}"
            raise InfrastructureError(msg)
        usage = chunk.get("usage") or usage
        if chunk.get("model"):
            reply.model = str(chunk["model"])
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                reply.finish_reason = str(choice["finish_reason"])
            text = delta.get("content")
            if text:
                parts.append(str(text))
                size += len(parts[-1])
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(int(tc.get("index", 0)), {"id": "", "name": "", "args": []})
                fn = tc.get("function") or {}
                slot["id"] = str(tc.get("id") or slot["id"])
                slot["name"] += str(fn.get("name") or "")
                piece = str(fn.get("arguments") or "")
                slot["args"].append(piece)
                size += len(piece)
            if size > MAX_REPLY_BYTES:
                msg = (
                    f"{url} streamed a reply over {MAX_REPLY_BYTES // (1024 * 1024)} MiB; not "
                    "read on (a model running away: bound the answer with max_tokens)"
                )
                raise ModelRequestError(msg)
            if (text or delta.get("tool_calls")) and reply.first_token_s is None:
                reply.first_token_s = time.monotonic() - t0
    if not done and reply.finish_reason is None:
        msg = f"{url} stream ended before the reply was complete"
        raise InfrastructureError(msg)
    reply.total_s = time.monotonic() - t0
    reply.content = "".join(parts)
    reply.tool_calls = [
        ToolRequest(id=c["id"] or f"call_{i}", name=c["name"], arguments="".join(c["args"]))
        for i, c in sorted(calls.items())
    ]
    reply.input_tokens, reply.output_tokens, reply.cached_tokens = usage_counts(usage, url)
    return reply


# More tokens than any context holds: a count past it is a broken server, not a reply.
_MAX_TOKENS = 10**9


def _count(block: dict[str, Any], key: str, where: str, url: str) -> int:
    value = block.get(key)
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # `12.0` is a count; `1e400` (inf) and `2.5` are not
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MAX_TOKENS:
        msg = (
            f"{url} sent a malformed usage block: {where}{key} is {str(value)[:40]}, not a "
            "token count; the backend is broken, so the item is unmeasured"
        )
        raise InfrastructureError(msg)
    return value


def usage_counts(usage: object, url: str) -> tuple[int, int, int]:
    """(input, output, cached) tokens of a reply's usage block. A block that is not an
    object, or a count that is not a whole number in range (`1e400`, `-3`, `"many"`), is an
    outage of that backend (InfrastructureError): never a crash, never a wrong figure."""
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        msg = f"{url} sent a malformed usage block ({type(usage).__name__}, not an object)"
        raise InfrastructureError(msg)
    details = usage.get("prompt_tokens_details") or {}
    if not isinstance(details, dict):
        msg = f"{url} sent a malformed usage block (prompt_tokens_details is not an object)"
        raise InfrastructureError(msg)
    return (
        _count(usage, "prompt_tokens", "", url),
        _count(usage, "completion_tokens", "", url),
        _count(details, "cached_tokens", "prompt_tokens_details.", url),
    )
