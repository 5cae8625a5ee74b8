"""A loopback OpenAI-compatible chat server that answers after a fixed delay.

The `engine` bench area measures the run loop's `--jobs` against it (the ideal wall time
is ceil(items / N) x delay: the work is waiting, not computing), and the engine's tests
use it to show the shared backoff: `throttle_every=k` answers every k-th request with 429
and `Retry-After`. The reply is a pure function of the last user message, so a run's
results do not depend on which request reached the server first.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class ServerLog:
    """What the server saw: every request's arrival (monotonic seconds) and status."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    arrivals: list[tuple[float, int]] = field(default_factory=list)
    in_flight: int = 0
    most_in_flight: int = 0

    @property
    def requests(self) -> int:
        return len(self.arrivals)

    def throttles(self) -> list[float]:
        return [t for t, status in self.arrivals if status == 429]


def reply_text(prompt: str) -> str:
    """The answer to `prompt`: deterministic, so any order of requests gives the same."""
    return f"echo: {prompt[::-1]}"


def _handler(delay_s: float, throttle_every: int, retry_after: str, log: ServerLog) -> type:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            return

        def do_GET(self) -> None:  # reachability probes
            self._send(200, {"data": [{"id": "m"}]})

        def do_POST(self) -> None:
            size = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(size) or b"{}")
            with log.lock:
                n = len(log.arrivals) + 1
                throttle = throttle_every > 0 and n % throttle_every == 0
                log.arrivals.append((time.monotonic(), 429 if throttle else 200))
                log.in_flight += 1
                log.most_in_flight = max(log.most_in_flight, log.in_flight)
            try:
                if throttle:
                    msg = {"error": {"message": "rate limit: slow down", "type": "rate_limit"}}
                    self._send(429, msg, {"retry-after": retry_after})
                    return
                time.sleep(delay_s)
                users = [m for m in body.get("messages", []) if m.get("role") == "user"]
                prompt = str(users[-1].get("content", "")) if users else ""
                text = reply_text(prompt)
                self._send(
                    200,
                    {
                        "id": f"r{n}",
                        "object": "chat.completion",
                        "model": str(body.get("model", "m")),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": len(prompt.split()),
                            "completion_tokens": len(text.split()),
                            "total_tokens": len(prompt.split()) + len(text.split()),
                        },
                    },
                )
            finally:
                with log.lock:
                    log.in_flight -= 1

        def _send(
            self, status: int, payload: object, headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 16 workers connecting at once must not wait on the backlog


@contextmanager
def delayed_model(
    delay_s: float = 0.5, *, throttle_every: int = 0, retry_after: str = "1"
) -> Iterator[tuple[str, ServerLog]]:
    """(base URL `http://127.0.0.1:PORT/v1`, its log) of a running server, shut down and
    joined when the block ends."""
    log = ServerLog()
    server = _Server(("127.0.0.1", 0), _handler(delay_s, throttle_every, retry_after, log))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
