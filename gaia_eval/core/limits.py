"""One limiter per backend: a cap on requests in flight and a shared backoff.

With `--jobs N` several items call the same server at once (the model, the judge, the
agent's driver, the embedder, the gateway's upstream). Every HTTP client asks
`limiter(base_url)` for the endpoint's one Limiter and sends each request inside
`with lim.slot():`. The slot waits while the endpoint is backing off and while `cap`
requests are already in flight. A client that sees a 429 / overload / `Retry-After` calls
`lim.throttled(retry_after)`: every worker then waits until the backoff ends, instead of N
workers hammering a rate-limited API. The delay is `Retry-After` when the server says one,
else exponential in the consecutive throttles (`BASE_S * 2**k`, capped at `MAX_S`), with
jitter so the workers do not all come back at the same instant.

This is mechanism only (no HTTP), so the llm and embed clients and the agents' gateway
share it and the run loop records it: `configure(jobs)` at the start of a run sets the
default cap, `usage()` at its end is what the header's `concurrency.endpoints` records,
`waiting()` is the backoff the progress line shows.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

BASE_S = 1.0
"""First backoff when the server names no delay."""
MAX_S = 60.0
"""Longest single backoff."""
JITTER = 0.25
"""The delay is stretched by up to this fraction at random."""
THROTTLE_STATUSES = frozenset({429, 529})
"""Rate limited (429), overloaded (Anthropic's 529); a 503 only with a `Retry-After` (a
plain 503 is a server down, an outage after the usual few retries)."""


def is_throttle(status: int, retry_after: float | None) -> bool:
    """The reply asks the client to slow down (and send again later)."""
    return status in THROTTLE_STATUSES or (status == 503 and retry_after is not None)


def endpoint_key(base_url: str) -> str:
    """`scheme://host:port` of a base URL: the limiter's key, and what a run records (no
    path, no query, no credentials)."""
    parts = urlsplit(base_url if "://" in base_url else f"http://{base_url}")
    host = parts.hostname or base_url
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme or 'http'}://{host}:{port}"


def retry_after_s(value: str | None) -> float | None:
    """Seconds of a `Retry-After` header (delta-seconds only; a date is ignored)."""
    if not value:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if 0 <= seconds <= 3600 else None


@dataclass
class EndpointUsage:
    """What one endpoint's limiter saw during a run."""

    cap: int
    requests: int = 0
    throttled: int = 0
    backoff_s: float = 0.0
    """Wall seconds the endpoint spent in backoff (overlapping backoffs counted once)."""


class Limiter:
    """The cap and backoff of one endpoint, shared by every thread."""

    def __init__(self, key: str, cap: int, *, rng: random.Random | None = None) -> None:
        self.key = key
        self._cond = threading.Condition()
        self._cap = max(1, cap)
        self._in_flight = 0
        self._until = 0.0
        self._streak = 0
        self._rng = rng or random.Random()
        self.usage = EndpointUsage(cap=self._cap)

    @property
    def cap(self) -> int:
        return self._cap

    def set_cap(self, cap: int) -> None:
        with self._cond:
            self._cap = max(1, cap)
            self.usage.cap = self._cap
            self._cond.notify_all()

    def backoff_left(self) -> float:
        return max(0.0, self._until - time.monotonic())

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the endpoint's request slots (waiting out any backoff first)."""
        with self._cond:
            while True:
                left = self._until - time.monotonic()
                if left > 0:
                    self._cond.wait(timeout=left)
                    continue
                if self._in_flight >= self._cap:
                    self._cond.wait(timeout=1.0)
                    continue
                break
            self._in_flight += 1
            self.usage.requests += 1
        try:
            yield
        finally:
            with self._cond:
                self._in_flight -= 1
                self._cond.notify_all()

    def ok(self) -> None:
        """A request went through: the next throttle starts the backoff from the bottom."""
        with self._cond:
            self._streak = 0

    def throttled(self, retry_after: float | None = None, *, base_s: float = BASE_S) -> float:
        """The server said slow down: every worker waits. Returns the delay set."""
        with self._cond:
            self.usage.throttled += 1
            if retry_after is not None:
                delay = retry_after
            else:
                delay = min(MAX_S, base_s * 2**self._streak)
            self._streak += 1
            delay *= 1.0 + JITTER * self._rng.random()
            now = time.monotonic()
            until = now + delay
            if until > self._until:
                # Count only the part not already covered by a running backoff.
                self.usage.backoff_s += until - max(now, self._until)
                self._until = until
            self._cond.notify_all()
            return delay


_lock = threading.Lock()
_limiters: dict[str, Limiter] = {}
UNCONFIGURED_CAP = 64
"""Outside a run (a standalone `tasks gateway`) no --jobs says what fits: only the backoff."""
_caps: dict[str, int] = {}
_state = {"default_cap": UNCONFIGURED_CAP}


def configure(jobs: int, caps: dict[str, int] | None = None) -> None:
    """A run starts: endpoints get `jobs` slots unless a cap is set for them (the local
    server's slot count, kept from `set_cap`); what earlier runs in this process saw is
    forgotten."""
    with _lock:
        _state["default_cap"] = max(1, jobs)
        _limiters.clear()
        for url, cap in (caps or {}).items():
            _caps[endpoint_key(url)] = cap


def set_cap(base_url: str, cap: int) -> None:
    """Cap the requests in flight to one endpoint (the local server: its slots)."""
    key = endpoint_key(base_url)
    with _lock:
        _caps[key] = cap
        lim = _limiters.get(key)
    if lim is not None:
        lim.set_cap(cap)


def limiter(base_url: str) -> Limiter:
    """The one Limiter of the endpoint serving `base_url`."""
    key = endpoint_key(base_url)
    with _lock:
        lim = _limiters.get(key)
        if lim is None:
            lim = _limiters[key] = Limiter(key, _caps.get(key, _state["default_cap"]))
        return lim


def usage() -> dict[str, EndpointUsage]:
    """Every endpoint called since `configure`, by key."""
    with _lock:
        return {k: lim.usage for k, lim in sorted(_limiters.items())}


def waiting() -> float:
    """The longest backoff still running on any endpoint (0 when none)."""
    with _lock:
        lims = list(_limiters.values())
    return max((lim.backoff_left() for lim in lims), default=0.0)


__all__ = [
    "THROTTLE_STATUSES",
    "EndpointUsage",
    "Limiter",
    "configure",
    "endpoint_key",
    "is_throttle",
    "limiter",
    "retry_after_s",
    "set_cap",
    "usage",
    "waiting",
]
