"""One text completion from whichever backend a model spec names (for judges)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from gaia_eval.llm.pricing import price
from gaia_eval.llm.spec import OPENAI_KEY_ENV, ModelSpec, resolve


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    cost_source: str | None


def complete(
    spec: ModelSpec,
    system: str,
    prompt: str,
    *,
    timeout_s: float = 300.0,
    price_override: tuple[float, float] | None = None,
    max_tokens: int | None = None,
    json_schema: dict[str, Any] | None = None,
) -> Completion:
    """Ask `spec` once; outages raise InfrastructureError. `json_schema` constrains an
    OpenAI-compatible server's reply (`response_format`); other backends get the prompt's
    own instructions only. `max_tokens` bounds the reply."""
    spec = resolve(spec)  # `local`: the shared local server
    if spec.backend == "anthropic":
        from gaia_eval.llm.anthropic_client import AnthropicChat

        chat = AnthropicChat(spec.model, timeout_s=timeout_s)
        try:
            text, tin, tout = (
                chat.complete(system, prompt, max_tokens=max_tokens)
                if max_tokens
                else chat.complete(system, prompt)
            )
        finally:
            chat.close()
    elif spec.backend == "openai":
        from gaia_eval.llm.openai_compat import OpenAIChat

        assert spec.base_url is not None
        client = OpenAIChat(
            spec.base_url, spec.model, os.environ.get(OPENAI_KEY_ENV), timeout_s=timeout_s
        )
        try:
            fmt = (
                {"type": "json_schema", "json_schema": {"name": "reply", "schema": json_schema}}
                if json_schema
                else None
            )
            reply = client.chat(
                [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
                max_tokens=max_tokens,
                response_format=fmt,
            )
        finally:
            client.close()
        text, tin, tout = reply.content, reply.input_tokens, reply.output_tokens
    else:
        from gaia_eval.llm.claude_cli import claude_complete

        text, reported = claude_complete(spec.model, system, prompt, timeout_s=timeout_s)
        # The CLI's own figure: list price of the tokens ("API equivalent" on a subscription).
        source = "api_equivalent" if reported is not None else None
        return Completion(text, 0, 0, reported, source)
    cost = price(spec.model, tin, tout, price_override)
    return Completion(text, tin, tout, cost, "harness_counts" if cost is not None else None)
