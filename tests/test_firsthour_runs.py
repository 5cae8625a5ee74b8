"""Runs that read right (issue 30): what a first-hour user reads at the end of a run, a
merge, a gate or a refused dataset says what happened, not something that looks like it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaia_eval.core import runloop
from gaia_eval.core.errors import NotComparableError
from gaia_eval.core.merge import merge
from gaia_eval.core.runloop import RunRequest

from engine_toy import ToySuite


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _toy(tmp_path: Path, out: str, n: int = 4, **kw: object) -> runloop.RunOutcome:
    items = tmp_path / "items.json"
    items.write_text(json.dumps({f"q{i}": {"value": i / 10} for i in range(n)}))
    tier = str(kw.pop("tier", "t1"))
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / out, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items, tier=tier), req)


def test_merge_of_two_suites_names_the_suites_before_any_digest(tmp_path: Path) -> None:
    _toy(tmp_path, "a", tier="t1")
    _toy(tmp_path, "b", tier="t2")
    with pytest.raises(NotComparableError) as err:
        merge([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    text = str(err.value)
    assert text.startswith("cannot merge runs of different suites:")
    assert "toy --suite t2" in text and "toy --suite t1" in text
    assert "definition_digest" not in text
