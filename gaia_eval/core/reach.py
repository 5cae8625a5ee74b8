"""Is a server there? Before the first item the run loop dials every server the run will
call (`Suite.endpoints`): one TCP connect each, all at once, with a short timeout. A dead
backend is then one message in a few seconds instead of a run that sets up, starts, and
stops at its first item.

Only the connect is probed. A server that accepts and then answers 401, 404 or 500 is
found by the first request, which classifies it as an outage (llm/outage.py); probing
with a real request would spend a model call, and on a metered backend money.
"""

from __future__ import annotations

import socket
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass

PROBE_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Endpoint:
    """A server a configured run will call."""

    what: str
    """Who calls it, for the message: the flag and its value (`--judge-model 'openai:...'`)."""
    url: str
    """Its base URL (http:// or https://)."""
    proxied: bool = False
    """The client honours HTTP(S)_PROXY / NO_PROXY (the anthropic SDK does; our own
    OpenAI-compatible clients do not), so the probe dials the proxy when one applies."""


def target(endpoint: Endpoint) -> tuple[str, int, str]:
    """(host, port, "through the proxy ..." or "") the client will actually dial."""
    parts = urllib.parse.urlsplit(endpoint.url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if endpoint.proxied and host and not urllib.request.proxy_bypass(host):
        proxy = urllib.request.getproxies().get(parts.scheme)
        if proxy:
            p = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
            if p.hostname:
                port = p.port or 80
                return p.hostname, port, f"through the proxy {p.hostname}:{port}: "
    return host, port, ""


def unreachable(endpoint: Endpoint, timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why nothing answers at `endpoint` (None: a TCP connection was accepted)."""
    host, port, via = target(endpoint)
    if not host:
        return f"{endpoint.url!r} names no host"
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except socket.gaierror as err:
        return f"{via}the host name {host!r} does not resolve ({err.strerror or err})"
    except TimeoutError:
        return f"{via}no answer from {host}:{port} within {timeout_s:g} s"
    except OSError as err:
        return f"{via}{err.strerror or type(err).__name__} ({host}:{port})"


def down(endpoints: Sequence[Endpoint], timeout_s: float = PROBE_TIMEOUT_S) -> list[str]:
    """One line per server that does not answer, naming who needs it, the URL and the
    cause. Probed concurrently; a server two roles share is dialled once."""
    by_url: dict[str, list[str]] = {}
    proxied: dict[str, bool] = {}
    for e in endpoints:
        whats = by_url.setdefault(e.url, [])
        if e.what not in whats:
            whats.append(e.what)
        proxied[e.url] = proxied.get(e.url, False) or e.proxied
    if not by_url:
        return []
    from concurrent.futures import ThreadPoolExecutor  # only when there is something to dial

    probes = [Endpoint(" and ".join(w), url, proxied[url]) for url, w in by_url.items()]
    with ThreadPoolExecutor(max_workers=min(8, len(probes))) as pool:
        causes = list(pool.map(lambda e: unreachable(e, timeout_s), probes))
    return [
        f"{e.what}: nothing answers at {e.url} ({cause}); {_fix(e)}"
        for e, cause in zip(probes, causes, strict=True)
        if cause is not None
    ]


def _fix(endpoint: Endpoint) -> str:
    host = target(endpoint)[0]
    if host == "localhost" or host.startswith("127.") or host == "::1":
        return "start the server or fix the URL"
    return "check the URL and that this machine reaches it"
