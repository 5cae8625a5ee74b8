"""`claude-code`: the `claude` CLI, driven as
`claude -p <prompt> --model M --output-format stream-json --verbose
--dangerously-skip-permissions --no-session-persistence`.

Its stream is read back into the common tool record, so `verified`, the judge and the
after-answer rule see Claude Code exactly as they see the built-in agent. On Anthropic
models no key is passed: the agent environment drops every secret-named and
ANTHROPIC_/CLAUDE variable, so the CLI uses its own login. On an open model (`local`, an
`openai:` server that also serves /v1/messages) the runner routes it through the model
gateway: ANTHROPIC_BASE_URL is the gateway, which replaces the CLI's credential.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.base import LaunchPlan
from gaia_eval.agents.models import AgentOutcome, ToolCall
from gaia_eval.llm.outage import phrase_kind

RESULT_CAP = 12_000
# What the CLI sends as its key when it talks to the gateway: not a secret (it is here in
# the source), only there because the CLI will not start without one.
GATEWAY_PLACEHOLDER_KEY = "gaia-eval-gateway-holds-the-key"
# What an API outage looks like in the CLI's final result: unmeasured, not a failure. The
# quota and credential phrases are gaia_eval.llm.outage's table; these are the CLI's own.
_CLI_OUTAGE_WORDS = (
    "api error",
    "connection error",
    "overloaded",
    "authentication",
    "please run /login",
)


class ClaudeCodeHarness:
    name = "claude-code"

    def __init__(self, model: str, executable: str = "claude") -> None:
        self.model = model
        self.executable = executable
        self.route_url: str | None = None
        """The gateway route for the next launch (an open model); None: its own login."""

    def route(self, url: str | None) -> None:
        """Send the next task's Messages calls to the gateway at `url` (a tagged route)."""
        self.route_url = url

    def launch(
        self, task_id: str, prompt: str, workdir: Path, run_dir: Path, max_steps: int
    ) -> LaunchPlan:
        argv = [
            self.executable,
            "-p",
            prompt,
            "--model",
            self.model,
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions",
            "--no-session-persistence",
        ]
        if self.route_url is None:
            return LaunchPlan(argv)
        # An open model through the gateway: the CLI's base URL is the gateway, and the
        # key it must send is a fixed public placeholder the gateway drops and replaces.
        env = {
            "ANTHROPIC_BASE_URL": self.route_url,
            "ANTHROPIC_API_KEY": GATEWAY_PLACEHOLDER_KEY,
            "ANTHROPIC_SMALL_FAST_MODEL": self.model,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        return LaunchPlan(argv, env=env)

    def collect(self, run_dir: Path, stdout: Path, stderr: Path) -> AgentOutcome:
        text = stdout.read_text(encoding="utf-8", errors="replace") if stdout.exists() else ""
        return parse_stream(text)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


def parse_stream(text: str) -> AgentOutcome:
    """Read a stream-json transcript; a torn or cut-off stream keeps what it has."""
    out = AgentOutcome()
    by_id: dict[str, ToolCall] = {}
    last_text = ""
    final: dict[str, Any] | None = None
    for line in text.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        kind = ev.get("type")
        raw_message = ev.get("message")
        message: dict[str, Any] = raw_message if isinstance(raw_message, dict) else {}
        if kind == "assistant":
            out.steps += 1
            for block in message.get("content") or []:
                if block.get("type") == "text" and block.get("text"):
                    last_text = str(block["text"])
                elif block.get("type") == "tool_use":
                    call = ToolCall(
                        index=len(out.tool_calls),
                        name=str(block.get("name", "")),
                        args=block.get("input") if isinstance(block.get("input"), dict) else {},
                    )
                    out.tool_calls.append(call)
                    by_id[str(block.get("id"))] = call
        elif kind == "user":
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    done = by_id.get(str(block.get("tool_use_id")))
                    if done is not None:
                        done.result = _result_text(block.get("content"))[:RESULT_CAP]
                        done.is_error = bool(block.get("is_error"))
        elif kind == "result":
            final = ev
    if final is None:
        out.answer = last_text
        return out
    out.answer = str(final.get("result") or last_text)
    out.first_answer_at = len(out.tool_calls)
    out.steps = int(final.get("num_turns") or out.steps)
    usage = final.get("usage") or {}
    cached = int(usage.get("cache_read_input_tokens") or 0)
    out.input_tokens = (
        int(usage.get("input_tokens") or 0)
        + cached
        + int(usage.get("cache_creation_input_tokens") or 0)
    )
    out.output_tokens = int(usage.get("output_tokens") or 0)
    out.cached_tokens = cached
    cost = final.get("total_cost_usd")
    out.reported_cost_usd = float(cost) if isinstance(cost, (int, float)) else None
    if final.get("is_error"):
        msg = str(final.get("result") or final.get("subtype") or "claude reported an error")
        out.error = msg[:500]
        low = msg.lower()
        outage = any(w in low for w in _CLI_OUTAGE_WORDS) or phrase_kind(msg) is not None
        out.error_kind = "unavailable" if outage else "failed"
    return out
