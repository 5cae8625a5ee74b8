"""Harnesses: how an agent is launched on a task and how its record is read back.

Every harness runs as one child process in its own process group, started by the runner
with the same clean environment and the same wall-clock cap (isolation.run_capped), so a
difference in the results is a difference between agents, not between their conditions.
`registry.build_harness(name, ...)` builds one by name.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Harness", "LaunchPlan"]


def __getattr__(name: str) -> Any:
    # Lazy: the agent child process (harnesses.child) imports this package, and the
    # protocol's pydantic models would add a second to every agent's start-up.
    if name in __all__:
        from gaia_eval.agents.harnesses import base

        return getattr(base, name)
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
