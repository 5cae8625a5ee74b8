"""Every harness by name, imported only when built; plug-ins register their own.

`build_harness(name, **options)` imports the harness class, builds it and checks the
result against the runtime-checkable Harness protocol, so a plug-in that misses a method
is refused with its name rather than failing halfway through a run.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from gaia_eval.agents.harnesses.base import Harness
from gaia_eval.core.errors import InvalidInputError

_HARNESSES: dict[str, str] = {
    "builtin": "gaia_eval.agents.harnesses.builtin:BuiltinHarness",
    "replay": "gaia_eval.agents.harnesses.replay:ReplayHarness",
    "command": "gaia_eval.agents.harnesses.command:CommandHarness",
    "claude-code": "gaia_eval.agents.harnesses.claude_code:ClaudeCodeHarness",
}


def harness_names() -> list[str]:
    """Registered harness names, in registration order."""
    return list(_HARNESSES)


def register_harness(name: str, target: str) -> None:
    """Register `module:Class` (or `module:factory`) as harness `name`."""
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        msg = f"harness {name!r}: target {target!r} must be 'module:Class'"
        raise InvalidInputError(msg)
    _HARNESSES[name] = target


def build_harness(name: str, **options: Any) -> Harness:
    """The harness `name` built with `options` (exit 2 naming the known ones otherwise)."""
    target = _HARNESSES.get(name)
    if target is None:
        msg = f"--harness {name!r}: expected one of {harness_names()}"
        raise InvalidInputError(msg)
    module, _, attr = target.partition(":")
    factory = getattr(import_module(module), attr)
    harness = factory(**options)
    if not isinstance(harness, Harness):
        msg = f"harness {name!r} ({target}) does not implement the Harness protocol"
        raise TypeError(msg)
    return harness
