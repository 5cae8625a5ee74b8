"""Model specs, the OpenAI-compatible client over a real local server, outage classes."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

import pytest
from loopback import running, url_of
from tasks_fakes import FakeLLM, closed_port_url, serve

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.llm.openai_compat import OpenAIChat, chat_url
from gaia_eval.llm.outage import ModelRequestError, classify_status, phrase_kind
from gaia_eval.llm.pricing import price
from gaia_eval.llm.spec import parse_model_spec


def test_model_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    s = parse_model_spec("openai:http://127.0.0.1:8000/v1#Qwen3#x")
    assert (s.backend, s.base_url, s.model) == ("openai", "http://127.0.0.1:8000/v1#Qwen3", "x")
    s = parse_model_spec("anthropic:claude-opus-4-1")
    assert (s.backend, s.model, s.base_url) == ("anthropic", "claude-opus-4-1", None)
    assert parse_model_spec("claude-code:opus").backend == "claude-code"
    monkeypatch.setenv("GAIA_EVAL_OPENAI_BASE_URL", "http://h:1/v1/")
    s = parse_model_spec("qwen3")
    assert (s.backend, s.base_url, s.model, s.text) == ("openai", "http://h:1/v1", "qwen3", "qwen3")
    monkeypatch.delenv("GAIA_EVAL_OPENAI_BASE_URL")
    for bad, needle in [
        ("qwen3", "GAIA_EVAL_OPENAI_BASE_URL"),
        ("openai:http://x", "openai:<base_url>#<model>"),
        ("openai:ftp://x#m", "http://"),
        ("anthropic:", "anthropic:<model>"),
        ("  ", "empty"),
    ]:
        with pytest.raises(InvalidInputError, match=needle):
            parse_model_spec(bad, "--judge-model")


def test_chat_url() -> None:
    assert chat_url("http://h:1/v1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1") == "http://h:1/v1/chat/completions"
    assert chat_url("http://h:1/api/v1/") == "http://h:1/api/v1/chat/completions"


def test_retries_server_errors_then_succeeds() -> None:
    fake = FakeLLM([{"status": 503, "body": {}}, {"content": "hi", "usage": {"prompt_tokens": 7}}])
    with serve(fake) as url:
        client = OpenAIChat(url, "m", api_key="k-123", backoff_s=0)
        reply = client.chat([{"role": "user", "content": "x"}])
        client.close()
    assert (reply.content, reply.input_tokens, reply.output_tokens) == ("hi", 7, 0)
    assert fake.headers[0]["authorization"] == "Bearer k-123"


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (401, "bad key", InfrastructureError),
        (429, "slow down", InfrastructureError),
        (400, "Your credit balance is too low", InfrastructureError),
        (404, "model not found", InfrastructureError),
        (400, "messages: invalid role", ModelRequestError),
    ],
)
def test_status_classes(status: int, body: str, error: type[Exception]) -> None:
    fake = FakeLLM([{"status": status, "body": {"error": body}}] * 3)
    with serve(fake) as url:
        client = OpenAIChat(url, "m", retries=2, backoff_s=0)
        with pytest.raises(error):
            client.chat([{"role": "user", "content": "x"}])
        client.close()


def test_unreachable_and_classes() -> None:
    client = OpenAIChat(closed_port_url(), "m", retries=1)
    with pytest.raises(InfrastructureError, match="unreachable"):
        client.chat([])
    assert classify_status(503, "") == "server" and classify_status(403, "") == "credentials"


def test_pricing_never_zero_for_uncounted() -> None:
    assert price("claude-sonnet-4-x", 0, 0) is None
    assert price("unknown-model", 10, 10) is None
    assert price("claude-sonnet-4-x", 1_000_000, 0) == 3.0
    assert price("anything", 1_000_000, 1_000_000, (0.5, 1.5)) == 2.0


def _raw_reply(body: bytes, *, stream: bool = False) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            kind = "text/event-stream" if stream else "application/json"
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


_CHOICE = (
    '"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]'
)


@pytest.mark.parametrize(
    "usage",
    [
        '{"prompt_tokens":3,"completion_tokens":1e400}',  # inf once decoded
        '{"prompt_tokens":3,"completion_tokens":-5}',
        '{"prompt_tokens":"many","completion_tokens":2}',
        '{"prompt_tokens":2.5}',
        '"ten tokens"',
        '{"prompt_tokens":3,"prompt_tokens_details":[1]}',
    ],
)
def test_a_malformed_usage_block_is_an_outage_of_that_backend(usage: str) -> None:
    plain = f'{{{_CHOICE},"usage":{usage}}}'.encode()
    chunk = f'data: {{"choices":[],"usage":{usage}}}\n\ndata: [DONE]\n\n'
    delta = 'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
    for body, streamed in ((plain, False), ((delta + chunk).encode(), True)):
        with running(_raw_reply(body, stream=streamed)) as server:
            client = OpenAIChat(url_of(server), "m", retries=1, backoff_s=0)
            try:
                with pytest.raises(InfrastructureError, match="malformed usage block"):
                    if streamed:
                        client.stream([{"role": "user", "content": "x"}])
                    else:
                        client.chat([{"role": "user", "content": "x"}])
            finally:
                client.close()


def test_a_whole_float_token_count_is_read() -> None:
    body = f'{{{_CHOICE},"usage":{{"prompt_tokens":7.0,"completion_tokens":2}}}}'.encode()
    with running(_raw_reply(body)) as server:
        client = OpenAIChat(url_of(server), "m", retries=1, backoff_s=0)
        reply = client.chat([{"role": "user", "content": "x"}])
        client.close()
    assert (reply.input_tokens, reply.output_tokens) == (7, 2)


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (402, "Payment required", "quota"),  # 402 is quota whatever the body says
        (400, "Please purchase credits to continue", "quota"),
        (400, "You are out of credits", "quota"),
        (400, "insufficient credit on this account", "quota"),
        (400, "spend limit reached", "quota"),
        (400, "your weekly limit is used up", "quota"),
        (400, "usage limit exceeded", "quota"),
        (400, '{"type": "rate_limit_error"}', "quota"),
        (400, "Your limit resets at 5pm", "quota"),
        (400, "Upgrade your plan for more", "quota"),
        (400, "invalid x-api-key", "credentials"),
        (400, "Token has expired", "credentials"),
        (400, "Not logged in", "credentials"),
        (400, "authentication_error: credit balance too low", "bad_request"),  # both kinds
        (400, "messages: invalid role", "bad_request"),
    ],
)
def test_outage_phrases_are_the_whole_table(status: int, body: str, kind: str) -> None:
    assert classify_status(status, body) == kind


def test_one_phrase_table_for_backends_driver_and_harness() -> None:
    import ast
    from pathlib import Path

    root = Path(__file__).parents[1] / "gaia_eval"
    copies = []
    for path in root.rglob("*.py"):
        if path.name == "outage.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in (
                "invalid api key",
                "credit balance",
            ):
                copies.append(str(path.relative_to(root)))
    assert copies == []
    assert phrase_kind("Invalid API key") == "credentials"
    assert phrase_kind("quota exceeded; invalid api key") is None


def test_a_reply_past_the_size_cap_is_refused_not_held() -> None:
    from gaia_eval.llm.openai_compat import MAX_REPLY_BYTES

    content = "x" * (MAX_REPLY_BYTES + 1024)
    body = '{"choices":[{"index":0,"message":{"role":"assistant","content":"' + content + '"}}]}'
    with running(_raw_reply(body.encode())) as server:
        client = OpenAIChat(url_of(server), "m", retries=1, backoff_s=0)
        try:
            with pytest.raises(ModelRequestError, match="over 32 MiB"):
                client.chat([{"role": "user", "content": "x"}])
        finally:
            client.close()


def _sse(chunks: list[dict[str, object]]) -> bytes:
    import json

    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


def _delta(**delta: object) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": delta}]}


def test_a_streamed_reply_past_the_size_cap_is_refused_not_held() -> None:
    from gaia_eval.llm.openai_compat import MAX_REPLY_BYTES

    piece = "x" * (1024 * 1024)
    chunks = [_delta(content=piece) for _ in range(MAX_REPLY_BYTES // len(piece) + 2)]
    with running(_raw_reply(_sse(chunks), stream=True)) as server:
        client = OpenAIChat(url_of(server), "m", retries=1, backoff_s=0)
        try:
            with pytest.raises(ModelRequestError, match="streamed a reply over 32 MiB"):
                client.stream([{"role": "user", "content": "x"}])
        finally:
            client.close()


def test_streamed_tool_call_arguments_are_assembled_whole_from_many_deltas() -> None:
    pieces = [f'{{"n": {i}}}'[:3] for i in range(20_000)]  # many small argument deltas
    first = {"index": 0, "id": "call_a", "function": {"name": "edit", "arguments": ""}}
    chunks = [_delta(tool_calls=[first])]
    chunks += [_delta(tool_calls=[{"index": 0, "function": {"arguments": p}}]) for p in pieces]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    with running(_raw_reply(_sse(chunks), stream=True)) as server:
        client = OpenAIChat(url_of(server), "m", retries=1, backoff_s=0)
        try:
            reply = client.stream([{"role": "user", "content": "x"}])
        finally:
            client.close()
    (call,) = reply.tool_calls
    assert call.id == "call_a" and call.name == "edit"
    assert call.arguments == "".join(pieces)
