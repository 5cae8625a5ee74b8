"""The child process that runs the built-in agent or a replay script on one task.

    python -m gaia_eval.agents.harnesses.child RUN_DIR < spec.json

The spec (with the model key, if any) arrives on stdin so that no credential is ever in
this process's environment, which the agent's shell commands inherit.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.record import RecordWriter
from gaia_eval.agents.harnesses.tools import ARGS_CAP, ToolBox, openai_tools
from gaia_eval.core.errors import InfrastructureError

SYSTEM_PROMPT = (
    "You are a careful software engineer working on a small Python project. Use the tools "
    "to read, change and test the project; paths are relative to the project folder. "
    "Do exactly what the user asks and nothing more. When you are finished, reply with "
    "your final answer as plain text and no tool call. Report only what you actually did "
    "and saw."
)
# An earlier turn of a conversation asks for a brief acknowledgement, not work.
ACK_MAX_TOKENS = 48
REPLAY_ACK = "Understood."


def run_replay(spec: dict[str, Any], box: ToolBox, rec: RecordWriter) -> None:
    script = list(spec.get("script", []))
    ack = REPLAY_ACK
    if script and "ack" in script[0]:
        ack = str(script.pop(0)["ack"])
    for text in spec.get("prelude", []):
        rec.event("turn", prompt=str(text), reply=ack)
    for step in script:
        if "tool" in step:
            args = step.get("args") or {}
            res = box.execute(str(step["tool"]), args)
            rec.tool(str(step["tool"]), args, res.text, res.is_error, res.check_passed)
        elif "answer" in step:
            rec.event("answer", text=str(step["answer"]))
        elif "sleep" in step:
            time.sleep(float(step["sleep"]))
        elif "error" in step:
            rec.event("error", kind=str(step.get("kind", "failed")), message=str(step["error"]))
            return


def run_builtin(spec: dict[str, Any], box: ToolBox, rec: RecordWriter) -> None:
    from gaia_eval.llm.openai_compat import OpenAIChat

    client = OpenAIChat(
        spec["base_url"],
        spec["model"],
        spec.get("api_key") or None,
        timeout_s=float(spec.get("request_timeout_s", 300)),
        retries=int(spec.get("retries", 3)),
        backoff_s=float(spec.get("backoff_s", 1.0)),
    )
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
    tools = openai_tools()
    try:
        # Earlier turns of a conversation: each its own user message, answered with no
        # tools, so the task below arrives with them as history.
        for text in spec.get("prelude", []):
            messages.append({"role": "user", "content": str(text)})
            reply = client.chat(messages, max_tokens=ACK_MAX_TOKENS)
            rec.llm(reply.input_tokens, reply.output_tokens, reply.cached_tokens)
            rec.event("turn", prompt=str(text), reply=reply.content)
            messages.append({"role": "assistant", "content": reply.content or ""})
        messages.append({"role": "user", "content": spec["prompt"]})
        for _ in range(int(spec["max_steps"])):
            reply = client.chat(messages, tools=tools)
            rec.llm(reply.input_tokens, reply.output_tokens, reply.cached_tokens)
            if not reply.tool_calls:
                rec.event("answer", text=reply.content)
                return
            oversized = {
                tc.id: len(tc.arguments) for tc in reply.tool_calls if len(tc.arguments) > ARGS_CAP
            }
            reply.tool_calls = [
                replace(tc, arguments=json.dumps({"_truncated_from_chars": oversized[tc.id]}))
                if tc.id in oversized
                else tc
                for tc in reply.tool_calls
            ]
            messages.append(reply.assistant_message())
            for tc in reply.tool_calls:
                if tc.id in oversized:  # recorded as truncated; the model is told why
                    text = (
                        f"error: the arguments were {oversized[tc.id]} characters, over the "
                        f"cap of {ARGS_CAP}; the call was not run"
                    )
                    rec.tool(tc.name, json.loads(tc.arguments), text, True, None)
                    messages.append({"role": "tool", "tool_call_id": tc.id, "content": text})
                    continue
                try:
                    args = json.loads(tc.arguments) if tc.arguments.strip() else {}
                except ValueError as err:
                    args, text, is_err, check = (
                        {"_raw": tc.arguments},
                        f"error: arguments are not JSON: {err}",
                        True,
                        None,
                    )
                else:
                    if not isinstance(args, dict):
                        args = {"_raw": args}
                    res = box.execute(tc.name, args) if "_raw" not in args else None
                    text = res.text if res else "error: arguments must be a JSON object"
                    is_err = res.is_error if res else True
                    check = res.check_passed if res else None
                rec.tool(tc.name, args, text, is_err, check)
                messages.append({"role": "tool", "tool_call_id": tc.id, "content": text})
        rec.event("error", kind="failed", message=f"stopped at max_steps={spec['max_steps']}")
    finally:
        client.close()


def main(argv: list[str]) -> int:
    run_dir = Path(argv[1])
    spec = json.loads(sys.stdin.read())
    rec = RecordWriter(run_dir)
    box = ToolBox(
        Path(spec["workdir"]),
        full_access=bool(spec.get("full_access")),
        shell_timeout_s=float(spec.get("shell_timeout_s", 120)),
    )
    try:
        if spec["mode"] == "replay":
            run_replay(spec, box, rec)
        else:
            run_builtin(spec, box, rec)
    except InfrastructureError as err:
        rec.event("error", kind="unavailable", message=str(err))
        return 3
    except Exception as err:  # recorded, so the runner reports a failed task, not a crash
        rec.event("error", kind="failed", message=f"{type(err).__name__}: {err}")
        return 1
    finally:
        rec.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
