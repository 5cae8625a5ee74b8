"""The driver: one model spec plays the scenario's persona turn by turn and judges every turn.

Every driver request asks for JSON under a json_schema (`response_format`), so a model
that only produces JSON when constrained (the embedded `local` model) can drive too. A
judge reply that does not parse, or lacks a dimension, is a judge error after
`ATTEMPTS` tries, never a score. An outage (quota, credential, no answer) raises
InfrastructureError at once, naming the backend and, when the reply says, when the limit
resets: the run stops and is resumable.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gaia_eval.agent.models import DIMENSIONS, DriverUsage, Scenario, Turn
from gaia_eval.core.errors import GaiaEvalError, InfrastructureError
from gaia_eval.core.reach import Endpoint
from gaia_eval.llm.outage import phrase_kind
from gaia_eval.llm.spec import ModelSpec

ATTEMPTS = 2
BACKOFF_S = 1.0
REPLY_CHARS = 1500
MEMORY_CHARS = 1500
_RESET = re.compile(
    r"(?:limit resets?|resets? (?:at|in)|retry[- ]after|try again in)[^.;\"}]{0,60}", re.I
)

MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "scores": {
            "type": "object",
            "properties": {k: {"type": "integer"} for k in DIMENSIONS},
            "required": list(DIMENSIONS),
        },
        "overall_score": {"type": "number"},
        "pass": {"type": "boolean"},
        "reasked": {"type": "boolean"},
        "blocked": {"type": "boolean"},
        "verified": {"type": "boolean"},
        "failure_category": {"type": "string"},
        "blame": {"type": "string", "enum": ["agent", "driver", "environment", "none"]},
        "blame_evidence": {"type": "string"},
        "reasoning": {"type": "string"},
    },
    "required": ["scores", "pass", "blame", "reasoning"],
}

SIMULATOR = """You play a user talking to an AI assistant, in this persona: {persona}.
Write the user's next message for this objective. Stay in the persona; do not invent facts
about the documents; do not answer for the assistant. Reply with JSON {{"message": "..."}}."""

JUDGE = """You judge one turn of an AI assistant's conversation. Score each dimension 0-10:
correctness (0 if a number is more than 5% off, a name is wrong, it refuses lazily without
searching, or cites a source that does not exist; when the expected answer is null the
right answer is "not in the documents"), tool_selection, context_retention (set reasked
true if it asks again for something the user already said), completeness, efficiency,
personality, error_recovery. pass: true when correct and helpful. blocked: true only when
the assistant's design cannot do this at all. For a failed turn, blame: agent (its fault),
driver (the user message broke the persona, invented facts or ended early), environment
(a tool or document problem); else blame none, with evidence. When the prompt shows MEMORY
AFTER THE TURN, the success criteria say VERIFY VIA MCP: score correctness from that memory,
not from what the reply claims, and set verified true only when the memory shows what they
ask (else false, and correctness 0). Reply with JSON only."""


@dataclass
class Judged:
    """One judge outcome: the parsed reply, or why there is none."""

    data: dict[str, Any] | None
    error: str | None
    raw: str = ""


def reset_hint(text: str) -> str | None:
    m = _RESET.search(text)
    return m.group(0).strip() if m else None


def parse_judgement(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The first JSON object with all seven numeric dimensions; else (None, why)."""
    why = "the reply holds no JSON object"
    for match in re.finditer(r"\{", text):
        try:
            data, _ = json.JSONDecoder().raw_decode(text[match.start() :])
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict) or "scores" not in data:
            continue
        scores = data.get("scores")
        if not isinstance(scores, dict):
            why = "scores is not an object"
            continue
        missing = [
            k
            for k in DIMENSIONS
            if isinstance(scores.get(k), bool) or not isinstance(scores.get(k), int | float)
        ]
        if missing:
            why = f"scores lack {', '.join(missing)}"
            continue
        return data, None
    return None, why


def _turn_block(sc: Scenario, turn: Turn) -> str:
    lines = [f"SCENARIO: {sc.id}", f"TURN: {turn.turn}", f"OBJECTIVE: {turn.objective}"]
    gt = turn.ground_truth
    if gt is not None:
        lines.append(
            "EXPECTED ANSWER: "
            + ("null (not in the documents)" if gt.expected_answer is None else gt.expected_answer)
        )
        if gt.expected_behavior:
            lines.append(f"EXPECTED BEHAVIOUR: {gt.expected_behavior}")
    if turn.success_criteria:
        lines.append(f"SUCCESS CRITERIA: {turn.success_criteria}")
    return "\n".join(lines)


class ModelDriver:
    """The driver over a model spec (any backend gaia_eval.llm.complete speaks)."""

    def __init__(
        self,
        spec: ModelSpec,
        *,
        price_override: tuple[float, float] | None = None,
        timeout_s: float = 300.0,
        max_tokens: int = 400,
        backoff_s: float | None = None,
    ) -> None:
        self.spec = spec
        self.price_override = price_override
        self.timeout_s = timeout_s
        self.max_tokens = max_tokens
        self.backoff_s = BACKOFF_S if backoff_s is None else backoff_s
        self.label = spec.text
        """What the run's header records as its judge."""

    def endpoints(self) -> list[Endpoint]:
        from gaia_eval.llm.preflight import model_endpoints

        return model_endpoints(self.spec, "--driver-model")

    def _ask(
        self, system: str, prompt: str, schema: dict[str, Any], usage: DriverUsage, timeout: float
    ) -> str:
        from gaia_eval.llm.complete import complete

        try:
            reply = complete(
                self.spec,
                system,
                prompt,
                timeout_s=max(1.0, min(self.timeout_s, timeout)),
                price_override=self.price_override,
                max_tokens=self.max_tokens,
                json_schema=schema,
            )
        except InfrastructureError as err:
            raise self._outage(str(err)) from err
        except GaiaEvalError as err:
            # A 400 that names a bad credential or an exhausted quota is an outage, not
            # a driver error (the one phrase table, gaia_eval.llm.outage).
            kind = phrase_kind(str(err))
            if kind == "credentials":
                raise self._outage(f"credential rejected: {err}") from err
            if kind == "quota":
                raise self._outage(f"quota: {err}") from err
            raise
        usage.calls += 1
        usage.input_tokens += reply.input_tokens
        usage.output_tokens += reply.output_tokens
        if reply.cost_usd is not None:
            usage.cost_usd = round((usage.cost_usd or 0.0) + reply.cost_usd, 6)
            usage.cost_source = reply.cost_source
        return reply.text

    def _outage(self, text: str) -> InfrastructureError:
        hint = reset_hint(text)
        when = f"; the limit resets: {hint}" if hint else "; reset time unknown"
        return InfrastructureError(f"driver {self.spec.text}: {text}{when}")

    def write_message(
        self,
        sc: Scenario,
        turn: Turn,
        history: Sequence[tuple[str, str]],
        usage: DriverUsage,
        timeout: float,
    ) -> str:
        """The simulated user's message (the scenario's own `user_message` when given)."""
        if turn.user_message:
            return turn.user_message
        past = "\n".join(f"USER: {u}\nASSISTANT: {a[:400]}" for u, a in history[-3:])
        prompt = f"{_turn_block(sc, turn)}\nCONVERSATION SO FAR:\n{past or '(none)'}"
        text = self._ask(
            SIMULATOR.format(persona=sc.persona), prompt, MESSAGE_SCHEMA, usage, timeout
        )
        try:
            data = json.loads(text)
            msg = str(data.get("message", "")).strip() if isinstance(data, dict) else ""
        except ValueError:
            msg = text.strip()
        return msg or turn.objective

    def judge_turn(
        self,
        sc: Scenario,
        turn: Turn,
        history: Sequence[tuple[str, str]],
        user_message: str,
        *,
        reply: str,
        tools: Sequence[str],
        usage: DriverUsage,
        timeout: float,
        memory: str | None = None,
    ) -> Judged:
        """`memory`: on a VERIFY VIA MCP turn, the agent's memory as read after the turn."""
        past = "\n".join(f"USER: {u}\nASSISTANT: {a[:300]}" for u, a in history[-3:])
        prompt = (
            f"{_turn_block(sc, turn)}\nPERSONA: {sc.persona}\n"
            f"EARLIER TURNS:\n{past or '(none)'}\n"
            f"USER MESSAGE: {user_message}\n"
            f"TOOLS CALLED: {', '.join(tools) or '(none)'}\n"
            f"ASSISTANT REPLY: {reply[:REPLY_CHARS] or '(empty)'}"
        )
        if memory is not None:
            prompt += (
                "\nMEMORY AFTER THE TURN (read from the agent's memory store, as its memory "
                f"read tools list it):\n{memory[:MEMORY_CHARS]}"
            )
        last = Judged(None, "no judge reply")
        deadline = time.monotonic() + timeout
        for attempt in range(1, ATTEMPTS + 1):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                text = self._ask(JUDGE, prompt, JUDGE_SCHEMA, usage, left)
            except InfrastructureError:
                raise
            except GaiaEvalError as err:
                last = Judged(None, f"judge request failed: {err}")
            else:
                data, why = parse_judgement(text)
                if data is not None:
                    return Judged(data, None, text[:2000])
                last = Judged(None, f"unusable judge reply: {why}", text[:2000])
            if attempt < ATTEMPTS:
                time.sleep(self.backoff_s)
        return last
