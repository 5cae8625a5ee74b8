"""The model gateway over real sockets: loopback fakes of an upstream for what a real server
cannot do (a 401, a reset mid-stream, no usage, a client key, a timed stream), and the real
embedded `local` server for chat, streaming and /v1/messages with its own usage."""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest
from loopback import running, url_of

from gaia_eval.agents import gateway as gw
from gaia_eval.agents.gateway_usage import UsageReader

CONFIGURED_KEY = "sk-upstream-configured-0123456789abcdef"
CLIENT_KEY = "sk-client-own-key-fedcba9876543210"

Script = Callable[[BaseHTTPRequestHandler, dict[str, Any]], None]


class Upstream:
    """A fake model server: records every request (headers and JSON body) and answers it
    with the test's script, writing to the socket itself."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []


@contextmanager
def fake_upstream(script: Script) -> Iterator[tuple[Upstream, str]]:
    up = Upstream(script)

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(n) or b"{}")
            up.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            up.script(self, body)

    with running(H) as server:
        yield up, url_of(server)


def _send_json(h: BaseHTTPRequestHandler, status: int, data: object) -> None:
    blob = json.dumps(data).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(blob)))
    h.end_headers()
    h.wfile.write(blob)


def _start_sse(h: BaseHTTPRequestHandler) -> None:
    h.send_response(200)
    h.send_header("Content-Type", "text/event-stream")
    h.send_header("Transfer-Encoding", "chunked")
    h.end_headers()


def _chunk(h: BaseHTTPRequestHandler, text: str) -> None:
    data = text.encode()
    h.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
    h.wfile.flush()


def _end(h: BaseHTTPRequestHandler) -> None:
    h.wfile.write(b"0\r\n\r\n")
    h.wfile.flush()


OPENAI_BODY = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
    "usage": {
        "prompt_tokens": 40,
        "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 32},
    },
}


def test_key_swapped_and_never_forwarded_system_rewritten_and_counted() -> None:
    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _send_json(h, 200, OPENAI_BODY if "chat" in h.path else {
            "type": "message", "content": [{"type": "text", "text": "ok"}],
            "usage": {"input_tokens": 5, "cache_read_input_tokens": 20, "output_tokens": 3},
        })  # fmt: skip

    with fake_upstream(script) as (up, url), gw.running(gw.Upstream(url, CONFIGURED_KEY)) as g:
        base = gw.route(g.url, "task-a")
        messages = [
            {"role": "user", "content": "first"},
            {"role": "system", "content": "cwd: /tmp/x, git: clean"},
            {"role": "user", "content": "second"},
        ]
        r = httpx.post(
            f"{base}/v1/messages",
            json={"model": "m", "system": "top", "messages": messages},
            headers={"x-api-key": CLIENT_KEY, "Authorization": f"Bearer {CLIENT_KEY}"},
        )
        assert r.status_code == 200 and r.json()["content"][0]["text"] == "ok"
        chat = [{"role": "system", "content": "you are an agent"}, {"role": "user", "content": "q"}]
        r2 = httpx.post(
            f"{base}/v1/chat/completions", json={"model": "m", "messages": chat},
            headers={"Authorization": f"Bearer {CLIENT_KEY}"},
        )  # fmt: skip
        assert r2.json()["choices"][0]["message"]["content"] == "hi"
        totals = gw.fetch_totals(g.url, "task-a")
    (p1, h1, b1), (p2, h2, b2) = up.requests
    assert p1 == "/v1/messages" and p2 == "/v1/chat/completions"  # the tag is stripped
    for headers in (h1, h2):
        # The client's key never reaches the upstream; the configured one does, once.
        assert CLIENT_KEY not in json.dumps(headers)
        assert headers["authorization"] == f"Bearer {CONFIGURED_KEY}"
        assert "x-api-key" not in headers
    # /messages: the system-role entry became a user entry in its place; the top-level
    # system prompt is untouched. An OpenAI system message is the system prompt: kept.
    assert [m["role"] for m in b1["messages"]] == ["user", "user", "user"]
    assert b1["messages"][1]["content"] == "cwd: /tmp/x, git: clean" and b1["system"] == "top"
    assert [m["role"] for m in b2["messages"]] == ["system", "user"]
    assert totals == {
        "calls": 2, "input": 40 + 25, "cached": 32 + 20, "output": 7 + 3,
        "no_usage": 0, "unreachable": 0,
    }  # fmt: skip


def test_x_api_key_style_and_401_passes_through_with_no_count() -> None:
    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _send_json(h, 401, {"type": "error", "error": {"type": "authentication_error"}})

    upstream = gw.Upstream
    with (
        fake_upstream(script) as (up, url),
        gw.running(upstream(url, CONFIGURED_KEY, "x-api-key")) as g,
    ):
        r = httpx.post(
            f"{gw.route(g.url, 't')}/v1/messages", json={"messages": []},
            headers={"x-api-key": CLIENT_KEY},
        )  # fmt: skip
        totals = gw.fetch_totals(g.url, "t")
        (call,) = g.ledger.calls
    assert r.status_code == 401 and r.json()["error"]["type"] == "authentication_error"
    (_, headers, _) = up.requests[0]
    assert headers["x-api-key"] == CONFIGURED_KEY and "authorization" not in headers
    assert call.outcome == "http_error" and call.status == 401 and call.usage is None
    assert totals is not None and totals["calls"] == 1 and totals["no_usage"] == 0
    assert gw.show_tokens(totals) == "0/0"  # an error reply is not an answered call


@pytest.mark.parametrize("status", [200, 401])
def test_a_call_is_counted_before_the_client_has_the_whole_reply(
    status: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A slow ledger widens the window in which a gateway that counted after the closing
    # chunk would answer the totals without this call; counted first, the client cannot
    # have the end of the reply before the count exists, however the threads are scheduled.
    add = gw.Ledger.add

    def slow_add(self: gw.Ledger, call: gw.Call) -> None:
        threading.Event().wait(0.3)
        add(self, call)

    monkeypatch.setattr(gw.Ledger, "add", slow_add)

    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if status != 200:
            _send_json(h, status, {"error": {"type": "authentication_error"}})
            return
        _start_sse(h)
        _chunk(h, 'data: {"choices":[{"delta":{"content":"one"}}]}\n\n')
        _chunk(h, 'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}\n\n')
        _chunk(h, "data: [DONE]\n\n")
        _end(h)

    with fake_upstream(script) as (_, url), gw.running(gw.Upstream(url)) as g:
        body = {"model": "m", "stream": True, "messages": []}
        r = httpx.post(f"{gw.route(g.url, 'w')}/v1/chat/completions", json=body, timeout=10)
        totals = gw.fetch_totals(g.url, "w")
    assert r.status_code == status
    assert totals is not None and totals["calls"] == 1
    assert (totals["input"], totals["output"]) == ((3, 1) if status == 200 else (0, 0))


def test_stream_is_not_buffered() -> None:
    seen_first = threading.Event()

    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _start_sse(h)
        _chunk(h, 'data: {"choices":[{"delta":{"content":"one"}}]}\n\n')
        # Chunk 2 leaves only once the client has read chunk 1 through the gateway.
        assert seen_first.wait(10), "the client never saw chunk 1 before chunk 2 was sent"
        _chunk(h, 'data: {"choices":[{"delta":{"content":"two"}}]}\n\n')
        _chunk(h, 'data: {"choices":[],"usage":{"prompt_tokens":11,"completion_tokens":2}}\n\n')
        _chunk(h, "data: [DONE]\n\n")
        _end(h)

    with fake_upstream(script) as (up, url), gw.running(gw.Upstream(url)) as g:
        port = int(g.url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request(
            "POST", "/t/s/v1/chat/completions",
            body=json.dumps({"model": "m", "stream": True, "messages": []}),
            headers={"Content-Type": "application/json"},
        )  # fmt: skip
        reply = conn.getresponse()
        first = b""
        while b"one" not in first:
            first += reply.read1(4096)
        assert b"two" not in first
        seen_first.set()
        rest = reply.read()
        conn.close()
        totals = gw.fetch_totals(g.url, "s")
    assert b"two" in rest and b"[DONE]" in rest
    # The stream asked for its usage chunk; its counts are the call's.
    assert up.requests[0][2]["stream_options"] == {"include_usage": True}
    assert totals is not None and (totals["input"], totals["output"]) == (11, 2)


def test_streamed_anthropic_usage_takes_the_cumulative_counts() -> None:
    events = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 30, "output_tokens": 1}}},
        {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "message_delta", "usage": {"output_tokens": 9}},
        {"type": "message_delta", "usage": {"output_tokens": 12}},
        {"type": "message_stop"},
    ]

    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _start_sse(h)
        for ev in events:
            _chunk(h, f"event: {ev['type']}\ndata: {json.dumps(ev)}\n\n")
        _end(h)

    with fake_upstream(script) as (_, url), gw.running(gw.Upstream(url)) as g:
        r = httpx.post(f"{gw.route(g.url, 'a')}/v1/messages", json={"stream": True, "messages": []})
        assert "message_stop" in r.text
        totals = gw.fetch_totals(g.url, "a")
    assert totals is not None and (totals["input"], totals["output"]) == (30, 12)


def test_reply_without_usage_is_na_never_zero() -> None:
    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if body.get("stream"):  # what some servers do on streamed Anthropic replies
            _start_sse(h)
            _chunk(
                h, 'data: {"type":"message_delta","usage":{"input_tokens":0,"output_tokens":0}}\n\n'
            )
            _end(h)
        else:
            _send_json(h, 200, {"choices": [{"message": {"content": "x"}}]})

    with fake_upstream(script) as (_, url), gw.running(gw.Upstream(url)) as g:
        httpx.post(f"{gw.route(g.url, 'n')}/v1/chat/completions", json={"messages": []})
        httpx.post(f"{gw.route(g.url, 'n')}/v1/messages", json={"stream": True, "messages": []})
        totals = gw.fetch_totals(g.url, "n")
    assert totals is not None and totals["no_usage"] == 2 and totals["calls"] == 2
    assert not gw.tokens_known(totals) and gw.show_tokens(totals) == "n/a"
    assert all(c.usage is None for c in g.ledger.calls)


def test_reset_mid_stream_is_cut_for_the_client_and_counted() -> None:
    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _start_sse(h)
        _chunk(h, 'data: {"choices":[{"delta":{"content":"par"}}]}\n\n')
        # A hard reset (RST), mid-reply.
        h.connection.setsockopt(
            socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
        )
        h.connection.close()
        h.close_connection = True

    with fake_upstream(script) as (_, url), gw.running(gw.Upstream(url)) as g:
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(f"{gw.route(g.url, 'r')}/v1/chat/completions", json={"stream": True})
        totals = gw.fetch_totals(g.url, "r")
    assert totals is not None and totals["unreachable"] == 1
    assert g.ledger.calls[0].outcome == "reset"


def test_unreachable_upstream_is_a_typed_502() -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with gw.running(gw.Upstream(f"http://127.0.0.1:{port}")) as g:
        r = httpx.post(f"{gw.route(g.url, 'u')}/v1/chat/completions", json={})
        totals = gw.fetch_totals(g.url, "u")
    assert r.status_code == 502 and r.json()["error"]["type"] == gw.UNREACHABLE
    assert totals is not None and totals["unreachable"] == 1 and totals["calls"] == 1


def test_usage_reader_handles_split_lines() -> None:
    reader = UsageReader("text/event-stream")
    blob = b'data: {"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n'
    for i in range(len(blob)):
        reader.feed(blob[i : i + 1])
    usage = reader.usage()
    assert usage is not None and (usage.input, usage.output) == (3, 4)


def test_bad_upstream_is_exit_2() -> None:
    from gaia_eval.core.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="--upstream"):
        gw.Upstream("ftp://x")


# ---- the real local server -------------------------------------------------------------


def _server_counters(base: str) -> dict[str, float]:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    out = {}
    for line in text.splitlines():
        if line.startswith("llamacpp:") and " " in line:
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def test_real_local_server_through_the_gateway(local_model: Any) -> None:
    root = local_model.base_url
    with gw.running(gw.Upstream(root, CONFIGURED_KEY)) as g:
        base = gw.route(g.url, "real")
        q = [{"role": "user", "content": "What is the capital of France?"}]
        # Plain chat: the gateway's count is the server's own usage, exactly.
        r = httpx.post(
            f"{base}/v1/chat/completions", json={"messages": q, "max_tokens": 6}, timeout=120
        )
        usage = r.json()["usage"]
        one = gw.fetch_totals(g.url, "real")
        assert one is not None
        assert (one["input"], one["output"]) == (usage["prompt_tokens"], usage["completion_tokens"])
        # Streaming: several chunks, the usage chunk counted.
        before = _server_counters(root)
        with httpx.stream(
            "POST", f"{base}/v1/chat/completions",
            json={"messages": q, "max_tokens": 6, "stream": True}, timeout=120,
        ) as s:  # fmt: skip
            lines = [ln for ln in s.iter_lines() if ln.startswith("data:")]
        after = _server_counters(root)
        two = gw.fetch_totals(g.url, "real")
        assert two is not None and len(lines) >= 3
        predicted = (
            after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
        )
        assert two["output"] - one["output"] == predicted > 0
        # Anthropic Messages (what the claude-code harness speaks), streamed too.
        m = httpx.post(
            f"{base}/v1/messages",
            json={"model": "m", "max_tokens": 6, "messages": [
                {"role": "user", "content": "Say hi."},
                {"role": "system", "content": "Context: cwd is /tmp."},
            ]},
            timeout=120,
        )  # fmt: skip
        body = m.json()
        three = gw.fetch_totals(g.url, "real")
        assert m.status_code == 200 and three is not None
        assert three["output"] - two["output"] == body["usage"]["output_tokens"] > 0
        with httpx.stream(
            "POST", f"{base}/v1/messages",
            json={"model": "m", "max_tokens": 5, "stream": True, "messages": q}, timeout=120,
        ) as s:  # fmt: skip
            events = [json.loads(ln[5:]) for ln in s.iter_lines() if ln.startswith("data:")]
        four = gw.fetch_totals(g.url, "real")
    assert four is not None and four["calls"] == 4 and four["no_usage"] == 0
    deltas = [e["usage"]["output_tokens"] for e in events if e.get("type") == "message_delta"]
    assert deltas and four["output"] - three["output"] == max(deltas) > 0


def test_gateway_command_in_the_foreground_until_ctrl_c(tmp_path: Any) -> None:
    import signal
    import subprocess
    import sys

    def script(h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        _send_json(h, 200, OPENAI_BODY)

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with fake_upstream(script) as (up, url):
        env = {**os.environ, "MY_UPSTREAM_KEY": CONFIGURED_KEY}
        proc = subprocess.Popen(
            [sys.executable, "-m", "gaia_eval", "tasks", "gateway", "--port", str(port),
             "--upstream", url, "--upstream-key-env", "MY_UPSTREAM_KEY"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert f"http://127.0.0.1:{port} -> {url}" in first and CONFIGURED_KEY not in first
            r = httpx.post(f"http://127.0.0.1:{port}/t/x/v1/chat/completions", json={})
            assert r.json()["usage"]["prompt_tokens"] == 40
            proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 0
    assert "stopped after 1 calls, tokens in/out 40/7" in out
    assert up.requests[0][1]["authorization"] == f"Bearer {CONFIGURED_KEY}"


def _raw_request(url: str, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
    """Send bytes the way a broken client would; (status, body) of the reply."""
    parts = httpx.URL(url)
    with socket.create_connection((parts.host, parts.port), timeout=30) as sock:
        sock.sendall(head + b"\r\n" + body)
        reply = http.client.HTTPResponse(sock)
        reply.begin()
        return reply.status, reply.read()


@pytest.mark.parametrize("length", [b"abc", b"-5", b"1e3"])
def test_a_bad_content_length_is_a_400_not_a_dropped_connection(length: bytes) -> None:
    with (
        fake_upstream(lambda h, b: _send_json(h, 200, OPENAI_BODY)) as (up, url),
        gw.running(gw.Upstream(url, CONFIGURED_KEY)) as g,
    ):
        head = (
            b"POST /t/x/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: " + length + b"\r\n"
        )
        status, body = _raw_request(g.url, head, b"{}")
    assert status == 400
    assert b"Content-Length" in body and b"not a whole number" in body
    assert up.requests == []  # nothing was forwarded


def test_a_chunked_request_body_is_forwarded_whole() -> None:
    with (
        fake_upstream(lambda h, b: _send_json(h, 200, OPENAI_BODY)) as (up, url),
        gw.running(gw.Upstream(url, CONFIGURED_KEY)) as g,
    ):
        payload = json.dumps({"model": "m", "messages": [{"role": "user", "content": "q"}]})
        data = payload.encode()
        chunks = b"".join(
            b"%x\r\n%s\r\n" % (len(data[i : i + 7]), data[i : i + 7])
            for i in range(0, len(data), 7)
        )
        head = (
            b"POST /t/x/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
        )
        status, _ = _raw_request(g.url, head, chunks + b"0\r\n\r\n")
    assert status == 200
    assert up.requests[0][2] == json.loads(payload)


def test_usage_reader_splits_many_lines_per_read_and_skips_an_oversized_line() -> None:
    from gaia_eval.agents.gateway_usage import BODY_CAP

    reader = UsageReader("text/event-stream")
    reader.feed(b":\n" * 500_000)  # a million bytes of 2-byte comment lines in one read
    huge = b"data: " + b"x" * 65536
    for _ in range(BODY_CAP // 65536 + 2):  # one event past the cap, read by read
        reader.feed(huge)
        assert len(reader._buf) <= BODY_CAP + len(huge)
    reader.feed(b"\n")
    reader.feed(b'data: {"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n')
    usage = reader.usage()
    assert usage is not None and (usage.input, usage.output) == (3, 4)


def test_usage_reader_ignores_an_event_nested_too_deeply() -> None:
    reader = UsageReader("text/event-stream")
    reader.feed(b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    reader.feed(b'data: {"usage":{"prompt_tokens":3,"completion_tokens":4}}\n')
    usage = reader.usage()
    assert usage is not None and usage.output == 4
