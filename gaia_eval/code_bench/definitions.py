"""The code tasks: one folder each, shipped as package data, validated on load.

    <task>/task.json      id, kind (generation | editing), category, summary,
                          reference_answer, optional invariant (a snippet file name),
                          refusal ({"all_of": [[words], ...]}), needs (["mypy"]), max_steps,
                          language (python, the default, or javascript: node --test runs
                          the *.test.mjs files; needs Node.js 20 or newer)
    <task>/prompt.md      what the agent is asked
    <task>/project/       the files the agent gets, visible tests under tests/
    <task>/hidden/        hidden tests, copied in only to grade (never shown to the agent)
    <task>/solution/      the reference solution: files that replace the project's (a
                          refusal task has none: its reference changes nothing)
    <task>/weak/          optional: a solution that passes the visible tests only

A malformed task is an InvalidInputError naming the file and the field, so a typo never
turns into a silently different benchmark. `--tasks-dir DIR` loads any folder of such tasks.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import read_json

KINDS = ("generation", "editing")
TASK_KEYS = {
    "id",
    "kind",
    "category",
    "summary",
    "reference_answer",
    "invariant",
    "refusal",
    "needs",
    "max_steps",
    "language",
}
LANGUAGES = ("python", "javascript")
KNOWN_NEEDS = ("mypy",)
DEFAULT_MAX_STEPS = 40
VISIBLE_TESTS = "tests"
HIDDEN_TESTS = "hidden_tests"
"""Where the hidden tests go in the graded copy (a sibling of tests/)."""
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class CodeTask:
    """One task, read from its folder."""

    id: str
    kind: str
    category: str
    summary: str
    prompt: str
    folder: Path
    reference_answer: str
    invariant: str | None
    """The invariant snippet's source (exit 0 = holds), run in the graded project."""
    refusal: tuple[tuple[str, ...], ...] | None
    """Refusal tasks: word groups; an answer explains the refusal when one of its
    sentences has a word of every group."""
    needs: tuple[str, ...]
    max_steps: int
    digest: str
    """sha256 (16 hex digits) over every file of the task folder."""
    language: str = "python"
    """What the tests run with: pytest (python) or node --test (javascript)."""

    @property
    def project_dir(self) -> Path:
        return self.folder / "project"

    @property
    def hidden_dir(self) -> Path:
        return self.folder / "hidden"

    @property
    def solution_dir(self) -> Path | None:
        solution = self.folder / "solution"
        return solution if solution.is_dir() else None

    @property
    def weak_dir(self) -> Path | None:
        weak = self.folder / "weak"
        return weak if weak.is_dir() else None

    @property
    def test_command(self) -> str:
        """How the agent runs the visible tests (said in the second try's prompt)."""
        return "node --test tests/" if self.language == "javascript" else "pytest tests"

    def definition(self) -> dict[str, Any]:
        """What the run's definition digest covers for this task."""
        return {"id": self.id, "kind": self.kind, "digest": self.digest}


def data_dir() -> Path:
    """The package data folder: tasks/ and replays/."""
    return Path(str(resources.files("gaia_eval.code_bench") / "data"))


def default_tasks_dir() -> Path:
    return data_dir() / "tasks"


def folder_digest(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            h.update(p.relative_to(root).as_posix().encode("utf-8") + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()[:16]


def _bad(path: Path, field: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: field {field!r}: {why}")


def _words(path: Path, value: object) -> tuple[tuple[str, ...], ...]:
    groups = value.get("all_of") if isinstance(value, dict) else None
    if (
        not isinstance(groups, list)
        or not groups
        or not all(
            isinstance(g, list) and g and all(isinstance(w, str) and w.strip() for w in g)
            for g in groups
        )
    ):
        raise _bad(path, "refusal", 'expected {"all_of": [["word", ...], ...]} (non-empty)')
    return tuple(tuple(w.lower() for w in g) for g in groups)


def load_task(folder: Path) -> CodeTask:
    """Read and check one task folder."""
    path = folder / "task.json"
    if not path.is_file():
        msg = f"{folder}: no task.json; a task folder holds task.json, prompt.md, project/, ..."
        raise InvalidInputError(msg)
    data = read_json(path)
    if not isinstance(data, dict):
        raise InvalidInputError(f"{path}: expected a JSON object")
    unknown = sorted(set(data) - TASK_KEYS)
    if unknown:
        raise _bad(path, unknown[0], f"unknown field; known fields: {sorted(TASK_KEYS)}")
    for key in ("id", "kind", "category", "summary", "reference_answer"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise _bad(path, key, "required, a non-empty string")
    task_id = data["id"]
    if not _ID.match(task_id) or task_id != folder.name:
        raise _bad(
            path,
            "id",
            f"must be lower-case words with hyphens and equal the folder name {folder.name!r}",
        )
    if data["kind"] not in KINDS:
        raise _bad(path, "kind", f"expected one of {list(KINDS)}, got {data['kind']!r}")
    prompt_file = folder / "prompt.md"
    if not prompt_file.is_file() or not prompt_file.read_text(encoding="utf-8").strip():
        raise InvalidInputError(f"{prompt_file}: missing or empty; it is the agent's prompt")
    if not (folder / "project").is_dir():
        raise InvalidInputError(f"{folder / 'project'}: missing folder (project/ is required)")
    if data.get("refusal") is None and not (folder / "solution").is_dir():
        # A refusal task's reference solution is to change nothing.
        raise InvalidInputError(f"{folder / 'solution'}: missing folder (the reference solution)")
    if not (folder / "project" / VISIBLE_TESTS).is_dir():
        raise InvalidInputError(
            f"{folder / 'project' / VISIBLE_TESTS}: the visible tests are missing"
        )
    if not (folder / "hidden").is_dir():
        raise InvalidInputError(f"{folder / 'hidden'}: the hidden tests are missing")
    invariant = None
    if data.get("invariant") is not None:
        name = data["invariant"]
        snippet = folder / str(name)
        if not isinstance(name, str) or not snippet.is_file():
            raise _bad(path, "invariant", f"names a file next to task.json; {snippet} is missing")
        invariant = snippet.read_text(encoding="utf-8")
    refusal = _words(path, data["refusal"]) if data.get("refusal") is not None else None
    needs = data.get("needs", [])
    if not isinstance(needs, list) or not all(n in KNOWN_NEEDS for n in needs):
        raise _bad(path, "needs", f"a list of {list(KNOWN_NEEDS)}")
    max_steps = data.get("max_steps", DEFAULT_MAX_STEPS)
    if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
        raise _bad(path, "max_steps", "a positive int")
    language = data.get("language", "python")
    if language not in LANGUAGES:
        raise _bad(path, "language", f"expected one of {list(LANGUAGES)}, got {language!r}")
    if language != "python" and (invariant is not None or needs):
        raise _bad(path, "language", "invariant and needs are for python tasks only")
    return CodeTask(
        id=task_id,
        kind=data["kind"],
        category=data["category"],
        summary=data["summary"],
        prompt=prompt_file.read_text(encoding="utf-8").strip(),
        folder=folder,
        reference_answer=data["reference_answer"],
        invariant=invariant,
        refusal=refusal,
        needs=tuple(needs),
        max_steps=max_steps,
        digest=folder_digest(folder),
        language=language,
    )


@cache
def _load(root: Path) -> tuple[CodeTask, ...]:
    if not root.is_dir():
        msg = f"--tasks-dir {root}: no such folder"
        raise InvalidInputError(msg)
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    if not folders:
        msg = f"{root}: no task folders here"
        raise InvalidInputError(msg)
    return tuple(load_task(f) for f in folders)


def load_tasks(root: Path | None = None) -> list[CodeTask]:
    """Every task of `root` (default: the shipped ones), in name order."""
    return list(_load((root or default_tasks_dir()).resolve()))


def select(tasks: list[CodeTask], wanted: list[str] | None) -> list[CodeTask]:
    """The tasks named in `wanted` (all when None); an unknown name is exit 2."""
    if wanted is None:
        return tasks
    by_id = {t.id: t for t in tasks}
    unknown = [w for w in wanted if w not in by_id]
    if unknown:
        msg = f"--tasks: unknown task id(s) {unknown}; known: {sorted(by_id)}"
        raise InvalidInputError(msg)
    return [by_id[w] for w in wanted]
