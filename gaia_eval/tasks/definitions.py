"""Load and validate `tasks.json` (docs/tasks.md).

A malformed file is an InvalidInputError naming the file, the task and the field, so a
typo in a task definition never turns into a silently different benchmark.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.jsontext import refuse_surrogates
from gaia_eval.core.results_io import read_json

CHECK_KINDS = ("mechanical", "stated", "diff")
EXPECT_KEYS = ("tests_pass", "probe", "unchanged")
GH_MODES = ("offline", "rate_limit", "transient")
TASK_KEYS = {
    "id",
    "check",
    "prompt",
    "max_steps",
    "expect",
    "must_establish",
    "genuine_answer",
    "wrong_answers",
    "setup",
    "gh",
    "closed_book",
    "therock",
}


def data_dir() -> Path:
    """The folder holding tasks.json and the toybox fixture, inside the installed package."""
    return Path(str(resources.files("gaia_eval.tasks") / "data"))


def default_tasks_file() -> Path:
    return data_dir() / "tasks.json"


def toybox_dir() -> Path:
    return data_dir() / "toybox"


@cache
def toybox_digest() -> str:
    """sha256 (16 hex digits) of the toybox fixture: a changed project changes the numbers."""
    root = toybox_dir()
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc":
            h.update(p.relative_to(root).as_posix().encode("utf-8") + b"\0")
            h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def task_definition(task: TaskDef) -> dict[str, Any]:
    """A task as JSON data (what the run's definition digest covers). The repository
    fields appear only when set, so a toybox task's digest is what it always was."""
    data = dataclasses.asdict(task)
    for key in ("therock", "swebench"):
        if not data[key]:
            del data[key]
    return data


@dataclass(frozen=True)
class Expect:
    """The mechanical checks of one task, run in this order: unchanged, tests_pass, probe."""

    unchanged: tuple[str, ...] = ()
    tests_pass: bool = False
    probe: str = ""


@dataclass(frozen=True)
class TaskDef:
    """One task of tasks.json."""

    id: str
    check: str
    prompt: str
    max_steps: int
    expect: Expect | None = None
    must_establish: tuple[str, ...] = ()
    genuine_answer: str = ""
    wrong_answers: tuple[str, ...] = ()
    setup: str = ""
    gh: dict[str, Any] = field(default_factory=dict)
    closed_book: str = ""
    therock: dict[str, Any] = field(default_factory=dict)
    """TheRock-style diff task: {base, merge, reference_files} (tasks.therock)."""
    swebench: dict[str, Any] = field(default_factory=dict)
    """SWE-bench task: {instance_id, repo, base_commit}, built from the dataset."""


@dataclass(frozen=True)
class TaskFile:
    """Suites (name -> task ids in run order) and tasks by id."""

    path: Path
    suites: dict[str, tuple[str, ...]]
    tasks: dict[str, TaskDef]

    def select(self, suite: str, only: list[str] | None = None) -> list[TaskDef]:
        """The tasks of `suite` in run order, optionally only the ids in `only`."""
        if suite not in self.suites:
            msg = f"--suite {suite!r}: unknown suite; {self.path} defines {sorted(self.suites)}"
            raise InvalidInputError(msg)
        ids = list(self.suites[suite])
        if only:
            unknown = [t for t in only if t not in ids]
            if unknown:
                msg = f"--tasks: {unknown} are not in suite {suite!r} (it has {ids})"
                raise InvalidInputError(msg)
            ids = [t for t in ids if t in only]
        return [self.tasks[t] for t in ids]


_BAD_PATH = re.compile(r"[\\:]")
_TASK_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _valid_rel_path(p: str) -> bool:
    return (
        bool(p) and not _BAD_PATH.search(p) and not p.startswith("/") and ".." not in p.split("/")
    )


class _Ctx:
    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> InvalidInputError:
        return InvalidInputError(f"{self.path}: {where}: {problem}")


def _str_list(ctx: _Ctx, where: str, value: Any, *, non_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ctx.fail(where, "must be a list of non-empty strings")
    if non_empty and not value:
        raise ctx.fail(where, "must not be empty")
    return tuple(value)


def _parse_expect(ctx: _Ctx, where: str, raw: Any) -> Expect:
    if not isinstance(raw, dict) or not raw:
        raise ctx.fail(where, f"must be an object with keys from {list(EXPECT_KEYS)}")
    extra = sorted(set(raw) - set(EXPECT_KEYS))
    if extra:
        raise ctx.fail(f"{where}.{extra[0]}", f"unknown key; allowed: {list(EXPECT_KEYS)}")
    tests_pass = raw.get("tests_pass", False)
    if not isinstance(tests_pass, bool):
        raise ctx.fail(f"{where}.tests_pass", "must be true or false")
    probe_raw = raw.get("probe", "")
    if isinstance(probe_raw, list):
        probe = "\n".join(_str_list(ctx, f"{where}.probe", probe_raw, non_empty=True))
    elif isinstance(probe_raw, str):
        probe = probe_raw
    else:
        raise ctx.fail(f"{where}.probe", "must be a string or a list of lines of Python")
    unchanged: tuple[str, ...] = ()
    if "unchanged" in raw:
        unchanged = _str_list(ctx, f"{where}.unchanged", raw["unchanged"], non_empty=True)
        for p in unchanged:
            if not _valid_rel_path(p):
                raise ctx.fail(
                    f"{where}.unchanged",
                    f"{p!r} must be a project-relative POSIX path (no backslash, colon, "
                    "leading '/' or '..')",
                )
    return Expect(unchanged=unchanged, tests_pass=tests_pass, probe=probe)


def _parse_task(ctx: _Ctx, index: int, raw: Any, setups: set[str]) -> TaskDef:
    if not isinstance(raw, dict):
        raise ctx.fail(f"tasks[{index}]", "must be an object")
    tid = raw.get("id")
    if not isinstance(tid, str) or not tid:
        raise ctx.fail(f"tasks[{index}].id", "required: a non-empty string")
    if not _TASK_ID.fullmatch(tid):
        # Ids name folders and items (`<id>#r2` for repeats): letters, digits, . _ - only.
        raise ctx.fail(f"tasks[{index}].id", f"{tid!r} may use only letters, digits, '.', '_', '-'")
    where = f"task {tid!r}"
    extra = sorted(set(raw) - TASK_KEYS)
    if extra:
        raise ctx.fail(
            f"{where} field {extra[0]!r}", f"unknown field; allowed: {sorted(TASK_KEYS)}"
        )
    check = raw.get("check")
    if check == "swebench":
        raise ctx.fail(
            f"{where} field 'check'", "swebench tasks are built from the dataset, not tasks.json"
        )
    if check not in CHECK_KINDS:
        raise ctx.fail(f"{where} field 'check'", f"required: one of {list(CHECK_KINDS)}")
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ctx.fail(f"{where} field 'prompt'", "required: a non-empty string")
    steps = raw.get("max_steps")
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ctx.fail(f"{where} field 'max_steps'", "required: a positive integer")
    expect = (
        _parse_expect(ctx, f"{where} field 'expect'", raw["expect"]) if "expect" in raw else None
    )
    must = _str_list(ctx, f"{where} field 'must_establish'", raw.get("must_establish", []))
    genuine = raw.get("genuine_answer", "")
    if not isinstance(genuine, str):
        raise ctx.fail(f"{where} field 'genuine_answer'", "must be a string")
    wrong = _str_list(ctx, f"{where} field 'wrong_answers'", raw.get("wrong_answers", []))
    setup = raw.get("setup", "")
    if not isinstance(setup, str) or (setup and setup not in setups):
        raise ctx.fail(f"{where} field 'setup'", f"must name one of {sorted(setups)}")
    gh = raw.get("gh", {})
    if not isinstance(gh, dict):
        raise ctx.fail(f"{where} field 'gh'", "must be an object {mode, window_s, writes}")
    if gh:
        if gh.get("mode", "offline") not in GH_MODES:
            raise ctx.fail(f"{where} field 'gh.mode'", f"must be one of {list(GH_MODES)}")
        writes = gh.get("writes", [])
        if not isinstance(writes, list) or not set(writes) <= {"label"}:
            raise ctx.fail(f"{where} field 'gh.writes'", "may only contain 'label'")
    closed = raw.get("closed_book", "")
    if closed not in ("", "instructed"):
        raise ctx.fail(f"{where} field 'closed_book'", 'must be "" or "instructed"')
    if "therock" in raw and check != "diff":
        raise ctx.fail(f"{where} field 'therock'", "only diff tasks take 'therock'")
    therock: dict[str, Any] = {}
    if "therock" in raw:
        from gaia_eval.tasks.therock_pins import parse_pins

        therock = parse_pins(raw["therock"], lambda w, p: ctx.fail(f"{where} field {w}", p))
    if check == "mechanical" and expect is None:
        raise ctx.fail(f"{where} field 'expect'", "a mechanical task needs an expect block")
    if check == "stated":
        if expect is not None:
            raise ctx.fail(f"{where} field 'expect'", "a stated task is judged; remove expect")
        if not must:
            raise ctx.fail(f"{where} field 'must_establish'", "a stated task needs the points")
        if not genuine.strip():
            raise ctx.fail(f"{where} field 'genuine_answer'", "a stated task needs a reference")
        if not wrong:
            raise ctx.fail(f"{where} field 'wrong_answers'", "a stated task needs wrong answers")
    if check == "diff":
        for key in ("expect", "setup", "must_establish"):
            if raw.get(key):
                raise ctx.fail(f"{where} field {key!r}", "a diff task takes no " + key)
    return TaskDef(
        id=tid,
        check=check,
        prompt=prompt,
        max_steps=steps,
        expect=expect,
        must_establish=must,
        genuine_answer=genuine,
        wrong_answers=wrong,
        setup=setup,
        gh=dict(gh),
        closed_book=closed,
        therock=therock,
    )


def parse_tasks(data: Any, path: Path) -> TaskFile:
    """Validate an already-parsed tasks.json document."""
    from gaia_eval.tasks.setups import SETUPS

    ctx = _Ctx(path)
    if not isinstance(data, dict):
        raise ctx.fail("top level", "must be an object with 'suites' and 'tasks'")
    raw_tasks = data.get("tasks")
    if not isinstance(raw_tasks, list) or not raw_tasks:
        raise ctx.fail("field 'tasks'", "required: a non-empty list of tasks")
    tasks: dict[str, TaskDef] = {}
    for i, raw in enumerate(raw_tasks):
        task = _parse_task(ctx, i, raw, set(SETUPS))
        if task.id in tasks:
            raise ctx.fail(f"task {task.id!r}", "duplicate task id")
        tasks[task.id] = task
    raw_suites = data.get("suites")
    if not isinstance(raw_suites, dict) or not raw_suites:
        raise ctx.fail("field 'suites'", "required: an object of suite name -> task ids")
    suites: dict[str, tuple[str, ...]] = {}
    for name, ids in raw_suites.items():
        members = _str_list(ctx, f"suite {name!r}", ids, non_empty=True)
        for tid in members:
            if tid not in tasks:
                raise ctx.fail(f"suite {name!r}", f"names undefined task {tid!r}")
        suites[name] = members
    return TaskFile(path=path, suites=suites, tasks=tasks)


def load_tasks(path: Path | None = None) -> TaskFile:
    """Load and validate a tasks.json (the shipped one by default)."""
    path = Path(path) if path else default_tasks_file()
    data = read_json(path)
    refuse_surrogates(data, path)  # a prompt no transcript or report could hold
    return parse_tasks(data, path)
