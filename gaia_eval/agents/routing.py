"""Which model route a harness takes: through the run's model gateway, or its own.

Both model harnesses reach an open model through the gateway (gaia_eval.agents.gateway),
which holds the key: `builtin` on any OpenAI-compatible spec or `local`, `claude-code` on
`local` or an `openai:` server that also serves the Anthropic Messages API (llama.cpp and
Lemonade do, at `<root>/v1/messages`). Claude Code on Anthropic's own models keeps its
own login and route (the gateway cannot hold a subscription credential for it).

The gateway's upstream is always the server's root (the OpenAI base without its `/v1`),
so one gateway serves both API formats; the builtin agent's base is the route plus `/v1`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gaia_eval.agents.gateway import Upstream
from gaia_eval.llm.spec import OPENAI_KEY_ENV, ModelSpec, parse_model_spec, resolve


@dataclass(frozen=True)
class Route:
    """A model route through a gateway: where the gateway forwards, and the path the
    harness appends to its tagged route (`/v1` for OpenAI clients, "" for Anthropic SDKs,
    which add `/v1/messages` themselves)."""

    upstream: Upstream
    client_suffix: str
    served_model: str
    """The model name the server knows (a `local` spec's is its alias, e.g. smollm2-135m)."""


def _root(base_url: str) -> tuple[str, str]:
    base = base_url.rstrip("/")
    if base.endswith("/v1"):
        return base[: -len("/v1")], "/v1"
    return base, ""


def claude_code_spec(text: str) -> ModelSpec | None:
    """The open model a claude-code run routes to, or None for an Anthropic model name
    (`claude-...`, `anthropic:...`, `claude-code:...`), which Claude Code reaches itself."""
    if text.startswith(("claude-code:", "anthropic:", "claude-")):
        return None
    if text == "local" or text.startswith(("local:", "openai:")):
        return parse_model_spec(text)
    return None


def route_for(harness: str, spec: ModelSpec | None) -> Route | None:
    """The gateway route of `harness` on `spec` (None: the harness reaches no gateway)."""
    if spec is None or harness not in ("builtin", "claude-code"):
        return None
    served = resolve(spec)  # `local`: this process's shared server, started now
    if served.base_url is None:
        return None
    root, suffix = _root(served.base_url)
    key = os.environ.get(OPENAI_KEY_ENV) or None
    client_suffix = suffix if harness == "builtin" else ""
    return Route(Upstream(root, key, "bearer"), client_suffix, served.model)
