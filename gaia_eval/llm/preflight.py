"""What a model spec needs before a run may start: its SDK, its credentials, its local
weights, its CLI, and a server that answers. Every suite's `Suite.preflight` lists the
first four for its model and judge and its `Suite.endpoints` names the servers, so a run
never spends minutes on items and then fails at the first model call."""

from __future__ import annotations

import os
import shutil

from gaia_eval.core.extras import has_module, install_hint
from gaia_eval.core.reach import Endpoint
from gaia_eval.llm.spec import ModelSpec

ANTHROPIC_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")


def model_needs(spec: ModelSpec, role: str, claude_bin: str = "claude") -> list[str]:
    """One line per thing `spec` needs but lacks, naming `role` (the flag) and the fix."""
    missing = []
    if spec.backend == "anthropic":
        if not has_module("anthropic"):
            missing.append(
                f"the anthropic SDK for {role} {spec.text!r}: {install_hint('anthropic')}"
            )
        elif not any(os.environ.get(k, "").strip() for k in ANTHROPIC_KEYS):
            missing.append(
                f"an API key for {role} {spec.text!r}: set ANTHROPIC_API_KEY "
                "(or ANTHROPIC_AUTH_TOKEN)"
            )
    elif spec.backend == "local":
        from gaia_eval.llm.local_weights import INSTALL_COMMAND, missing_parts

        parts = missing_parts(spec.model)
        if parts:
            missing.append(f"{' and '.join(parts)} for {role} {spec.text!r}: {INSTALL_COMMAND}")
    elif spec.backend == "claude-code" and shutil.which(claude_bin) is None:
        missing.append(
            f"the claude CLI ({claude_bin!r}) for {role} {spec.text!r}: install Claude Code "
            "or set GAIA_EVAL_CLAUDE_BIN to its path"
        )
    return missing


ANTHROPIC_DEFAULT_URL = "https://api.anthropic.com"


def model_endpoints(spec: ModelSpec | None, role: str) -> list[Endpoint]:
    """The server `spec` sends its requests to, for the pre-run probe: an OpenAI-compatible
    base URL, or the anthropic SDK's (ANTHROPIC_BASE_URL or the public API, through a
    proxy when the environment names one, as the SDK does). The local model is started by
    the run and the claude CLI finds its own way, so neither is listed."""
    if spec is None or model_needs(spec, role):
        # Already refused for its SDK or key: a second line for it would name a server
        # the run could not have used anyway (and dial the internet for nothing).
        return []
    what = f"{role} {spec.text!r}"
    if spec.backend == "openai" and spec.base_url:
        return [Endpoint(what, spec.base_url)]
    if spec.backend == "anthropic":
        url = os.environ.get("ANTHROPIC_BASE_URL", "").strip() or ANTHROPIC_DEFAULT_URL
        return [Endpoint(what, url, proxied=True)]
    return []
