"""The 0-5 judge of a replayed answer against the recorded reference (spec §7 rubric).

A reply without a JSON object is a judge error, never a 0. A call that fails or gives no
usable JSON is tried up to 3 times with 2 s and 4 s backoff. An outage raises
InfrastructureError at once (the run stops resumably, the case unmeasured): the model
clients already retry unreachable and 5xx backends with their own backoff.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from gaia_eval.core.errors import GaiaEvalError, InfrastructureError
from gaia_eval.llm.spec import ModelSpec

PROMPT_CHARS, REFERENCE_CHARS, ANSWER_CHARS = 2000, 4000, 4000
ATTEMPTS = 3
BACKOFF_S: tuple[float, ...] = (2.0, 4.0)

SYSTEM = """You grade an AI coding assistant's answer against a reference answer that a strong
assistant gave to the same request in the same repository. Judge substance, not style,
wording or length: a different voice or toolset is fine. Score 0-5:
5 = matches or exceeds the reference;
4 = correct, a minor point missing;
3 = broadly right but thinner, or one real gap;
2 = partial, or right about the wrong thing;
1 = misses the point or mostly wrong;
0 = refuses, is unusable, or claims work it did not do (weigh this hardest).
Reply with one JSON object only: {"score": <0-5>, "verdict": "<at most 12 words>",
"rationale": "<at most 40 words>"}"""


# The reply's shape, sent as a json_schema response_format where the backend takes one
# (OpenAI-compatible servers, the local model): a small model writes JSON only under it.
REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "minimum": 0, "maximum": 5},
        "verdict": {"type": "string", "maxLength": 100},
        "rationale": {"type": "string", "maxLength": 300},
    },
    "required": ["score", "verdict", "rationale"],
}


# Room for the reply the schema allows (about 120 tokens), so a server's own lower default
# cannot cut the JSON off.
REPLY_MAX_TOKENS = 300


@dataclass(frozen=True)
class Judgement:
    """One judge call's outcome: a score, or the error why there is none."""

    score: float | None
    verdict: str
    rationale: str
    attempts: int
    error: str | None = None
    raw: str = ""


def judge_prompt(prompt: str, reference: str, answer: str) -> str:
    """The user message: the three texts, truncated."""
    return (
        f"REQUEST:\n{prompt[:PROMPT_CHARS]}\n\n"
        f"REFERENCE ANSWER:\n{reference[:REFERENCE_CHARS]}\n\n"
        f"ANSWER TO GRADE:\n{answer[:ANSWER_CHARS] or '(no answer)'}"
    )


def _flatten(text: Any) -> str:
    # Some clients hand back content blocks rather than a string.
    if isinstance(text, list):
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in text)
    return str(text)


def parse_reply(text: str) -> tuple[float, str, str] | None:
    """(score, verdict, rationale) from the first JSON object holding a 0-5 score."""
    for match in re.finditer(r"\{", text):
        try:
            data, _ = json.JSONDecoder().raw_decode(text[match.start() :])
        except json.JSONDecodeError:
            continue
        if not isinstance(data, dict):
            continue
        score = data.get("score")
        if isinstance(score, bool) or not isinstance(score, int | float):
            continue
        if not 0 <= score <= 5:
            continue
        return (
            float(score),
            str(data.get("verdict", ""))[:200],
            str(data.get("rationale", ""))[:600],
        )
    return None


def judge(spec: ModelSpec, prompt: str, reference: str, answer: str) -> Judgement:
    """Score `answer`; InfrastructureError when the judge stayed unreachable."""
    from gaia_eval.llm.complete import complete

    user = judge_prompt(prompt, reference, answer)
    last_error = ""
    last_raw = ""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            reply = complete(
                spec,
                SYSTEM,
                user,
                timeout_s=300.0,
                max_tokens=REPLY_MAX_TOKENS,
                json_schema=REPLY_SCHEMA,
            )
        except InfrastructureError:
            raise
        except GaiaEvalError as err:
            last_error = f"judge request failed: {err}"
        else:
            last_raw = _flatten(reply.text)
            parsed = parse_reply(last_raw)
            if parsed is not None:
                score, verdict, rationale = parsed
                return Judgement(score, verdict, rationale, attempt, raw=last_raw)
            last_error = "judge reply held no JSON with a 0-5 score"
        if attempt < ATTEMPTS:
            time.sleep(BACKOFF_S[min(attempt - 1, len(BACKOFF_S) - 1)])
    return Judgement(None, "", "", ATTEMPTS, error=last_error, raw=last_raw[:2000])
