"""Harnesses: how an agent is launched on a task and how its record is read back.

Every harness runs as one child process in its own process group, started by the runner
with the same clean environment and the same wall-clock cap (isolation.run_capped), so a
difference in the results is a difference between agents, not between their conditions.
`registry.build_harness(name, ...)` builds one by name.
"""

from __future__ import annotations

from gaia_eval.tasks.harnesses.base import Harness, LaunchPlan

__all__ = ["Harness", "LaunchPlan"]
