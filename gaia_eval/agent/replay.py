"""The replayed driver (`--driver-model replay:FILE`): scripted persona turns and judge
verdicts from a ReplayFile, so `gaia-eval agent` runs offline with a meaningful verdict.

Only the driver is replayed: the agent under test runs for real. Each verdict goes through
the model driver's own reply parser (driver.parse_judgement) and then the runner's rescoring
(blame.score_turn), so a replayed claimed overall is recomputed and clamped exactly as a
model's is. The file is checked against the scenarios before the run starts: a missing
scenario or turn is an input error naming it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from gaia_eval.agent.driver import REPLY_CHARS, Judged, parse_judgement
from gaia_eval.agent.models import (
    DriverUsage,
    ReplayFile,
    ReplayTurn,
    ReplayVerdict,
    Scenario,
    Turn,
)
from gaia_eval.agent.scenarios import _field
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.results_io import read_json

PREFIX = "replay:"


def load_replay(path: Path) -> ReplayFile:
    """A replay file; InvalidInputError naming the file and field."""
    try:
        return ReplayFile.model_validate(read_json(path))
    except ValidationError as err:
        first = err.errors()[0]
        msg = f"{path}: field {_field(first['loc'])!r}: {first['msg']}"
        raise InvalidInputError(msg) from None


class ReplayDriver:
    """A driver that replays a file: no model, no network, no cost."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.replay = load_replay(path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        # The label names the file's content, so runs of an edited replay are another driver.
        self.label = f"{PREFIX}{path.name}@{digest}"

    def endpoints(self) -> list[Endpoint]:
        return []

    def check(self, scenarios: Sequence[Scenario]) -> None:
        """Every scenario the run needs has every turn scripted, and every turn has a
        message and a verdict the model driver's parser accepts."""
        for sc in scenarios:
            script = self.replay.scenarios.get(sc.id)
            if script is None:
                msg = (
                    f"{self.path}: scenario {sc.id!r} is not in the replay file; add it under "
                    "'scenarios' or leave it out of the run (--scenarios)"
                )
                raise InvalidInputError(msg)
            turns = {t.turn: t for t in script.turns}
            for turn in sc.turns:
                rt = turns.get(turn.turn)
                where = f"{self.path}: scenarios.{sc.id} turn {turn.turn}"
                if rt is None:
                    msg = f"{where}: not scripted; the scenario has {len(sc.turns)} turn(s)"
                    raise InvalidInputError(msg)
                if not (rt.user_message or turn.user_message):
                    msg = f"{where}: no user_message here nor in the scenario; script one"
                    raise InvalidInputError(msg)
                for name, pattern in (
                    ("reply_matches", rt.reply_matches),
                    ("memory_matches", rt.memory_matches),
                ):
                    if pattern is None:
                        continue
                    if rt.otherwise is None:
                        msg = f"{where}: {name} needs an 'otherwise' verdict"
                        raise InvalidInputError(msg)
                    try:
                        re.compile(pattern)
                    except re.error as err:
                        msg = f"{where}: {name} is not a regular expression: {err}"
                        raise InvalidInputError(msg) from None
                for name, verdict in (("verdict", rt.verdict), ("otherwise", rt.otherwise)):
                    if verdict is not None:
                        _, why = parse_judgement(_verdict_text(verdict))
                        if why is not None:
                            msg = f"{where}: {name}: {why}"
                            raise InvalidInputError(msg)
            extra = sorted(set(turns) - {t.turn for t in sc.turns})
            if extra:
                msg = f"{self.path}: scenarios.{sc.id}: turn(s) {extra} are not in the scenario"
                raise InvalidInputError(msg)

    def _turn(self, sc: Scenario, turn: Turn) -> ReplayTurn:
        for rt in self.replay.scenarios[sc.id].turns:
            if rt.turn == turn.turn:
                return rt
        msg = f"{self.path}: scenarios.{sc.id} turn {turn.turn}: not scripted"
        raise InvalidInputError(msg)

    def write_message(
        self,
        sc: Scenario,
        turn: Turn,
        history: Sequence[tuple[str, str]],
        usage: DriverUsage,
        timeout: float,
    ) -> str:
        rt = self._turn(sc, turn)
        message = rt.user_message or turn.user_message
        assert message is not None  # check() refused a turn without one
        return message

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
        """The scripted verdict; `otherwise` when the reply does not match `reply_matches`
        or the memory read after a VERIFY VIA MCP turn does not match `memory_matches`."""
        rt = self._turn(sc, turn)
        verdict = rt.verdict
        if rt.otherwise is not None:
            if rt.reply_matches is not None and not re.search(
                rt.reply_matches, reply[:REPLY_CHARS], re.I | re.S
            ):
                verdict = rt.otherwise
            if rt.memory_matches is not None and not re.search(
                rt.memory_matches, memory or "", re.I | re.S
            ):
                verdict = rt.otherwise
        text = _verdict_text(verdict)
        data, why = parse_judgement(text)
        return Judged(data, None if data is not None else f"unusable replay verdict: {why}", text)


def _verdict_text(verdict: ReplayVerdict) -> str:
    """The verdict as the JSON reply a model driver would have sent."""
    return json.dumps(verdict.model_dump(mode="json", by_alias=True, exclude_none=True))


def replay_path(text: str) -> Path:
    """`replay:FILE`'s file: a path, or `builtin:NAME` for a shipped replay
    (gaia_eval/agent/data/replays/NAME.json)."""
    if text.startswith("builtin:"):
        from gaia_eval.agent.scenarios import data_dir

        name = text.removeprefix("builtin:")
        path = data_dir() / "replays" / f"{name}.json"
        if not name or "/" in name or not path.is_file():
            shipped = sorted(p.stem for p in (data_dir() / "replays").glob("*.json"))
            msg = f"--driver-model replay:{text}: no such shipped replay; shipped: {shipped}"
            raise InvalidInputError(msg)
        return path
    path = Path(text)
    if not path.is_file():
        msg = f"--driver-model replay:{text}: file not found"
        raise InvalidInputError(msg)
    return path
