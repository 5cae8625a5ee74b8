"""Model specs, the OpenAI-compatible client over a real local server, outage classes."""

from __future__ import annotations

import pytest
from tasks_fakes import FakeLLM, closed_port_url, serve

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.llm.openai_compat import OpenAIChat, chat_url
from gaia_eval.llm.outage import ModelRequestError, classify_status
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
