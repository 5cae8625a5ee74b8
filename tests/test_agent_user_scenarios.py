"""The user's own agent scenarios: ~/.gaia/eval/scenarios is loaded on every run (as the
specification says) beside `--scenarios-dir`; a bad file is exit 2 naming the file, the
field and the fix; an id that clashes with a shipped one (or another of yours) is exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from agent_helpers import scenario

from gaia_eval.agent.scenarios import USER_DIR_ENV, load_all, user_dir
from gaia_eval.cli.main import main


def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *docs: dict[str, object]) -> Path:
    """A HOME whose ~/.gaia/eval/scenarios holds these scenarios (the default location)."""
    folder = tmp_path / "home" / ".gaia" / "eval" / "scenarios"
    folder.mkdir(parents=True)
    for i, doc in enumerate(docs):
        (folder / f"s{i}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    monkeypatch.delenv(USER_DIR_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return folder


def test_home_folder_is_loaded_as_custom(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _home(tmp_path, monkeypatch, scenario("mine_one"))
    assert user_dir() == folder
    mine = [s for s in load_all() if s.scenario.id == "mine_one"]
    assert len(mine) == 1 and mine[0].tier == "custom"
    assert "~/.gaia/eval/scenarios" in mine[0].reason
    assert main(["agent", "--list", "--tier", "custom"]) == 0
    out = capsys.readouterr().out
    assert "mine_one" in out and str(folder / "s0.yaml") in out
    # Not in the shipped tiers: a smoke run is unchanged by the user's folder.
    assert main(["agent", "--list", "--tier", "smoke"]) == 0
    assert "mine_one" not in capsys.readouterr().out


def test_the_variable_moves_or_turns_off_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _home(tmp_path, monkeypatch, scenario("in_home"))
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.yml").write_text(yaml.safe_dump(scenario("in_other")), encoding="utf-8")
    monkeypatch.setenv(USER_DIR_ENV, str(other))
    ids = {s.scenario.id for s in load_all()}
    assert "in_other" in ids and "in_home" not in ids  # .yml counts too
    monkeypatch.setenv(USER_DIR_ENV, "")
    assert user_dir() is None
    assert not {"in_other", "in_home"} & {s.scenario.id for s in load_all()}


def test_the_same_folder_twice_loads_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _home(tmp_path, monkeypatch, scenario("twice"))
    loaded = [s for s in load_all(folder) if s.scenario.id == "twice"]
    assert len(loaded) == 1


def test_a_bad_home_file_is_exit_2_naming_file_field_and_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = scenario("bad_one")
    del bad["persona"]
    folder = _home(tmp_path, monkeypatch, bad)
    assert main(["agent", "--list", "--tier", "custom"]) == 2
    err = capsys.readouterr().err
    assert str(folder / "s0.yaml") in err
    assert "field 'persona' is required; add `persona: casual_user`" in err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(colour="blue"), "'colour': Extra inputs are not permitted; remove it"),
        (lambda d: d.update(turns="one"), "field 'turns'"),
        (lambda d: d["setup"].pop("index_documents"), "add `index_documents: []` under setup"),
        (lambda d: d.update(turns=[]), "add one (turn: 1)"),
    ],
)
def test_every_error_says_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: object, words: str
) -> None:
    from gaia_eval.core.errors import InvalidInputError

    data = scenario("fixme")
    change(data)  # type: ignore[operator]
    folder = _home(tmp_path, monkeypatch, data)
    with pytest.raises(InvalidInputError) as err:
        load_all()
    assert str(folder / "s0.yaml") in str(err.value) and words in str(err.value)


def test_an_id_that_clashes_with_a_shipped_one_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _home(tmp_path, monkeypatch, scenario("rag_heapq_smallest"))
    assert main(["agent", "--list"]) == 2
    err = capsys.readouterr().err
    assert str(folder / "s0.yaml") in err
    assert "scenario id 'rag_heapq_smallest' is already used by" in err
    assert "(a shipped scenario); rename it" in err


def test_an_id_that_clashes_between_home_and_scenarios_dir_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path, monkeypatch, scenario("dup"))
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "d.yaml").write_text(yaml.safe_dump(scenario("dup")), encoding="utf-8")
    assert main(["agent", "--list", "--scenarios-dir", str(extra)]) == 2
    err = capsys.readouterr().err
    assert str(extra / "d.yaml") in err and str(home / "s0.yaml") in err
    assert "(a shipped scenario)" not in err


def test_a_home_path_that_is_a_file_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "not-a-folder"
    f.write_text("x", encoding="utf-8")
    monkeypatch.setenv(USER_DIR_ENV, str(f))
    assert main(["agent", "--list"]) == 2
    assert "not a folder; make it a folder of scenario YAML files" in capsys.readouterr().err
