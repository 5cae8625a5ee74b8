"""A judge through the `claude` CLI with no tools (`claude-code:<model>` specs):
`claude -p --model M --output-format json --tools "" --no-session-persistence`, run in an
empty temp folder so no project CLAUDE.md is loaded."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from gaia_eval.core.errors import InfrastructureError

TIMEOUT_S = 300.0


def claude_complete(
    model: str, system: str, prompt: str, timeout_s: float = TIMEOUT_S
) -> tuple[str, float | None]:
    """(result text, total_cost_usd) from one `claude -p` call; failures are outages."""
    exe = os.environ.get("GAIA_EVAL_CLAUDE_BIN", "claude")
    argv = [exe, "-p", "--model", model, "--output-format", "json", "--tools", ""]
    argv += ["--no-session-persistence", "--append-system-prompt", system]
    if os.environ.get("ANTHROPIC_API_KEY"):
        argv.append("--bare")
    with tempfile.TemporaryDirectory(prefix="gaia-eval-judge-") as empty:
        try:
            done = subprocess.run(
                argv,
                input=prompt,
                cwd=empty,
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            msg = f"claude-code:{model}: the claude CLI did not answer ({err})"
            raise InfrastructureError(msg) from err
    try:
        envelope = json.loads(done.stdout)
    except ValueError as err:
        tail = (done.stderr or done.stdout)[-300:]
        msg = f"claude-code:{model}: no JSON envelope (exit {done.returncode}): {tail}"
        raise InfrastructureError(msg) from err
    if not isinstance(envelope, dict) or envelope.get("is_error") is not False:
        result = envelope.get("result") if isinstance(envelope, dict) else envelope
        msg = f"claude-code:{model}: the CLI reported an error: {str(result)[:300]}"
        raise InfrastructureError(msg)
    cost = envelope.get("total_cost_usd")
    return str(envelope.get("result", "")), float(cost) if isinstance(cost, (int, float)) else None
