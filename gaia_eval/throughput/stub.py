"""A loopback streaming server of known timing: the benchmark's test and bench target.

It speaks the real wire protocols (HTTP/1.1 with chunked transfer, server-sent events) of
OpenAI `/v1/chat/completions` and Anthropic `/v1/messages`, so the client under test cannot
tell it from a model server. The request's `model` field picks the behaviour:
`name` or `name:key=value,key=value` (a preset name, or `custom`, plus overrides of
`Behaviour`'s fields), e.g. `custom:ttft_ms=300,gap_ms=20,chunks=10,tokens_per_chunk=3`.

Every send is timed with the monotonic clock, which is one clock for every process on Linux
and macOS, so a client in another process can compare its own readings with the server's:
`GET /stub/log` returns them (`POST /stub/reset` clears them). The stub also answers
`/metrics` (Prometheus text, llama.cpp names), `/props` (context size) and `/health`.

`python -m gaia_eval.throughput.stub [--port P]` serves in the foreground and prints its
base URL on the first line of stdout; `stub_process()` runs it as a child process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from typing import Any

LOG_LIMIT = 20_000  # entries kept for /stub/log; a long bench run must not grow without end

_ID_PLACEHOLDER = "stub-########"  # as wide as a real id (stub-00000001)
FAULTS = ("", "drop", "malformed", "no_done", "status500", "status429", "status400", "hang")


@dataclass(frozen=True)
class Behaviour:
    """How the stub answers one streaming request (times from the request's arrival)."""

    role_first: bool = True
    """Send a role-only opening chunk (no content) at once, as most servers do."""
    ttft_ms: float = 0.0
    """Delay from the request's arrival to the first chunk carrying generated text."""
    chunks: int = 16
    """Content chunks to send."""
    tokens_per_chunk: int = 1
    """Tokens each content chunk carries (its text has that many words)."""
    token_pattern: str = ""
    """Tokens per content chunk as a cycle, e.g. `1.3.1.1.2` (overrides tokens_per_chunk):
    a server that sends a varying number of tokens per chunk."""
    gap_ms: float = 0.0
    """Delay between content chunks."""
    reasoning: int = 0
    """Reasoning chunks (`reasoning_content` / thinking deltas) before the answer's chunks."""
    usage: bool = True
    """Send a usage chunk when the request asks for one (`stream_options.include_usage`)."""
    fault: str = ""
    """One of FAULTS: drop the connection, send a malformed line, end without [DONE],
    answer with an HTTP error, or hang (stop sending and keep the connection open)."""
    fault_after: int = 2
    """Content chunks sent before the fault."""


PRESETS: dict[str, Behaviour] = {
    "zero": Behaviour(chunks=64),
    "steady": Behaviour(ttft_ms=50, gap_ms=10, chunks=20),
    "slow-start": Behaviour(ttft_ms=400, gap_ms=10, chunks=10),
    "multi-token": Behaviour(ttft_ms=40, gap_ms=60, chunks=6, tokens_per_chunk=3),
    "varied-tokens": Behaviour(ttft_ms=30, gap_ms=15, chunks=20, token_pattern="1.3.1.1.2"),
    "no-usage": Behaviour(ttft_ms=30, gap_ms=15, chunks=8, usage=False),
    "no-role": Behaviour(role_first=False, ttft_ms=30, gap_ms=10, chunks=8),
    "reasoning": Behaviour(ttft_ms=30, gap_ms=10, chunks=6, reasoning=4),
    "drop": Behaviour(ttft_ms=20, gap_ms=10, chunks=10, fault="drop", fault_after=3),
    "malformed": Behaviour(ttft_ms=20, gap_ms=10, chunks=10, fault="malformed", fault_after=3),
    "no-done": Behaviour(ttft_ms=20, gap_ms=10, chunks=6, fault="no_done"),
    "status500": Behaviour(fault="status500"),
    "status429": Behaviour(fault="status429"),
    "status400": Behaviour(fault="status400"),
    "hang": Behaviour(ttft_ms=20, gap_ms=10, chunks=10, fault="hang", fault_after=2),
}


def parse_behaviour(model: str) -> Behaviour:
    """`name[:k=v,...]` -> Behaviour; unknown names or fields raise ValueError."""
    name, _, overrides = model.partition(":")
    if name == "custom":
        base = Behaviour()
    elif name in PRESETS:
        base = PRESETS[name]
    else:
        # Any other model name (a workload's own) streams like `steady`, so the stub can
        # stand in for a real server under any workload.
        base = PRESETS["steady"]
    if not overrides:
        return base
    kinds = {f.name: f.type for f in fields(Behaviour)}
    changes: dict[str, Any] = {}
    for pair in overrides.split(","):
        key, sep, value = pair.partition("=")
        if not sep or key not in kinds:
            msg = f"stub model {model!r}: unknown setting {key!r} (known: {', '.join(kinds)})"
            raise ValueError(msg)
        kind = kinds[key]
        if kind == "bool":
            changes[key] = value.lower() in ("1", "true", "yes")
        elif kind == "int":
            changes[key] = int(value)
        elif kind == "float":
            changes[key] = float(value)
        else:
            changes[key] = value
    out = replace(base, **changes)
    if out.fault not in FAULTS:
        msg = f"stub model {model!r}: fault must be one of {FAULTS}"
        raise ValueError(msg)
    return out


# The stub's answer under a json_schema response_format: fixed, so a test can compute the
# triage metrics it must score from the corpus labels alone.
JSON_ANSWER = '{"urgency": 4, "category": "work", "personal": false}'


def _pieces(text: str, n: int) -> list[str]:
    """`text` cut into `n` consecutive pieces (none empty while n <= len(text))."""
    n = max(1, min(n, len(text)))
    bounds = [round(i * len(text) / n) for i in range(n + 1)]
    return [text[bounds[i] : bounds[i + 1]] for i in range(n)]


def _tokens_of(beh: Behaviour, content_index: int) -> int:
    """Tokens the content chunk at `content_index` carries."""
    if not beh.token_pattern:
        return beh.tokens_per_chunk
    cycle = [int(x) for x in beh.token_pattern.split(".")]
    return cycle[max(0, content_index) % len(cycle)]


def _words(start: int, n: int) -> str:
    return "".join(f" w{start + i}" for i in range(n))


def _chunk(data: bytes) -> bytes:
    """One HTTP/1.1 chunk of the transfer-encoded body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class _Stats:
    """Counters behind /metrics, and the send log behind /stub/log."""

    def __init__(self) -> None:
        self.requests = 0
        self.prompt_tokens = 0
        self.generated_tokens = 0
        self.processing = 0
        self.log: deque[dict[str, Any]] = deque(maxlen=LOG_LIMIT)

    def metrics(self) -> str:
        return (
            "# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
            "# TYPE llamacpp:prompt_tokens_total counter\n"
            f"llamacpp:prompt_tokens_total {self.prompt_tokens}\n"
            "# TYPE llamacpp:tokens_predicted_total counter\n"
            f"llamacpp:tokens_predicted_total {self.generated_tokens}\n"
            "# TYPE llamacpp:kv_cache_usage_ratio gauge\n"
            f"llamacpp:kv_cache_usage_ratio {0.01 * min(self.processing, 100):.2f}\n"
            "# TYPE llamacpp:requests_processing gauge\n"
            f"llamacpp:requests_processing {self.processing}\n"
        )


class _Request:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body


async def _read_request(reader: asyncio.StreamReader) -> _Request | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0") or 0)
    body = await reader.readexactly(length) if length else b""
    return _Request(method, path, headers, body)


def _plain(status: int, body: bytes, ctype: str = "application/json") -> bytes:
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}
    return (
        f"HTTP/1.1 {status} {reason.get(status, 'Internal Server Error')}\r\n"
        f"content-type: {ctype}\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode() + body


class StubServer:
    """The asyncio server; `serve(port)` runs until cancelled."""

    def __init__(self) -> None:
        self.stats = _Stats()
        self._ids = 0
        # Zero-latency responses by request shape, with the request id as a placeholder: a
        # bench of the client must not measure the stub building JSON.
        self._cache: dict[tuple[Any, ...], tuple[bytes, list[str], int]] = {}

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                req = await _read_request(reader)
                if req is None:
                    break
                keep = await self._dispatch(req, writer)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def _dispatch(self, req: _Request, writer: asyncio.StreamWriter) -> bool:
        path = req.path.split("?", 1)[0]
        if req.method == "GET" and path == "/metrics":
            writer.write(_plain(200, self.stats.metrics().encode(), "text/plain; version=0.0.4"))
        elif req.method == "GET" and path == "/health":
            writer.write(_plain(200, b'{"status":"ok"}'))
        elif req.method == "GET" and path == "/props":
            body = {"default_generation_settings": {"n_ctx": 4096}, "build_info": "stub"}
            writer.write(_plain(200, json.dumps(body).encode()))
        elif req.method == "POST" and path == "/tokenize":
            # llama.cpp's endpoint: the stub's tokens are its words (" w12" is one token).
            try:
                text = str(json.loads(req.body or b"{}").get("content", ""))
            except (ValueError, AttributeError):
                text = ""
            tokens = list(range(len(text.split())))
            writer.write(_plain(200, json.dumps({"tokens": tokens}).encode()))
        elif req.method == "GET" and path == "/stub/log":
            writer.write(_plain(200, json.dumps(list(self.stats.log)).encode()))
        elif req.method == "POST" and path == "/stub/reset":
            self.stats.log.clear()
            writer.write(_plain(200, b"{}"))
        elif req.method == "POST" and path.endswith(("/chat/completions", "/messages")):
            return await self._stream(req, writer, anthropic=path.endswith("/messages"))
        else:
            writer.write(_plain(404, b'{"error":"not found"}'))
        await writer.drain()
        return True

    async def _stream(
        self, req: _Request, writer: asyncio.StreamWriter, *, anthropic: bool
    ) -> bool:
        t_recv = time.monotonic_ns()
        try:
            body = json.loads(req.body)
            beh = parse_behaviour(str(body.get("model", "")))
        except (ValueError, AttributeError) as err:
            writer.write(_plain(400, json.dumps({"error": str(err)}).encode()))
            await writer.drain()
            return True
        self._ids += 1
        rid = f"stub-{self._ids:08d}"  # fixed width: cached responses swap it in place
        prompt_tokens = len(json.dumps(body.get("messages", [])).split())
        entry: dict[str, Any] = {"id": rid, "model": body.get("model"), "t_received_ns": t_recv}
        sends: list[list[Any]] = []
        entry["sends"] = sends
        self.stats.log.append(entry)
        if beh.fault.startswith("status"):
            status = int(beh.fault[len("status") :])
            writer.write(_plain(status, json.dumps({"error": {"message": "stub fault"}}).encode()))
            await writer.drain()
            return True
        self.stats.requests += 1
        self.stats.prompt_tokens += prompt_tokens
        self.stats.processing += 1
        try:
            return await self._send_events(
                writer,
                beh,
                rid=rid,
                t_recv=t_recv,
                sends=sends,
                prompt_tokens=prompt_tokens,
                body=body,
                anthropic=anthropic,
            )
        finally:
            self.stats.processing -= 1

    async def _send_events(
        self,
        writer: asyncio.StreamWriter,
        beh: Behaviour,
        *,
        rid: str,
        t_recv: int,
        sends: list[list[Any]],
        prompt_tokens: int,
        body: dict[str, Any],
        anthropic: bool,
    ) -> bool:
        immediate = beh.ttft_ms == 0 and beh.gap_ms == 0 and beh.fault in ("", "no_done")
        want_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        key = (
            beh,
            anthropic,
            want_usage,
            str(body.get("model")),
            bool(body.get("response_format")),
            prompt_tokens,
        )
        if immediate and key in self._cache:
            data, kinds, generated = self._cache[key]
            writer.write(data.replace(_ID_PLACEHOLDER.encode(), rid.encode()))
            t_end = time.monotonic_ns()
            sends.extend([t_end, k, beh.tokens_per_chunk] for k in kinds)
            sends.append([t_end, "done", 0])
            self.stats.generated_tokens += generated
            await writer.drain()
            return True
        name = _ID_PLACEHOLDER if immediate else rid
        fmt = _AnthropicFormat(name) if anthropic else _OpenAIFormat(name, body)
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
            f"x-request-id: {name}\r\ntransfer-encoding: chunked\r\n\r\n"
        ).encode()
        out = bytearray(head)
        if beh.role_first:
            out += _chunk(fmt.opening())
        if not immediate:
            writer.write(bytes(out))
            sends.append([time.monotonic_ns(), "open", 0])
            out.clear()
        pieces = [("reasoning", i) for i in range(beh.reasoning)]
        pieces += [("content", i) for i in range(beh.chunks)]
        answer = _pieces(JSON_ANSWER, beh.chunks) if body.get("response_format") else None
        if answer is not None:
            pieces = pieces[: beh.reasoning + len(answer)]
        if not beh.role_first and pieces:
            out += _chunk(fmt.opening_with_nothing())
        generated = 0
        for n, (kind, _) in enumerate(pieces):
            if writer.transport.is_closing():
                return False  # the client gave up on this stream (its choice, not a fault)
            content_index = n - beh.reasoning
            if beh.fault in ("drop", "malformed", "hang") and content_index == beh.fault_after:
                if beh.fault == "drop":
                    writer.write(bytes(out))
                    await writer.drain()
                    writer.transport.abort()  # a reset, not a clean end of the body
                    return False
                if beh.fault == "hang":
                    writer.write(bytes(out))
                    await writer.drain()
                    await asyncio.sleep(3600)
                    return False
                out += _chunk(b'data: {"choices": [{"delta": {"content": "x"\n\n')
            k = _tokens_of(beh, content_index)
            text = _words(generated, k)
            if answer is not None and kind == "content":
                text = answer[content_index]
            generated += k
            event = fmt.delta(text, reasoning=kind == "reasoning")
            if immediate:
                out += _chunk(event)
                continue
            target = t_recv + int((beh.ttft_ms + n * beh.gap_ms) * 1e6)
            delay = (target - time.monotonic_ns()) / 1e9
            if delay > 0:
                await asyncio.sleep(delay)
            out += _chunk(event)
            writer.write(bytes(out))
            sends.append([time.monotonic_ns(), kind, k])
            out.clear()
        self.stats.generated_tokens += generated
        out += _chunk(fmt.finish(prompt_tokens, generated, beh.usage and want_usage))
        if beh.fault != "no_done":
            out += _chunk(fmt.done())
        out += b"0\r\n\r\n"
        data = bytes(out)
        if immediate:
            if len(self._cache) < 256:
                self._cache[key] = (data, [k for k, _ in pieces], generated)
            data = data.replace(_ID_PLACEHOLDER.encode(), rid.encode())
        t_end = time.monotonic_ns()
        writer.write(data)
        if immediate:
            for kind, _ in pieces:
                sends.append([t_end, kind, beh.tokens_per_chunk])
        sends.append([t_end, "done", 0])
        await writer.drain()
        return True

    async def serve(self, host: str = "127.0.0.1", port: int = 0) -> None:
        server = await asyncio.start_server(self.handle, host, port, limit=2**20)
        sock = server.sockets[0].getsockname()
        print(f"http://{sock[0]}:{sock[1]}", flush=True)
        async with server:
            await server.serve_forever()


class _OpenAIFormat:
    def __init__(self, rid: str, body: dict[str, Any]) -> None:
        self.prefix = (
            f'data: {{"id":"chatcmpl-{rid}","object":"chat.completion.chunk",'
            f'"model":{json.dumps(body.get("model", ""))},"choices":['
        ).encode()

    def opening(self) -> bytes:
        return self.prefix + b'{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n'

    def opening_with_nothing(self) -> bytes:
        return b""  # no role chunk: the first event carries text

    def delta(self, text: str, *, reasoning: bool) -> bytes:
        key = b"reasoning_content" if reasoning else b"content"
        return self.prefix + b'{"index":0,"delta":{"%s":%s}}]}\n\n' % (
            key,
            json.dumps(text).encode(),
        )

    def finish(self, prompt: int, generated: int, usage: bool) -> bytes:
        out = self.prefix + b'{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
        if usage:
            out += self.prefix + (
                b'],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}\n\n'
                % (prompt, generated, prompt + generated)
            )
        return out

    def done(self) -> bytes:
        return b"data: [DONE]\n\n"


class _AnthropicFormat:
    def __init__(self, rid: str) -> None:
        self.rid = rid
        self.block = -1
        self.block_kind = ""

    @staticmethod
    def _event(name: str, data: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    def opening(self) -> bytes:
        message: dict[str, Any] = {"id": f"msg_{self.rid}", "type": "message"}
        message |= {"role": "assistant", "content": [], "usage": {"input_tokens": 0}}
        return self._event("message_start", {"type": "message_start", "message": message})

    def opening_with_nothing(self) -> bytes:
        return b""

    def delta(self, text: str, *, reasoning: bool) -> bytes:
        kind = "thinking" if reasoning else "text"
        out = b""
        if kind != self.block_kind:
            if self.block >= 0:
                out += self._event(
                    "content_block_stop", {"type": "content_block_stop", "index": self.block}
                )
            self.block += 1
            self.block_kind = kind
            out += self._event(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": self.block,
                    "content_block": {"type": kind, kind: ""},
                },
            )
        delta = (
            {"type": "thinking_delta", "thinking": text}
            if reasoning
            else {"type": "text_delta", "text": text}
        )
        return out + self._event(
            "content_block_delta",
            {"type": "content_block_delta", "index": self.block} | {"delta": delta},
        )

    def finish(self, prompt: int, generated: int, usage: bool) -> bytes:
        out = b""
        if self.block >= 0:
            out += self._event(
                "content_block_stop", {"type": "content_block_stop", "index": self.block}
            )
        data: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
        if usage:
            data["usage"] = {"input_tokens": prompt, "output_tokens": generated}
        return out + self._event("message_delta", data)

    def done(self) -> bytes:
        return self._event("message_stop", {"type": "message_stop"})


@contextlib.contextmanager
def stub_process(timeout_s: float = 20.0) -> Iterator[str]:
    """Run the stub in a child process; yields its base URL and stops it on exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gaia_eval.throughput.stub", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + timeout_s
        line = proc.stdout.readline().strip()
        if not line.startswith("http://") or time.monotonic() > deadline:
            msg = f"the stub server did not start (it printed {line!r})"
            raise RuntimeError(msg)
        yield line
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(StubServer().serve(args.host, args.port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
