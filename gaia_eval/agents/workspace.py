"""A fresh project copy per item, its setup, and a baseline snapshot outside the agent's
reach; diffs between them (docs/tasks.md). The suite says what to copy (tasks: the toybox
with a task's setup, tasks.setups.prepare; code: a task's project)."""

from __future__ import annotations

import difflib
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

IGNORED = ("__pycache__", ".pytest_cache", "*.pyc", ".mypy_cache", ".ruff_cache")
# A file bigger than this is summarised in a diff rather than spelled out line by line.
DIFF_FILE_LIMIT = 256 * 1024


@dataclass(frozen=True)
class Workspace:
    """Where one task runs: `project` is the agent's workdir, `baseline` the snapshot."""

    root: Path
    project: Path
    baseline: Path
    pristine: Path
    leftovers: tuple[Path, ...] = field(default=())
    """Files outside `root` the project's code writes (the toybox's cache), removed too."""

    def cleanup(self) -> None:
        for path in self.leftovers:
            path.unlink(missing_ok=True)
        shutil.rmtree(self.root, ignore_errors=True)


def copy_project(
    pristine: Path,
    work_root: Path,
    *,
    prefix: str,
    setup: Callable[[Path], None] | None = None,
) -> Workspace:
    """A fresh copy of `pristine` under `work_root`, changed by `setup`, and its snapshot.

    The project sits in its own folder; the baseline is a sibling the agent is never told
    about and the built-in harness's path boundary excludes.
    """
    work_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=work_root))
    project = root / "project"
    shutil.copytree(pristine, project, ignore=shutil.ignore_patterns(*IGNORED))
    if setup is not None:
        setup(project)
    baseline = root / ".baseline"
    shutil.copytree(project, baseline, symlinks=True)
    return Workspace(root=root, project=project, baseline=baseline, pristine=Path(pristine))


def _files(tree: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    if not tree.exists():
        return out
    for p in sorted(tree.rglob("*")):
        rel = p.relative_to(tree)
        if any(part in (".git", "__pycache__", ".pytest_cache") for part in rel.parts):
            continue
        if p.is_file() and not p.name.endswith(".pyc"):
            out[rel.as_posix()] = p
    return out


def _text(path: Path) -> list[str] | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def tree_diff(before: Path, after: Path) -> str:
    """A unified diff of two project trees (sorted, deterministic; .git ignored)."""
    a, b = _files(before), _files(after)
    chunks: list[str] = []
    for rel in sorted(set(a) | set(b)):
        pa, pb = a.get(rel), b.get(rel)
        if pa and pb and pa.read_bytes() == pb.read_bytes():
            continue
        size = max(pa.stat().st_size if pa else 0, pb.stat().st_size if pb else 0)
        la = _text(pa) if pa else []
        lb = _text(pb) if pb else []
        if la is None or lb is None or size > DIFF_FILE_LIMIT:
            what = "added" if not pa else "deleted" if not pb else "changed"
            chunks.append(f"--- {rel}: {what} ({size} bytes, not shown)\n")
            continue
        diff = difflib.unified_diff(
            la,
            lb,
            fromfile=f"a/{rel}" if pa else "/dev/null",
            tofile=f"b/{rel}" if pb else "/dev/null",
        )
        text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
        chunks.append(text)
    return "".join(chunks)


def touched_files(before: Path, after: Path) -> list[str]:
    """Project-relative paths that differ between two trees."""
    a, b = _files(before), _files(after)
    return [
        rel
        for rel in sorted(set(a) | set(b))
        if rel not in a or rel not in b or a[rel].read_bytes() != b[rel].read_bytes()
    ]
