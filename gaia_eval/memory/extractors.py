"""Extractors: the scripted one of the `pr` suite, built from a scenario's `extract` answers.

The script is what a plausible model answers for each turn, mistakes included (a document's
figures filed as the user's, a friend's allergy, a weather lookup), so the `pr` suite tests
what a memory system does with a realistic extractor, deterministically and in seconds.
"""

from __future__ import annotations

from collections import defaultdict, deque
from datetime import datetime

from gaia_eval.memory.scenario import ExtractSpec, Scenario, parse_duration, resolve_time
from gaia_eval.systems.memory.protocol import Candidate, ConsolidationRequest, Turn
from gaia_eval.systems.memory.text import norm_key


def candidate_of(spec: ExtractSpec, at: datetime) -> Candidate:
    """An extract (or remember) spec as a candidate, its times resolved from `at`."""
    return Candidate(
        kind=spec.kind,
        subject=spec.subject,
        attribute=spec.attribute,
        value=spec.value,
        source=spec.source,
        confidence=spec.confidence,
        since=resolve_time(spec.since, at) if spec.since is not None else None,
        due=resolve_time(spec.due, at) if spec.due is not None else None,
        window=parse_duration(spec.window) if spec.window else None,
        status=spec.status,
        scope=spec.scope,
    )


class ScriptedExtractor:
    """Answers each turn with the scenario's scripted candidates (matched by chat and text)."""

    spec = "scripted"

    def __init__(self, scenario: Scenario) -> None:
        self._answers: dict[tuple[str, str], deque[list[Candidate]]] = defaultdict(deque)
        for chat in scenario.chats:
            for turn in chat.turns:
                cands = [candidate_of(e, turn.at) for e in turn.extract]
                self._answers[(chat.id, turn.user)].append(cands)
        self._merges = {frozenset(norm_key(v) for v in c.values): c for c in scenario.consolidate}
        self.unmatched = 0
        """Turns the system asked about that the script has no answer for."""

    def extract(self, turn: Turn) -> list[Candidate]:
        queue = self._answers.get((turn.chat_id, turn.user_text))
        if not queue:
            self.unmatched += 1
            return []
        return queue.popleft()

    def consolidate(self, request: ConsolidationRequest) -> tuple[str, str] | None:
        key = frozenset(norm_key(v) for _, v in request.items)
        scripted = self._merges.get(key)
        if scripted is not None:
            if scripted.keep:
                return None
            attribute, value = request.items[-1]
            return (scripted.attribute or attribute, scripted.value or value)
        # A plausible model keeps the newest wording of a duplicate.
        return request.items[-1]
