"""The reference memory system under test (`--system gaia_eval.systems.memory:make`)."""

from __future__ import annotations

from gaia_eval.systems.memory.protocol import Memory
from gaia_eval.systems.memory.system import ReferenceMemory


def make() -> Memory:
    """A fresh, unopened reference memory (the default `--system`)."""
    return ReferenceMemory()


__all__ = ["Memory", "ReferenceMemory", "make"]
