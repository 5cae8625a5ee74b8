"""Test configuration: no test reaches the network.

Every socket connect to a non-loopback address fails the test at once, so a test that
would silently depend on the internet is caught here rather than on an air-gapped machine.
"""

from __future__ import annotations

import atexit
import ipaddress
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

# No test writes the user's caches (embedding vectors, corpora): every cache root of the
# session, subprocesses included, is one temp folder. Set at import, before any fixture
# or module-scoped embedder reads it; tests that need a cold cache point it at tmp_path.
os.environ["GAIA_EVAL_CACHE"] = tempfile.mkdtemp(prefix="gaia-eval-test-cache-")
os.environ.pop("GAIA_EVAL_NO_EMBED_CACHE", None)
atexit.register(shutil.rmtree, os.environ["GAIA_EVAL_CACHE"], True)

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def _loopback(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class NetworkAccessError(AssertionError):
    """A test tried to reach a non-loopback address."""


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _loopback(address):
        msg = f"test tried to reach the network: {address!r}"
        raise NetworkAccessError(msg)
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _loopback(address):
        msg = f"test tried to reach the network: {address!r}"
        raise NetworkAccessError(msg)
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if host not in (None, "localhost", "127.0.0.1", "::1", b"localhost", b"127.0.0.1"):
        try:
            if not ipaddress.ip_address(host).is_loopback:
                raise NetworkAccessError(f"test tried to resolve {host!r}")
        except ValueError:
            raise NetworkAccessError(f"test tried to resolve {host!r}") from None
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    yield


@pytest.fixture(autouse=True)
def _isolated_lock(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests never contend with a real eval running on the developer's machine.
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path_factory.mktemp("lock")))
