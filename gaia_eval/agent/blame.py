"""gaia_eval's own scoring of a judged turn: clamp, rules, weighted score, pass, blame.

The judge's arithmetic is never trusted: each dimension is clamped to [0, 10], the rules
below are applied from what gaia_eval saw itself, and the weighted score is recomputed.
Rules: a garbled, empty, raw-JSON or bare tool-label reply sets correctness, completeness
and tool_selection to 0; re-asking for given information caps context_retention at 4; a
loop of 3 or more identical tool calls sets efficiency to 0. Pass: correctness >= 4 and
overall >= 6.0. Blame of a failed turn is the judge's (agent when it names none), with
its evidence; failures blamed on the driver are reported apart from agent failures.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from gaia_eval.agent.models import DIMENSIONS, Blame, Scores, ToolUse, TurnPerformance

PASS_CORRECTNESS = 4.0
PASS_OVERALL = 6.0
FAIL_SCORE_CAP = 5.99
LOW_TPS, HIGH_TTFT_S, TOKEN_EXPLOSION = 5.0, 5.0, 4000
_TOOL_LABEL = re.compile(r"^\s*\[?[A-Za-z_][\w.]*\((.|\n)*\)\]?\s*$")


def weighted(scores: Scores) -> float:
    return round(float(sum(getattr(scores, k) * w for k, w in DIMENSIONS.items())), 3)


def _clamp(v: Any) -> float:
    return max(0.0, min(10.0, float(v)))


def bad_reply(text: str) -> str | None:
    """Why a reply is not an answer at all, or None."""
    s = text.strip()
    if not s:
        return "empty reply"
    if _TOOL_LABEL.match(s) and len(s) < 200:
        return "a bare tool-call label"
    if s[0] in "{[":
        try:
            json.loads(s)
        except ValueError:
            pass
        else:
            return "a raw JSON leak"
    printable = sum(1 for c in s if c.isprintable() or c.isspace())
    if printable < 0.9 * len(s) or _repeats(s):
        return "garbled output"
    return None


def _repeats(text: str, times: int = 4) -> bool:
    """A sentence of 20+ characters said `times` times or more: a degenerate loop."""
    seen: dict[str, int] = {}
    for raw in re.split(r"(?<=[.!?])\s+|\n+", text):
        part = raw.strip()
        if len(part) >= 20:
            seen[part] = seen.get(part, 0) + 1
            if seen[part] >= times:
                return True
    return False


def identical_loop(tools: Sequence[ToolUse]) -> bool:
    run = 1
    for a, b in itertools.pairwise(tools):
        run = run + 1 if (a.name, a.arguments) == (b.name, b.arguments) else 1
        if run >= 3:
            return True
    return False


def score_turn(
    judge: dict[str, Any], reply: str, tools: Sequence[ToolUse]
) -> tuple[Scores, float, bool, list[str]]:
    """(scores after the rules, weighted overall, pass, the rules that fired)."""
    raw = judge["scores"]
    values = {k: _clamp(raw[k]) for k in DIMENSIONS}
    rules: list[str] = []
    for k in DIMENSIONS:
        if float(raw[k]) != values[k]:
            rules.append(f"{k} {raw[k]} clamped to {values[k]:g}")
    why = bad_reply(reply)
    if why is not None:
        for k in ("correctness", "completeness", "tool_selection"):
            values[k] = 0.0
        rules.append(f"{why}: correctness, completeness and tool_selection set to 0")
    if judge.get("reasked") is True and values["context_retention"] > 4:
        values["context_retention"] = 4.0
        rules.append("re-asked for given information: context_retention capped at 4")
    if identical_loop(tools):
        values["efficiency"] = 0.0
        rules.append("3+ identical tool calls in a row: efficiency set to 0")
    scores = Scores(**values)
    overall = weighted(scores)
    passed = scores.correctness >= PASS_CORRECTNESS and overall >= PASS_OVERALL
    return scores, overall, passed, rules


def verify_memory(
    scores: Scores, judge: dict[str, Any], impossible: str | None
) -> tuple[Scores, float, bool, str | None]:
    """A `VERIFY VIA MCP:` turn: correctness 0 unless the judge verified it from the memory
    (`verified: true`); `impossible` says why there was no memory to read. Returns the
    scores, overall, pass and the rule that fired (None when verified)."""
    if impossible is not None:
        rule = f"VERIFY VIA MCP: impossible ({impossible}): correctness set to 0"
    elif judge.get("verified") is not True:
        said = "failed" if judge.get("verified") is False else "not confirmed by the judge"
        rule = f"VERIFY VIA MCP: {said} from the memory: correctness set to 0"
    else:
        overall = weighted(scores)
        return (
            scores,
            overall,
            scores.correctness >= PASS_CORRECTNESS and overall >= PASS_OVERALL,
            None,
        )
    scores = scores.model_copy(update={"correctness": 0.0})
    overall = weighted(scores)
    return scores, overall, False, rule


def blame_of(judge: dict[str, Any]) -> tuple[Blame, str]:
    said = str(judge.get("blame", "")).lower()
    blame: Blame = said if said in ("agent", "driver", "environment") else "agent"  # type: ignore[assignment]
    return blame, str(judge.get("blame_evidence", ""))[:600]


def flags(perf: TurnPerformance) -> list[str]:
    out: list[str] = []
    if perf.tokens_per_second is None and perf.time_to_first_token is None:
        out.append("no_stats")
    if perf.tokens_per_second is not None and perf.tokens_per_second < LOW_TPS:
        out.append("low_throughput")
    if perf.time_to_first_token is not None and perf.time_to_first_token > HIGH_TTFT_S:
        out.append("high_latency")
    if perf.input_tokens > TOKEN_EXPLOSION:
        out.append("token_explosion")
    return out
