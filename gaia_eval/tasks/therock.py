"""TheRock-style `diff` tasks: a real merged fix of a repository, pinned to two commits.

The agent gets a single-branch shallow checkout at `base` (the fix's parent) with its
remote removed, and the fix in no ref and no object (agents.checkout verifies it). After
the agent exited, a weak mechanical gate asks that it touched at least one of the
`reference_files`. Only in the judge step is the merge fetched: its parent is checked
against the pinned base (GitHub's base.sha of a pull request is not always that parent;
the grade is refused if they differ) and the reference diff `merge^..merge` is computed
for the judge, who is told it is one correct answer, not the only one.

The repository is `--therock-url` (default TheRock's, https://github.com/ROCm/TheRock;
`GAIA_BENCH_THEROCK_URL`), so any repository works, a local mirror included.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from gaia_eval.agents import checkout
from gaia_eval.agents.fence import FenceExtra
from gaia_eval.agents.workspace import Workspace, touched_files
from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.results_io import write_text
from gaia_eval.tasks.definitions import TaskDef
from gaia_eval.tasks.models import TaskResult

DEFAULT_URL = "https://github.com/ROCm/TheRock"
DEFAULT_REPO = "ROCm/TheRock"


def cache_key(url: str) -> str:
    """The bare cache's name: ROCm/TheRock for the default URL (shared with the
    code-retrieval suite's cache), else one per URL."""
    if url.rstrip("/").removesuffix(".git") == DEFAULT_URL:
        return DEFAULT_REPO
    return f"therock/url-{hashlib.sha256(url.encode('utf-8')).hexdigest()[:12]}"


def url_of(cfg: Any) -> str:
    return str(getattr(cfg, "therock_url", None) or DEFAULT_URL)


class TheRockKind:
    def prepare(self, cfg: Any, task: TaskDef, work_root: Path) -> Workspace:
        from gaia_eval.tasks.swebench import repo_workspace

        url = url_of(cfg)
        shared = checkout.shared_work_root(cfg.work_root)
        base, merge = task.therock["base"], task.therock["merge"]
        bare = checkout.ensure_commit(shared, cache_key(url), url, base)
        return repo_workspace(task, work_root, bare, base, forbidden=(merge,))

    def env(self, cfg: Any, task: TaskDef, env: dict[str, str]) -> dict[str, str]:
        return env

    def fence(self, cfg: Any, task: TaskDef, harness: str) -> FenceExtra:
        return FenceExtra(hide=[checkout.shared_work_root(cfg.work_root)])

    def finish(
        self,
        cfg: Any,
        task: TaskDef,
        *,
        ws: Workspace,
        result: TaskResult,
        task_dir: Path,
        results_dir: Path,
    ) -> None:
        if result.after_answer:
            return
        touched = touched_files(ws.baseline, ws.project)
        needed = set(task.therock["reference_files"])
        if not touched:
            result.passed, result.why = False, "nothing was changed"
        elif not needed & set(touched):
            shown = ", ".join(touched[:5])
            result.passed = False
            result.why = f"changed {shown}, none of the files the fix needs"
        else:
            result.passed, result.why = None, "awaiting judge"


def reference_diff(task: TaskDef, url: str, work_root: Path | None) -> str:
    """The judge step only: fetch the merge, check its parent is the pinned base, and
    return `git diff merge^ merge`; a mismatch is an InvalidInputError (grade refused)."""
    shared = checkout.shared_work_root(work_root)
    base, merge = task.therock["base"], task.therock["merge"]
    bare = checkout.ensure_commit(shared, cache_key(url), url, merge, depth=2)
    try:
        parent = checkout.git(bare, "rev-parse", "--verify", "--end-of-options", f"{merge}^1")
    except InfrastructureError as err:
        msg = f"task {task.id!r}: the merge {merge[:12]} has no parent in {url}"
        raise InvalidInputError(msg) from err
    if parent.strip() != base:
        msg = (
            f"task {task.id!r}: the parent of merge {merge[:12]} is {parent.strip()[:12]}, not "
            f"the pinned base {base[:12]}; the grade is refused (fix the pin)"
        )
        raise InvalidInputError(msg)
    return checkout.git(
        bare, "diff", "--no-color", "--no-ext-diff", "--end-of-options", f"{merge}^1", merge, "--"
    )


def write_reference(task: TaskDef, url: str, work_root: Path | None, task_dir: Path) -> str:
    diff = reference_diff(task, url, work_root)
    write_text(task_dir / "reference.diff", diff)
    return diff
