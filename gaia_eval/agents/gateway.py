"""The model gateway: a loopback HTTP proxy in front of one OpenAI- or Anthropic-compatible
backend, so that no agent process ever holds a key (docs/tasks.md, "The model gateway").

- It drops the client's own credential (`authorization`, `x-api-key`) and hop-by-hop
  headers and adds the configured upstream key itself (bearer, or `x-api-key`).
- On Anthropic-format calls (a path ending in `/messages`) it rewrites `system`-role
  entries inside `messages` as `user` entries, in place: Claude Code puts per-turn context
  there and some servers drop it. An OpenAI `system` message is the system prompt and is
  left alone.
- It streams the reply through as it arrives (chunked, flushed per chunk, never buffered).
- It counts tokens per call from the upstream `usage` (JSON bodies, SSE `data:` lines;
  asks OpenAI streams for their final usage chunk). A reply without usage is `n/a`.
- An unreachable upstream is a 502 of type `gateway_upstream_unreachable`, counted as
  `unreachable`; a reply cut mid-stream is cut for the client too (never completed).
- It never logs headers or bodies. A request whose length is not a number is a 400; a
  chunked request body is read whole (up to REQUEST_CAP, else 413).

Calls are grouped by a tag in the path: `http://127.0.0.1:PORT/t/<tag>/v1/...` is
forwarded as `<upstream>/v1/...` and counted under <tag>; `GET /_gateway/usage?tag=<tag>`
returns that tag's totals, so one gateway can serve many tasks and runs at once.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from gaia_eval.agents.gateway_usage import Usage, UsageReader
from gaia_eval.core import limits
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.reach import Endpoint, unreachable

HOST = "127.0.0.1"
UNREACHABLE = "gateway_upstream_unreachable"
USAGE_PATH = "/_gateway/usage"
HEALTH_PATH = "/_gateway/health"
UPSTREAM_TIMEOUT_S = 600.0
# A request body past this is refused (413): a chat request is kilobytes to a few MB.
REQUEST_CAP = 64 * 1024 * 1024
# Never forwarded: the client's credential, and what describes this hop only.
_DROPPED_REQUEST = {
    "authorization",
    "x-api-key",
    "host",
    "content-length",
    "connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    # Identity encoding, so the usage in the reply can be read on the way through.
    "accept-encoding",
}
_DROPPED_REPLY = {"connection", "keep-alive", "transfer-encoding", "content-length", "trailer"}

AuthStyle = Literal["bearer", "x-api-key"]
Outcome = Literal["ok", "http_error", "unreachable", "reset"]


@dataclass(frozen=True)
class Call:
    """One forwarded request: what the counts and the outage rule read."""

    tag: str
    path: str
    status: int
    outcome: Outcome
    usage: Usage | None


@dataclass
class Ledger:
    """Every call, by tag; thread-safe (the server answers each request in its own thread)."""

    calls: list[Call] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, call: Call) -> None:
        with self.lock:
            self.calls.append(call)

    def totals(self, tag: str | None = None) -> dict[str, int]:
        """{calls, input, cached, output, no_usage, unreachable} over a tag's calls (or all).

        input/cached/output add up only the calls that reported usage; `no_usage` says how
        many did not, so a reader can tell a partial count (see `tokens_known`)."""
        with self.lock:
            mine = [c for c in self.calls if tag is None or c.tag == tag]
        out = {"calls": len(mine), "input": 0, "cached": 0, "output": 0}
        out["no_usage"] = sum(1 for c in mine if c.usage is None and c.outcome == "ok")
        out["unreachable"] = sum(1 for c in mine if c.outcome in ("unreachable", "reset"))
        for c in mine:
            if c.usage is not None:
                out["input"] += c.usage.input
                out["cached"] += c.usage.cached
                out["output"] += c.usage.output
        return out


def tokens_known(totals: dict[str, int] | None) -> bool:
    """True when every answered call reported usage (so the counts are the whole story)."""
    if not totals:
        return False
    return totals.get("no_usage", 0) == 0 and totals.get("calls", 0) > 0


def show_tokens(totals: dict[str, int] | None) -> str:
    """`in/out` of a tag's totals, or `n/a` when any answered call reported no usage."""
    if not tokens_known(totals):
        return "n/a"
    assert totals is not None
    return f"{totals['input']}/{totals['output']}"


@dataclass(frozen=True)
class Upstream:
    """The backend: its root URL (`http://host:port`, or with a path prefix), its key and
    how the key is sent."""

    url: str
    api_key: str | None = None
    auth: AuthStyle = "bearer"

    def __post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            msg = f"--upstream {self.url!r}: expected http(s)://host[:port][/prefix]"
            raise InvalidInputError(msg)

    @property
    def parts(self) -> urllib.parse.SplitResult:
        return urllib.parse.urlsplit(self.url)


def rewrite_request(path: str, body: bytes, content_type: str) -> bytes:
    """The request body as forwarded: system-role entries inside `messages` become user
    entries on Anthropic-format calls, and OpenAI streams ask for their usage chunk."""
    if "json" not in content_type.lower() or not body:
        return body
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if not isinstance(data, dict):
        return body
    changed = False
    route = path.split("?", 1)[0].rstrip("/")
    messages = data.get("messages")
    if route.endswith("/messages") and isinstance(messages, list):
        for entry in messages:
            if isinstance(entry, dict) and entry.get("role") == "system":
                entry["role"] = "user"  # in place: the order of the turns is kept
                changed = True
    if route.endswith("/chat/completions") and data.get("stream") is True:
        options = data.get("stream_options")
        if not isinstance(options, dict) or options.get("include_usage") is not True:
            data["stream_options"] = {**(options or {}), "include_usage": True}
            changed = True
    return json.dumps(data).encode("utf-8") if changed else body


def split_tag(path: str) -> tuple[str, str]:
    """(tag, upstream path) of `/t/<tag>/rest`; untagged paths have the tag ""."""
    if path.startswith("/t/"):
        tag, sep, rest = path[3:].partition("/")
        if sep:
            return urllib.parse.unquote(tag), "/" + rest
        return urllib.parse.unquote(tag), "/"
    return "", path


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: GatewayServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: a request line can carry a key in a query string."""

    def do_GET(self) -> None:
        if self.path.startswith(USAGE_PATH):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            tag = query.get("tag", [None])[0]
            self._json(200, self.server.ledger.totals(tag))
            return
        if self.path == HEALTH_PATH:
            self._json(200, {"ok": True, "upstream": self.server.upstream.url})
            return
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def do_PUT(self) -> None:
        self._forward()

    def do_DELETE(self) -> None:
        self._forward()

    def do_HEAD(self) -> None:
        self._forward()

    def _json(self, status: int, data: object) -> None:
        blob = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(blob)))
        self.end_headers()
        self.wfile.write(blob)

    def _forward(self) -> None:
        up = self.server.upstream
        tag, path = split_tag(self.path)
        body = self._request_body()
        if body is None:
            return  # answered (400, 411, 413) and counted
        body = rewrite_request(path, body, self.headers.get("Content-Type", ""))
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _DROPPED_REQUEST}
        if up.api_key:
            if up.auth == "x-api-key":
                headers["x-api-key"] = up.api_key
            else:
                headers["Authorization"] = f"Bearer {up.api_key}"
        headers["Content-Length"] = str(len(body))
        headers["Accept-Encoding"] = "identity"
        parts = up.parts
        target = parts.path.rstrip("/") + path
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(parts.hostname or HOST, parts.port, timeout=self.server.timeout_s)
        # The upstream's one limiter: every route of every worker shares its cap, and a
        # 429 / Retry-After one of them gets holds the others back too.
        lim = limits.limiter(up.url)
        with lim.slot():
            try:
                conn.request(self.command, target, body=body if body else None, headers=headers)
                reply = conn.getresponse()
            except (OSError, http.client.HTTPException) as err:
                conn.close()
                self.server.ledger.add(Call(tag, path, 502, "unreachable", None))
                why = f"upstream {up.url} unreachable: {type(err).__name__}"
                self._json(502, {"error": {"type": UNREACHABLE, "message": why}})
                return
            after = limits.retry_after_s(reply.getheader("Retry-After"))
            if limits.is_throttle(reply.status, after):
                lim.throttled(after)
            elif reply.status < 400:
                lim.ok()
            try:
                self._relay(reply, tag, path)
            finally:
                conn.close()

    def _refuse(self, status: int, why: str) -> None:
        tag, path = split_tag(self.path)
        self.server.ledger.add(Call(tag, path, status, "http_error", None))
        self.close_connection = True  # the rest of the request cannot be framed
        self._json(status, {"error": {"type": "gateway_bad_request", "message": why}})

    def _request_body(self) -> bytes | None:
        """The request body, framed by Content-Length or chunked; None once refused.

        A length that is not a whole number (`abc`, `-5`) is a 400, never a traceback and a
        dropped connection; a chunked body is read (it used to be forwarded as empty)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._chunked_body()
        raw = (self.headers.get("Content-Length") or "0").strip()
        if not raw.isdigit():
            self._refuse(400, f"Content-Length {raw[:40]!r} is not a whole number of bytes")
            return None
        length = int(raw)
        if length > REQUEST_CAP:
            self._refuse(413, f"request body over {REQUEST_CAP} bytes")
            return None
        return self.rfile.read(length) if length else b""

    def _chunked_body(self) -> bytes | None:
        body = bytearray()
        while True:
            line = self.rfile.readline(1024).split(b";", 1)[0].strip()
            try:
                size = int(line, 16)
            except ValueError:
                size = -1
            if size < 0:
                self._refuse(400, "a chunk of the request body has no valid size line")
                return None
            if len(body) + size > REQUEST_CAP:
                self._refuse(413, f"request body over {REQUEST_CAP} bytes")
                return None
            if size == 0:
                while self.rfile.readline(1024).strip():  # trailers, up to the blank line
                    pass
                return bytes(body)
            body += self.rfile.read(size)
            self.rfile.readline(1024)  # the CRLF after the chunk

    def _relay(self, reply: http.client.HTTPResponse, tag: str, path: str) -> None:
        reader = UsageReader(reply.getheader("Content-Type", ""))
        self.send_response(reply.status, reply.reason)
        for k, v in reply.getheaders():
            if k.lower() not in _DROPPED_REPLY:
                self.send_header(k, v)
        # No body may follow a HEAD, a 1xx, a 204 or a 304.
        chunked = self.command != "HEAD" and reply.status >= 200 and reply.status not in (204, 304)
        outcome: Outcome = "ok" if reply.status < 400 else "http_error"
        if not chunked:
            # The headers are the whole reply: the call is counted before they leave.
            self.server.ledger.add(Call(tag, path, reply.status, outcome, None))
            self.end_headers()
            return
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            while True:
                data = reply.read1(65536)
                if not data:
                    break
                reader.feed(data)
                # One chunk per read, flushed at once: an SSE event reaches the client
                # when it leaves the upstream, not when the reply ends.
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
        except (OSError, http.client.HTTPException):
            # Cut upstream: the client's reply is cut too (no closing chunk), so it sees
            # a broken stream rather than a short one that looks complete.
            self.server.ledger.add(Call(tag, path, reply.status, "reset", reader.usage()))
            self.close_connection = True
            return
        # Counted before the closing chunk: a client that has the whole reply and asks for
        # its totals at once (a run after its agent exits) must find this call in them.
        usage = reader.usage() if outcome == "ok" else None
        self.server.ledger.add(Call(tag, path, reply.status, outcome, usage))
        try:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True


class GatewayServer(ThreadingHTTPServer):
    daemon_threads = True
    # Quick rebinding for `tasks gateway --port N` restarted at once.
    allow_reuse_address = True

    def __init__(self, upstream: Upstream, port: int = 0, timeout_s: float = UPSTREAM_TIMEOUT_S):
        self.upstream = upstream
        self.ledger = Ledger()
        self.timeout_s = timeout_s
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as err:
            msg = f"--port {port}: cannot listen on {HOST}:{port} ({err}); pick another port or 0"
            raise InvalidInputError(msg) from err

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"


class Gateway:
    """A gateway served from a background thread; a context manager."""

    def __init__(self, upstream: Upstream, port: int = 0) -> None:
        self.server = GatewayServer(upstream, port)
        self._thread = threading.Thread(
            target=self.server.serve_forever, name="gaia-eval-gateway", daemon=True
        )

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def ledger(self) -> Ledger:
        return self.server.ledger

    def start(self) -> Gateway:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Gateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def running(upstream: Upstream, port: int = 0) -> Iterator[Gateway]:
    with Gateway(upstream, port) as gw:
        yield gw


def route(gateway_url: str, tag: str) -> str:
    """The base URL a client uses to have its calls counted under `tag`."""
    return f"{gateway_url.rstrip('/')}/t/{urllib.parse.quote(tag, safe='')}"


def fetch_totals(gateway_url: str, tag: str, timeout_s: float = 10.0) -> dict[str, int] | None:
    """A tag's totals from a running gateway (ours or `--gateway-url`); None if it does not
    answer (an external gateway that is not ours)."""
    parts = urllib.parse.urlsplit(gateway_url)
    query = urllib.parse.urlencode({"tag": tag})
    conn = http.client.HTTPConnection(parts.hostname or HOST, parts.port, timeout=timeout_s)
    try:
        conn.request("GET", f"{parts.path.rstrip('/')}{USAGE_PATH}?{query}")
        reply = conn.getresponse()
        data = json.loads(reply.read()) if reply.status == 200 else None
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        conn.close()
    if not isinstance(data, dict):
        return None
    return {str(k): int(v) for k, v in data.items() if isinstance(v, int)}


def check_reachable(gateway_url: str, timeout_s: float = 5.0) -> None:
    """`--gateway-url`: refuse one that does not answer as a gateway (exit 3)."""
    parts = urllib.parse.urlsplit(gateway_url)
    if parts.scheme != "http" or not parts.hostname:
        msg = f"--gateway-url {gateway_url!r}: expected http://host:port of `tasks gateway`"
        raise InvalidInputError(msg)
    cause = unreachable(Endpoint("--gateway-url", gateway_url), timeout_s)
    if cause is not None:
        msg = f"--gateway-url {gateway_url}: no gateway answers ({cause}); start `tasks gateway`"
        raise InfrastructureError(msg)
