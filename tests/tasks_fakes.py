"""A scripted fake of the OpenAI chat-completions and Anthropic Messages APIs, served for
real over HTTP on 127.0.0.1 from a thread (helper for the tasks tests)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import running, url_of

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


class FakeLLM:
    """Pops one scripted reply per request. A reply is a dict: {"status": int, "body": ...}
    for a raw answer, or {"content": str} / {"tool_calls": [(name, args), ...]} (and an
    optional "usage"). When the script is used up, `answer(body)` replies (default: "I am
    done."), for fakes that answer by what they are asked."""

    def __init__(
        self,
        replies: list[Reply] | None = None,
        answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.replies = list(replies or [])
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.lock = threading.Lock()

    def next_reply(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.requests.append(body)
            if not self.replies:
                r: Reply = self.answer or {"content": "I am done."}
            else:
                r = self.replies.pop(0)
        return r(body) if callable(r) else r


def _openai_body(reply: dict[str, Any], n: int) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    if reply.get("tool_calls"):
        msg["tool_calls"] = [
            {
                "id": f"call_{n}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
            for i, (name, args) in enumerate(reply["tool_calls"])
        ]
    usage = reply.get("usage", {"prompt_tokens": 100, "completion_tokens": 20})
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "model": "fake",
        "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
        "usage": usage,
    }


def _anthropic_body(reply: dict[str, Any], n: int) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake",
        "content": [{"type": "text", "text": reply.get("content", "")}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1000, "output_tokens": 200},
    }


@contextmanager
def serve(fake: FakeLLM) -> Iterator[str]:
    """Serve `fake` on 127.0.0.1; yields the base URL (http://127.0.0.1:PORT)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.paths.append(self.path)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            reply = fake.next_reply(body)
            n = len(fake.requests)
            if "status" in reply:
                status, payload = reply["status"], reply.get("body", {})
            elif self.path.endswith("/messages"):
                status, payload = 200, _anthropic_body(reply, n)
            else:
                status, payload = 200, _openai_body(reply, n)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    with running(Handler) as server:
        yield url_of(server)


def closed_port_url() -> str:
    """A loopback URL nothing listens on."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


@contextmanager
def hang_up() -> Iterator[str]:
    """A loopback URL that accepts every connection and closes it unanswered: it passes the
    pre-run reachability probe, so the outage shows at the first request (mid-run)."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()
