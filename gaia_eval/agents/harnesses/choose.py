"""`--harness NAME` and its options -> a built harness, for every command that runs agents
(`tasks run`, `code run`).

Each command says where its values come from (`get` for an optional value, `need` for a
required one, both raising exit 2 with the command's own wording) and which replay names
it ships (`reference` ...); the recorded command line gets every value used, so
`--resume DIR` re-runs the same agent.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gaia_eval.agents.harnesses.base import Harness
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import read_json

Get = Callable[[str], str | None]
"""key -> the value given for it, or None."""
Need = Callable[[str, str], str]
"""(key, why) -> the value given for it; raises InvalidInputError naming how to give it."""
Record = Callable[[str, object], None]
"""(flag, value) -> adds the flag to the recorded command line (None/False/"" skipped)."""

Scripts = dict[str, list[dict[str, Any]]]


@dataclass
class HarnessChoice:
    """A built harness and what the run records about it."""

    harness: Harness
    model: str
    """The header's model (the spec as given, or `replay` / `command`)."""
    system: str
    """The header's system: `builtin`, `replay:<name>`, `command:<template>`, ..."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Harness options that change the numbers (the replay scripts' digest)."""


def load_replay(path: Path) -> Scripts:
    """A replay scripts file: task id -> list of steps (`_`-keys are comments)."""
    data = read_json(path)
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if not k.startswith("_")}
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, list) for k, v in data.items()
    ):
        msg = f"{path}: expected an object of task id -> list of steps"
        raise InvalidInputError(msg)
    return data


def scripts_digest(data: object) -> str:
    """16 hex digits of sha256 over the scripts' canonical JSON."""
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()[:16]


def choose_harness(
    name: str,
    *,
    get: Get,
    need: Need,
    record: Record,
    full_access: bool,
    named_replays: Mapping[str, Path],
    claude_bin: str,
) -> HarnessChoice:
    """Build harness `name` from its options (exit 2 for a missing or unknown one)."""
    from gaia_eval.agents.harnesses.registry import build_harness, harness_names
    from gaia_eval.llm.spec import parse_model_spec

    if name not in harness_names():  # else it reads as `command` and asks for a template
        msg = f"--harness {name!r}: unknown; choose one of {', '.join(harness_names())}"
        raise InvalidInputError(msg)
    record("--harness", name)
    if name == "builtin":
        spec = parse_model_spec(need("model", "for --harness builtin"))
        record("--model", spec.text)
        harness = build_harness("builtin", model=spec, full_access=full_access)
        return HarnessChoice(harness, spec.text, "builtin")
    if name == "replay":
        given = need("replay", "for --harness replay")
        named = given in named_replays
        path = given if named else str(Path(given).resolve())
        scripts = load_replay(named_replays[given] if named else Path(path))
        record("--replay", path)
        model = get("model") or "replay"
        record("--model", get("model"))
        harness = build_harness("replay", scripts=scripts, full_access=full_access)
        # The system names the scripts by file name (the same on every machine); their
        # digest is a setting, so other scripts under the same name are not comparable.
        label = given if named else Path(given).name
        return HarnessChoice(
            harness, model, f"replay:{label}", {"replay_sha": scripts_digest(scripts)}
        )
    if name == "claude-code":
        text = need("model", "for --harness claude-code")
        record("--model", text)
        model = text.split(":", 1)[1] if text.startswith(("claude-code:", "anthropic:")) else text
        harness = build_harness("claude-code", model=model, executable=claude_bin)
        return HarnessChoice(harness, text, name)
    template = need("command_template", "for --harness command")
    record("--command-template", template)
    model = get("model") or "command"
    record("--model", get("model"))
    harness = build_harness(name, template=template, model=model)
    return HarnessChoice(harness, model, f"command:{template}")
