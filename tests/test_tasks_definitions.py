"""tasks.json validation (§6.1) and the shipped suites."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.tasks.definitions import default_tasks_file, load_tasks, parse_tasks

RAW: dict[str, Any] = json.loads(default_tasks_file().read_text(encoding="utf-8"))


def _bad(mutate: Any) -> str:
    data = copy.deepcopy(RAW)
    mutate(data)
    with pytest.raises(InvalidInputError) as err:
        parse_tasks(data, Path("tasks.json"))
    return str(err.value)


def _task(data: dict[str, Any], tid: str) -> dict[str, Any]:
    return next(t for t in data["tasks"] if t["id"] == tid)


def test_shipped_suites() -> None:
    tf = load_tasks()
    assert tf.suites["core"] == (
        "21-qa",
        "02-bugfix",
        "b6-weekly-report",
        "b6-config-env",
        "b5-red-suite",
        "b5-flaky",
        "b5-dirty-tree",
    )
    assert set(tf.suites["adversarial"]) == {t for t in tf.tasks if t.startswith("b5-")}
    assert set(tf.suites["core"]) <= set(tf.suites["full"])
    assert set(tf.suites["adversarial"]) <= set(tf.suites["full"])
    assert (len(tf.suites["full"]), len(tf.suites["everyday"])) == (15, 14)
    assert [t.id for t in tf.select("core", ["b5-flaky", "21-qa"])] == ["21-qa", "b5-flaky"]


def test_probe_lines_are_joined() -> None:
    task = load_tasks().tasks["02-bugfix"]
    assert task.expect is not None and "\n" in task.expect.probe


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: _task(d, "02-bugfix").pop("expect"), "task '02-bugfix' field 'expect'"),
        (lambda d: _task(d, "02-bugfix").pop("prompt"), "task '02-bugfix' field 'prompt'"),
        (lambda d: _task(d, "02-bugfix").update(max_steps=0), "field 'max_steps'"),
        (lambda d: _task(d, "02-bugfix").update(check="swebench"), "swebench"),
        (lambda d: _task(d, "02-bugfix").update(check="vibes"), "field 'check'"),
        (lambda d: _task(d, "02-bugfix")["expect"].update(extra=1), "expect'.extra"),
        (lambda d: _task(d, "b5-flaky")["expect"].update(unchanged=["../x"]), "unchanged"),
        (lambda d: _task(d, "b5-flaky")["expect"].update(unchanged=["a\\b"]), "unchanged"),
        (lambda d: _task(d, "b5-flaky")["expect"].update(unchanged=["/etc/x"]), "unchanged"),
        (lambda d: _task(d, "b5-flaky")["expect"].update(unchanged=[]), "must not be empty"),
        (lambda d: _task(d, "21-qa").update(expect={"tests_pass": True}), "task '21-qa'"),
        (lambda d: _task(d, "21-qa").pop("wrong_answers"), "field 'wrong_answers'"),
        (lambda d: _task(d, "21-qa").update(genuine_answer=""), "field 'genuine_answer'"),
        (lambda d: _task(d, "21-qa").update(must_establish=[]), "field 'must_establish'"),
        (lambda d: _task(d, "b5-flaky").update(setup="nope"), "field 'setup'"),
        (lambda d: _task(d, "b5-flaky").update(gh={"mode": "x"}), "gh.mode"),
        (lambda d: _task(d, "b5-flaky").update(closed_book="yes"), "closed_book"),
        (lambda d: _task(d, "b5-flaky").update(colour=1), "field 'colour'"),
        (lambda d: d["tasks"].append(copy.deepcopy(d["tasks"][0])), "duplicate task id"),
        (lambda d: d["suites"].update(core=["nope"]), "undefined task 'nope'"),
        (lambda d: d["suites"].update(core=[]), "suite 'core'"),
        (lambda d: d.pop("suites"), "field 'suites'"),
    ],
)
def test_malformed_file_names_task_and_field(mutate: Any, needle: str) -> None:
    assert needle in _bad(mutate)


def test_unknown_suite_and_task_selection() -> None:
    tf = load_tasks()
    with pytest.raises(InvalidInputError, match="unknown suite"):
        tf.select("nope")
    with pytest.raises(InvalidInputError, match=r"--tasks"):
        tf.select("core", ["01-refactor"])


def test_bad_json_file(tmp_path: Path) -> None:
    bad = tmp_path / "tasks.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"tasks\.json"):
        load_tasks(bad)
