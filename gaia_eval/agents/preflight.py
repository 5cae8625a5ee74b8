"""What a tasks run needs, checked before the first task runs: the toolchain's pytest,
the judge's SDK and credentials, the claude CLI, bubblewrap for --fence, and model servers
that answer. Everything that is missing is named in one message (exit 2) with what to
install or set, so a run never spends minutes on tasks and then fails at the judge; a
server that does not answer (and nothing missing) is exit 3."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence

from gaia_eval.core.extras import has_module, install_hint
from gaia_eval.llm.preflight import ANTHROPIC_KEYS, model_endpoints, model_needs
from gaia_eval.llm.spec import ModelSpec

__all__ = ["ANTHROPIC_KEYS", "CLAUDE_BIN_ENV", "check", "claude_bin", "missing"]

CLAUDE_BIN_ENV = "GAIA_EVAL_CLAUDE_BIN"
"""The variable naming the claude CLI (default `claude` on PATH)."""


def claude_bin() -> str:
    """The claude CLI every agent suite runs: $GAIA_EVAL_CLAUDE_BIN, else `claude`."""
    return os.environ.get(CLAUDE_BIN_ENV, "").strip() or "claude"


def missing(
    *,
    judge: ModelSpec | None = None,
    model: ModelSpec | None = None,
    harness: str | None = None,
    claude_bin: str = "claude",
    fence: bool = False,
    toolchain: bool = True,
) -> list[str]:
    """One line per missing dependency or credential."""
    out: list[str] = []
    if toolchain and not has_module("pytest"):
        out.append(
            f"pytest in {sys.executable}, which every harness's toolchain and the checks run: "
            f"{install_hint('tasks')}"
        )
    if harness == "claude-code" and shutil.which(claude_bin) is None:
        out.append(
            f"the claude CLI ({claude_bin!r}) for --harness claude-code: install Claude Code "
            "or set GAIA_EVAL_CLAUDE_BIN to its path"
        )
    if model is not None:
        out += model_needs(model, "--model", claude_bin)
    if judge is not None:
        out += model_needs(judge, "--judge-model", claude_bin)
    if fence:
        from gaia_eval.agents.fence import mechanism, why_unavailable

        if mechanism() is None:
            out.append(why_unavailable())
    return out


def check(
    *,
    judge: ModelSpec | None = None,
    model: ModelSpec | None = None,
    harness: str | None = None,
    claude_bin: str = "claude",
    fence: bool = False,
    toolchain: bool = True,
    routed: ModelSpec | None = None,
    gateway_url: str | None = None,
    extra: Sequence[str] = (),
) -> None:
    """Refuse the run, in one message, naming everything `missing` finds (plus `extra`,
    a caller's own lines) and every model server that does not answer (the model's, the
    judge's, and `routed`: the open model the run's gateway forwards a harness to; with
    `gateway_url`, a gateway already running, the harness reaches its model through
    that, so the gateway is dialled instead): exit 2 if anything is missing, exit 3 if
    only a server is down."""
    from gaia_eval.core.reach import Endpoint, down
    from gaia_eval.core.runloop import refuse

    lines = missing(
        judge=judge,
        model=model,
        harness=harness,
        claude_bin=claude_bin,
        fence=fence,
        toolchain=toolchain,
    )
    if gateway_url:
        servers = [Endpoint(f"--gateway-url {gateway_url}", gateway_url)]
    else:
        servers = [*model_endpoints(model, "--model"), *model_endpoints(routed, "--model")]
    servers += model_endpoints(judge, "--judge-model")
    refuse([*lines, *extra], down(servers))
