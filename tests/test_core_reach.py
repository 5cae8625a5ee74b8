"""The pre-run reachability probe (gaia_eval.core.reach): real sockets on loopback."""

from __future__ import annotations

import socket
import time

import pytest
from tasks_fakes import closed_port_url

from gaia_eval.core.reach import Endpoint, down, target, unreachable


def test_a_listening_server_is_reachable_and_a_closed_port_is_not() -> None:
    with socket.create_server(("127.0.0.1", 0)) as live:
        url = f"http://127.0.0.1:{live.getsockname()[1]}/v1"
        assert unreachable(Endpoint("--model m", url)) is None
        assert down([Endpoint("--model m", url)]) == []
    dead = closed_port_url()
    cause = unreachable(Endpoint("--model m", dead))
    assert cause is not None and "Connection refused" in cause and dead.split("//")[1] in cause


def test_default_ports_follow_the_scheme() -> None:
    assert target(Endpoint("x", "https://api.example.test/v1"))[:2] == ("api.example.test", 443)
    assert target(Endpoint("x", "http://api.example.test"))[:2] == ("api.example.test", 80)
    assert target(Endpoint("x", "http://[::1]:8080/v1"))[:2] == ("::1", 8080)


def test_an_unresolvable_host_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_such_name(host: object, *args: object, **kwargs: object) -> object:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    # The resolver's answer for a name that does not exist (tests never reach DNS).
    monkeypatch.setattr(socket, "getaddrinfo", no_such_name)
    cause = unreachable(Endpoint("x", "http://no-such-host.invalid:80"))
    assert cause is not None and "'no-such-host.invalid' does not resolve" in cause


def test_a_url_without_a_host_is_named() -> None:
    assert unreachable(Endpoint("x", "http:///v1")) == "'http:///v1' names no host"


def test_a_proxied_client_is_probed_at_its_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    proxy = closed_port_url()
    monkeypatch.setenv("https_proxy", proxy)
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    port = int(proxy.rsplit(":", 1)[1])
    via = Endpoint("--judge a", "https://api.anthropic.com", proxied=True)
    assert target(via) == ("127.0.0.1", port, f"through the proxy 127.0.0.1:{port}: ")
    cause = unreachable(via)
    assert cause is not None and cause.startswith(f"through the proxy 127.0.0.1:{port}: ")
    # A client that ignores the proxy settings (our own OpenAI client) is dialled directly.
    assert target(Endpoint("--model m", "https://api.anthropic.com"))[0] == "api.anthropic.com"
    # NO_PROXY exempts a host, as it does for the SDK.
    monkeypatch.setenv("no_proxy", "api.anthropic.com")
    monkeypatch.setenv("NO_PROXY", "api.anthropic.com")
    assert target(via)[0] == "api.anthropic.com"


def test_down_dials_a_shared_server_once_and_names_every_role() -> None:
    dead, other = closed_port_url(), closed_port_url()
    lines = down(
        [
            Endpoint("--model 'a'", dead),
            Endpoint("--judge 'b'", dead),
            Endpoint("--judge 'b'", dead),
            Endpoint("--embedder 'c'", other),
        ]
    )
    assert len(lines) == 2
    assert lines[0].startswith(f"--model 'a' and --judge 'b': nothing answers at {dead} (")
    assert lines[1].startswith(f"--embedder 'c': nothing answers at {other} (")
    assert all(line.endswith("start the server or fix the URL") for line in lines)


def test_a_remote_server_gets_a_network_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> socket.socket:
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "create_connection", refused)
    (line,) = down([Endpoint("--judge-model 'anthropic:x'", "https://api.anthropic.com")])
    assert line.endswith("check the URL and that this machine reaches it")
    assert "(Connection refused (api.anthropic.com:443))" in line


@pytest.mark.serial  # a wall-time bound (8 probes of 0.5 s in under 2 s): not beside workers
def test_probes_run_at_once_so_dead_servers_do_not_add_up() -> None:
    # Listeners with a full backlog never complete the handshake: each probe waits for
    # its timeout. Eight of them at 0.5 s each must take about 0.5 s, not 4 s.
    held: list[socket.socket] = []
    endpoints = []
    try:
        for i in range(8):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(0)
            port = s.getsockname()[1]
            held.append(s)
            # Fill the backlog so the next connect stalls.
            for _ in range(4):
                c = socket.socket()
                c.setblocking(False)
                c.connect_ex(("127.0.0.1", port))
                held.append(c)
            endpoints.append(Endpoint(f"--m{i}", f"http://127.0.0.1:{port}"))
        t0 = time.monotonic()
        lines = down(endpoints, timeout_s=0.5)
        elapsed = time.monotonic() - t0
    finally:
        for s in held:
            s.close()
    assert len(lines) == 8 and all("within 0.5 s" in line for line in lines)
    assert elapsed < 2.0


def test_model_specs_name_the_server_their_client_dials(monkeypatch: pytest.MonkeyPatch) -> None:
    from gaia_eval.llm.preflight import model_endpoints
    from gaia_eval.llm.spec import parse_model_spec

    spec = parse_model_spec("openai:http://127.0.0.1:8000/v1#m")
    assert model_endpoints(spec, "--judge") == [
        Endpoint("--judge 'openai:http://127.0.0.1:8000/v1#m'", "http://127.0.0.1:8000/v1")
    ]
    assert model_endpoints(None, "--judge") == []
    assert model_endpoints(parse_model_spec("claude-code:sonnet"), "--model") == []
    # The local model is started by the run, never probed.
    assert model_endpoints(parse_model_spec("local"), "--model") == []
    # anthropic: the SDK's own URL, through any proxy; without a key it is refused for the
    # key alone (no second line, no dial).
    claude = parse_model_spec("anthropic:claude-x")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    assert model_endpoints(claude, "--model") == []
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    (e,) = model_endpoints(claude, "--model")  # the test group installs the SDK
    assert (e.url, e.proxied) == ("http://127.0.0.1:9", True)
