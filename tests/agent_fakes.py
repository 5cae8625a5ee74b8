"""A loopback OpenAI-compatible server for the agent suite's tests: one real HTTP server on
127.0.0.1 that plays both the agent's model and the driver's, routed by the request's
`model`. The agent model answers by the last user message (plain or streamed, with tool
calls when scripted); the driver answers judge requests with scripted JSON per (scenario,
turn), cycling through a list so repeats can differ, or with an HTTP error."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from loopback import running, url_of

AGENT = "agent-m"
DRIVER = "driver-m"
DIMS = (
    "correctness",
    "tool_selection",
    "context_retention",
    "completeness",
    "efficiency",
    "personality",
    "error_recovery",
)


def judgement(
    score: float = 9,
    *,
    correctness: float | None = None,
    passed: bool | None = None,
    blame: str = "none",
    blocked: bool = False,
    overall: float | None = 99.0,
    **extra: Any,
) -> dict[str, Any]:
    scores = {k: score for k in DIMS}
    if correctness is not None:
        scores["correctness"] = correctness
    return {
        "scores": scores,
        "overall_score": overall,
        "pass": passed if passed is not None else score >= 6,
        "blame": blame,
        "blame_evidence": f"evidence for {blame}",
        "blocked": blocked,
        "reasoning": "scripted",
        **extra,
    }


PASS = judgement(9)
FAIL = judgement(3, blame="agent")


class World:
    def __init__(
        self,
        agent: dict[str, dict[str, Any]] | None = None,
        judge: dict[str, list[Any]] | None = None,
    ) -> None:
        self.agent = agent or {}
        """user message -> {"text", "model", "sleep", "status", "body", "tool_call"}."""
        self.judge = judge or {}
        """scenario id or "id/turn" -> list of payloads, cycled per call."""
        self.outage: dict[str, tuple[int, str]] = {}
        """scenario id -> (HTTP status, body) answered to every driver call while set."""
        self.message_errors: dict[str, tuple[int, str]] = {}
        """scenario id -> (HTTP status, body) answered to the simulator's requests."""
        self.calls: dict[str, int] = {}
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    # ---- the agent's model -----------------------------------------------------------------

    def agent_reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        msgs = body["messages"]
        last_user = next(m for m in reversed(msgs) if m["role"] == "user")["content"]
        key = next((k for k in self.agent if k in last_user), None)
        b = self.agent.get(key, {}) if key else {}
        if b.get("sleep"):
            time.sleep(float(b["sleep"]))
        if "status" in b:
            return int(b["status"]), {"error": {"message": b.get("body", "error")}}
        msg: dict[str, Any] = {"role": "assistant", "content": b.get("text", "an answer")}
        if b.get("tool_call") and (b.get("loop") or msgs[-1]["role"] == "user"):
            name, args = b["tool_call"]
            msg = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args)},
                    }
                ],
            }
        return 200, {
            "id": "x",
            "object": "chat.completion",
            "model": b.get("model", AGENT),
            "choices": [{"index": 0, "message": msg, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30},
        }

    # ---- the driver ------------------------------------------------------------------------

    def driver_reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        system = body["messages"][0]["content"]
        prompt = body["messages"][-1]["content"]
        sid = re.search(r"SCENARIO: (\S+)", prompt)
        turn = re.search(r"TURN: (\d+)", prompt)
        assert sid and turn, prompt
        scen, n = sid.group(1), int(turn.group(1))
        if scen in self.outage:
            status, text = self.outage[scen]
            return status, {"error": {"type": "rate_limit_error", "message": text}}
        if system.startswith("You play") and scen in self.message_errors:
            status, text = self.message_errors[scen]
            return status, {"error": {"message": text}}
        if system.startswith("You play"):
            content = json.dumps({"message": f"simulated message {n} for {scen}"})
        else:
            key = f"{scen}/{n}" if f"{scen}/{n}" in self.judge else scen
            script = self.judge.get(key, [PASS])
            with self.lock:
                i = self.calls.get(key, 0)
                self.calls[key] = i + 1
            item = script[i % len(script)]
            if isinstance(item, dict) and "status" in item:
                return int(item["status"]), {"error": {"message": item.get("body", "")}}
            content = item["raw"] if isinstance(item, dict) and "raw" in item else json.dumps(item)
        return 200, {
            "id": "j",
            "object": "chat.completion",
            "model": DRIVER,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 500, "completion_tokens": 80},
        }


def _sse(payload: dict[str, Any]) -> bytes:
    """A chat.completion as a stream: one delta chunk per piece, then usage, then [DONE]."""
    msg = payload["choices"][0]["message"]
    chunks: list[dict[str, Any]] = []
    base = {"id": "s", "object": "chat.completion.chunk", "model": payload["model"]}
    if msg.get("tool_calls"):
        tc = msg["tool_calls"][0]
        chunks.append(
            {
                **base,
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [{"index": 0, "id": tc["id"], "function": tc["function"]}]
                        },
                    }
                ],
            }
        )
        finish = "tool_calls"
    else:
        text = msg.get("content") or ""
        for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
            chunks.append({**base, "choices": [{"index": 0, "delta": {"content": piece}}]})
        finish = "stop"
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    chunks.append({**base, "choices": [], "usage": payload["usage"]})
    out = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)
    return out + b"data: [DONE]\n\n"


@contextmanager
def serve(world: World) -> Iterator[str]:
    """Serve `world` on 127.0.0.1; yields the base URL with /v1."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            with world.lock:
                world.requests.append(body)
            if body.get("model") == DRIVER:
                status, payload = world.driver_reply(body)
            else:
                status, payload = world.agent_reply(body)
            if status == 200 and body.get("stream"):
                data = _sse(payload)
                ctype = "text/event-stream"
            else:
                data = json.dumps(payload).encode()
                ctype = "application/json"
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    with running(Handler) as server:
        yield f"{url_of(server)}/v1"
