"""The benchmark's streaming client: HTTP/1.1 on raw asyncio transports.

Why not httpx: its async stack (httpcore, anyio streams) hands bytes to the caller one task
switch after the socket read, and costs several times more CPU per event (the bench part
`throughput` measures both). Here `data_received` reads the monotonic clock as the first
thing it does, before any parsing, so each event's time is its first byte's arrival.

Kept-alive connections are pooled per target: on a model server a request's TTFT should
not include a TCP (or TLS) handshake the client could have avoided. A pooled connection the
server had already closed is retried once on a fresh one, before any byte arrived.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from gaia_eval.throughput.record import StreamRecord
from gaia_eval.throughput.sse import EventTooLarge, SSEParser

Api = Literal["openai", "anthropic"]
_ID_HEADERS = ("x-request-id", "request-id", "x-vllm-request-id", "x-amzn-requestid")
_MAX_ERROR_BODY = 4096
monotonic_ns = time.monotonic_ns


@dataclass(frozen=True)
class Endpoint:
    """Where requests go: the streaming URL, its protocol and fixed headers."""

    url: str
    """The full endpoint URL, e.g. http://127.0.0.1:8080/v1/chat/completions."""
    api: Api
    """Wire protocol of the stream."""
    headers: dict[str, str] = field(default_factory=dict)
    """Extra headers (credentials); never recorded."""

    @property
    def origin(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"


class _Conn(asyncio.Protocol):
    """One HTTP/1.1 connection; parses one response at a time into a StreamRecord."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.closed = asyncio.get_running_loop().create_future()
        self._reset_state()

    def _reset_state(self) -> None:
        self.rec: StreamRecord | None = None
        self.finished: asyncio.Future[None] | None = None
        self._api: Api = "openai"
        self._head = b""
        self._state = "status"  # status -> body -> complete
        self._chunked = False
        self._remaining = -1  # content-length left, or the current chunk's bytes left
        self._chunk_state = "size"  # size | data | crlf | trailer
        self._cbuf = b""
        self._keep_alive = True
        self._error_body = bytearray()
        self._sse: SSEParser | None = None
        self.got_bytes = False

    # -- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        t = monotonic_ns()  # first: nothing below may delay the reading
        rec = self.rec
        if rec is None:
            return  # bytes on an idle pooled connection: ignored, it is closed on reuse
        self.got_bytes = True
        try:
            if self._state == "status":
                data = self._on_head(data, t)
                if not data:
                    return
            if self._chunked:
                self._on_chunked(data, t)
            else:
                self._on_body(data, t)
        except _ProtocolError as err:
            rec.fail(err.kind, str(err), t)
            self._end(keep=False)

    def eof_received(self) -> bool | None:
        return None  # close the transport; connection_lost decides what it meant

    def connection_lost(self, exc: Exception | None) -> None:
        t = monotonic_ns()
        if not self.closed.done():
            self.closed.set_result(None)
        rec = self.rec
        if rec is None:
            return
        if self._state != "complete":
            if not self._chunked and self._remaining < 0 and self._state == "body":
                # A body delimited by the connection's end: EOF is its end.
                self._body_complete(t)
                return
            what = f"{type(exc).__name__}: {exc}" if exc else "closed by the server"
            rec.fail("reset", f"connection lost before the response ended ({what})", t)
        self._end(keep=False)

    # -- response parsing ----------------------------------------------------------------

    def _on_head(self, data: bytes, t: int) -> bytes:
        rec = self.rec
        assert rec is not None
        if not self._head:
            rec.t_headers_ns = t
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0:
            if len(self._head) > 65536:
                raise _ProtocolError("malformed_sse", "response headers exceed 64 KiB")
            return b""
        head, rest = self._head[:end], self._head[end + 4 :]
        lines = head.decode("latin-1").split("\r\n")
        try:
            version, status, *_ = lines[0].split(" ", 2)
            rec.status = int(status)
        except ValueError as err:
            raise _ProtocolError("malformed_sse", f"bad status line {lines[0][:80]!r}") from err
        if rec.status == 100:  # a Continue: the real status follows
            self._head = rest
            return self._on_head(b"", t) if rest else b""
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        for key in _ID_HEADERS:
            if headers.get(key):
                rec.server_request_id = headers[key]
                break
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if not self._chunked:
            self._remaining = int(headers.get("content-length", "-1") or -1)
        conn = headers.get("connection", "").lower()
        self._keep_alive = version != "HTTP/1.0" and conn != "close"
        self._state = "body"
        if rec.status == 200:
            ctype = headers.get("content-type", "")
            if "text/event-stream" not in ctype:
                raise _ProtocolError(
                    "malformed_sse", f"HTTP 200 with content-type {ctype!r}, not an event stream"
                )
            self._sse = SSEParser(self._on_event)
        if not self._chunked and self._remaining == 0:
            self._body_complete(t)
            return b""
        return rest

    def _on_body(self, data: bytes, t: int) -> None:
        if self._remaining >= 0:
            if len(data) >= self._remaining:
                data = data[: self._remaining]
                self._remaining = 0
                self._payload(data, t)
                self._body_complete(t)
                return
            self._remaining -= len(data)
        self._payload(data, t)

    def _on_chunked(self, data: bytes, t: int) -> None:
        buf = self._cbuf + data if self._cbuf else data
        self._cbuf = b""
        pos = 0
        n = len(buf)
        while pos < n and self._state != "complete":
            st = self._chunk_state
            if st == "data":
                take = min(self._remaining, n - pos)
                self._payload(buf[pos : pos + take], t)
                pos += take
                self._remaining -= take
                if self._remaining == 0:
                    self._chunk_state = "crlf"
            elif st == "crlf":
                if n - pos < 2:
                    break
                pos += 2
                self._chunk_state = "size"
            else:  # size or trailer: a line
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    if n - pos > 1024:
                        raise _ProtocolError("malformed_sse", "chunk-size line too long")
                    break
                line = buf[pos:eol]
                pos = eol + 2
                if st == "trailer":
                    if not line:
                        self._body_complete(t)
                    continue
                try:
                    size = int(line.split(b";", 1)[0], 16)
                except ValueError as err:
                    raise _ProtocolError("malformed_sse", f"bad chunk size {line[:40]!r}") from err
                if size == 0:
                    self._chunk_state = "trailer"
                else:
                    self._remaining = size
                    self._chunk_state = "data"
        if pos < n and self._state != "complete":
            self._cbuf = buf[pos:]

    def _payload(self, data: bytes, t: int) -> None:
        if self._sse is not None:
            try:
                self._sse.feed(data, t)
            except EventTooLarge as err:  # the request fails as the server's, bounded
                raise _ProtocolError("malformed_sse", str(err)) from None
        elif len(self._error_body) < _MAX_ERROR_BODY:
            self._error_body += data[: _MAX_ERROR_BODY - len(self._error_body)]

    def _body_complete(self, t: int) -> None:
        rec = self.rec
        assert rec is not None
        self._state = "complete"
        if rec.status != 200:
            snippet = " ".join(self._error_body.decode("utf-8", "replace").split())[:300]
            kind = "http_4xx" if 400 <= rec.status < 500 else "http_5xx"
            rec.fail(kind, f"HTTP {rec.status}: {snippet}", t)
        elif not rec.done:
            rec.fail("no_done", "the stream ended without [DONE] / message_stop", t)
        self._end(keep=self._keep_alive and rec.error_kind in (None, "http_4xx", "http_5xx"))

    # -- events --------------------------------------------------------------------------

    def _on_event(self, t: int, event: bytes, data: bytes, bad: bytes) -> None:
        rec = self.rec
        assert rec is not None
        if rec.done or rec.error_kind:
            return
        rec.events += 1
        if bad:
            text = bad.decode("utf-8", "replace")
            kind = "stream_error" if bad.startswith(b"error") else "malformed_sse"
            raise _ProtocolError(kind, f"not an SSE field: {text[:200]!r}")
        if self._api == "openai":
            self._openai_event(t, data)
        else:
            self._anthropic_event(t, event, data)

    def _openai_event(self, t: int, data: bytes) -> None:
        rec = self.rec
        assert rec is not None
        if data == b"[DONE]":
            rec.done = True
            rec.t_end_ns = t
            return
        obj = _loads(data)
        if "error" in obj:
            raise _ProtocolError("stream_error", f"error event: {str(obj['error'])[:300]}")
        if rec.server_request_id is None and isinstance(obj.get("id"), str):
            rec.server_request_id = obj["id"]
        usage = obj.get("usage")
        cum: int | None = None
        if isinstance(usage, dict):
            ct = usage.get("completion_tokens")
            if isinstance(ct, int):
                rec.usage_output_tokens = cum = ct
            pt = usage.get("prompt_tokens")
            if isinstance(pt, int):
                rec.usage_input_tokens = pt
            details = usage.get("prompt_tokens_details")
            if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
                rec.usage_cached_tokens = details["cached_tokens"]
        if isinstance(obj.get("timings"), dict):
            rec.server_timings = obj["timings"]
        for choice in obj.get("choices") or ():
            delta = choice.get("delta") or {}
            if choice.get("finish_reason"):
                rec.finish_reason = str(choice["finish_reason"])
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if reasoning:
                _add_chunk(rec, t, "reasoning", str(reasoning), cum)
            content = delta.get("content")
            if content:
                _add_chunk(rec, t, "text", str(content), cum)
            calls = delta.get("tool_calls")
            if calls:
                parts = [
                    str((c.get("function") or {}).get("name") or "")
                    + str((c.get("function") or {}).get("arguments") or "")
                    for c in calls
                    if isinstance(c, dict)
                ]
                _add_chunk(rec, t, "tool", "".join(parts), cum)

    def _anthropic_event(self, t: int, event: bytes, data: bytes) -> None:
        rec = self.rec
        assert rec is not None
        obj = _loads(data)
        kind = obj.get("type") or event.decode("utf-8", "replace")
        if kind == "content_block_delta":
            delta = obj.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta" and delta.get("text"):
                _add_chunk(rec, t, "text", str(delta["text"]), None)
            elif dtype == "thinking_delta" and delta.get("thinking"):
                _add_chunk(rec, t, "reasoning", str(delta["thinking"]), None)
            elif dtype == "input_json_delta" and delta.get("partial_json"):
                _add_chunk(rec, t, "tool", str(delta["partial_json"]), None)
        elif kind == "message_start":
            message = obj.get("message") or {}
            if rec.server_request_id is None and isinstance(message.get("id"), str):
                rec.server_request_id = message["id"]
            usage = message.get("usage") or {}
            if isinstance(usage.get("input_tokens"), int):
                rec.usage_input_tokens = usage["input_tokens"]
        elif kind == "message_delta":
            usage = obj.get("usage") or {}
            if isinstance(usage.get("output_tokens"), int):
                rec.usage_output_tokens = usage["output_tokens"]
            if isinstance(usage.get("input_tokens"), int) and usage["input_tokens"]:
                rec.usage_input_tokens = usage["input_tokens"]
            reason = (obj.get("delta") or {}).get("stop_reason")
            if reason:
                rec.finish_reason = str(reason)
        elif kind == "message_stop":
            rec.done = True
            rec.t_end_ns = t
        elif kind == "error":
            raise _ProtocolError("stream_error", f"error event: {str(obj.get('error'))[:300]}")

    # -- request lifecycle ---------------------------------------------------------------

    def begin(self, rec: StreamRecord, api: Api, request: bytes) -> asyncio.Future[None]:
        self._reset_state()
        self.rec = rec
        self._api = api
        self.finished = asyncio.get_running_loop().create_future()
        assert self.transport is not None
        if self.closed.done():
            # The server hung up between connect and now: connection_lost has already run
            # (with no request to fail) and will not run again, so fail the request here
            # instead of leaving it to wait for its whole timeout.
            t = monotonic_ns()
            rec.t_sent_ns = t
            rec.fail("reset", "connection closed by the server before the request was sent", t)
            self._end(keep=False)
            return self.finished
        self.transport.write(request)
        rec.t_sent_ns = monotonic_ns()
        return self.finished

    def _end(self, *, keep: bool) -> None:
        rec = self.rec
        if rec is not None and rec.t_end_ns == 0:
            rec.t_end_ns = monotonic_ns()
        self._keep_alive = keep
        fut = self.finished
        self.rec = None
        if not keep and self.transport is not None:
            self.transport.abort()
        if fut is not None and not fut.done():
            fut.set_result(None)

    @property
    def reusable(self) -> bool:
        return (
            self._keep_alive
            and self.transport is not None
            and not self.transport.is_closing()
            and not self.closed.done()
        )


class _ProtocolError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def _loads(data: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(data)
    except ValueError as err:
        raise _ProtocolError("malformed_sse", f"event data is not JSON: {data[:120]!r}") from err
    if not isinstance(obj, dict):
        raise _ProtocolError("malformed_sse", f"event data is not an object: {data[:120]!r}")
    return obj


def _add_chunk(rec: StreamRecord, t: int, kind: Any, text: str, cum: int | None) -> None:
    rec.chunk_t_ns.append(t)
    rec.chunk_kind.append(kind)
    rec.chunk_text.append(text)
    rec.chunk_cum_tokens.append(cum)


class StreamClient:
    """Sends streaming requests to one endpoint over a pool of kept-alive connections."""

    def __init__(self, endpoint: Endpoint, *, timeout_s: float = 600.0) -> None:
        self.endpoint = endpoint
        self.timeout_s = timeout_s
        parts = urlsplit(endpoint.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            msg = f"endpoint URL {endpoint.url!r} must be http(s)://host[:port]/path"
            raise ValueError(msg)
        self._host = parts.hostname
        self._port = parts.port or (443 if parts.scheme == "https" else 80)
        self._ssl = ssl.create_default_context() if parts.scheme == "https" else None
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host_header = parts.netloc
        base = [
            f"host: {host_header}",
            "content-type: application/json",
            "accept: text/event-stream",
            "user-agent: gaia-eval-benchmark",
        ] + [f"{k}: {v}" for k, v in endpoint.headers.items()]
        self._head = "\r\n".join(base)
        self._idle: list[_Conn] = []
        self._all: set[_Conn] = set()

    def build_request(self, body: dict[str, Any]) -> bytes:
        payload = json.dumps(body, ensure_ascii=False).encode()
        head = f"POST {self._path} HTTP/1.1\r\n{self._head}\r\ncontent-length: {len(payload)}"
        return head.encode() + b"\r\n\r\n" + payload

    async def _connect(self) -> _Conn:
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(
            _Conn,
            self._host,
            self._port,
            ssl=self._ssl,
            server_hostname=self._host if self._ssl else None,
        )
        self._all.add(conn)
        return conn

    def _take_idle(self) -> _Conn | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable:
                return conn
            self._all.discard(conn)
        return None

    async def send(self, request: bytes, rec: StreamRecord) -> StreamRecord:
        """Send one prepared request, filling `rec`; failures are recorded, never raised."""
        rec.t_start_ns = monotonic_ns()
        deadline = rec.t_start_ns + int(self.timeout_s * 1e9)
        for attempt in (0, 1):
            conn = self._take_idle() if attempt == 0 else None
            rec.connection_reused = conn is not None
            if conn is None:
                try:
                    conn = await asyncio.wait_for(self._connect(), timeout=self.timeout_s)
                except (OSError, TimeoutError, ssl.SSLError) as err:
                    rec.fail(
                        "unreachable",
                        f"{self.endpoint.origin}: {type(err).__name__}: {err}",
                        monotonic_ns(),
                    )
                    return rec
            finished = conn.begin(rec, self.endpoint.api, request)
            remaining = max(0.001, (deadline - monotonic_ns()) / 1e9)
            try:
                await asyncio.wait_for(asyncio.shield(finished), timeout=remaining)
            except TimeoutError:
                rec.fail(
                    "timeout", f"no complete response within {self.timeout_s:g} s", monotonic_ns()
                )
                conn.rec = None
                if conn.transport is not None:
                    conn.transport.abort()
                self._all.discard(conn)
                return rec
            stale = rec.connection_reused and rec.error_kind == "reset" and not conn.got_bytes
            if stale and attempt == 0:
                # The server closed the idle connection before it saw the request: resend.
                self._all.discard(conn)
                rec.error_kind = rec.error = None
                rec.t_end_ns = 0
                continue
            break
        assert conn is not None
        if conn.reusable and rec.error_kind in (None, "http_4xx", "http_5xx"):
            self._idle.append(conn)
        else:
            self._all.discard(conn)
        return rec

    async def aclose(self) -> None:
        for conn in list(self._all):
            if conn.transport is not None:
                conn.transport.close()
        self._idle.clear()
        self._all.clear()
