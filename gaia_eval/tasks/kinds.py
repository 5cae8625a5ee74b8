"""Tasks on a real repository (SWE-bench, TheRock) differ from toybox tasks in four places,
and only there: how the workspace is built, what goes on PATH, what the fence also hides,
and how a finished attempt is scored. The runner asks `kind_for(task)` and calls these
hooks; a toybox task has no kind and runs exactly as before."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from gaia_eval.agents.fence import FenceExtra
    from gaia_eval.agents.workspace import Workspace
    from gaia_eval.tasks.definitions import TaskDef
    from gaia_eval.tasks.models import TaskResult
    from gaia_eval.tasks.runner import TasksConfig


class TaskKind(Protocol):
    def prepare(self, cfg: TasksConfig, task: TaskDef, work_root: Path) -> Workspace:
        """The workspace: a sealed checkout and its baseline copy."""
        ...

    def env(self, cfg: TasksConfig, task: TaskDef, env: dict[str, str]) -> dict[str, str]:
        """The agent's environment (the toolchain on PATH)."""
        ...

    def fence(self, cfg: TasksConfig, task: TaskDef, harness: str) -> FenceExtra:
        """Extra paths the fence hides or keeps for this task."""
        ...

    def finish(
        self,
        cfg: TasksConfig,
        task: TaskDef,
        *,
        ws: Workspace,
        result: TaskResult,
        task_dir: Path,
        results_dir: Path,
    ) -> None:
        """After the agent exited: the kind's verdict (in place) and its files."""
        ...


def kind_for(task: TaskDef) -> TaskKind | None:
    if task.swebench:
        from gaia_eval.tasks.swebench import SwebenchKind

        return SwebenchKind()
    if task.therock:
        from gaia_eval.tasks.therock import TheRockKind

        return TheRockKind()
    return None
