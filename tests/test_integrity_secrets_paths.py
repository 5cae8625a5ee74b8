"""Integrity round 2 (issue 27 items 11, 12): a session replay never copies a folder that is
not a repository (a home folder with .ssh and .aws) into the agent's work folder, never a
folder into itself; an agent scenario's document outside its folder is refused, with the
RAG datasets' opt-in. Through the real CLI where the case is about the CLI."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml
from agent_helpers import scenario

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.sessions.workspace import prepare
from tests.sessions_transcripts import Chat, answer_text
from tests.tasks_fakes import FakeLLM, serve

PROMPT = "Explain how the retry logic in client.py works and why timeouts are retried."


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / "u"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("[default]\n")
    return home


def _claude(root: Path, cwd: Path) -> Path:
    c = Chat("abcdef01-1111", cwd=str(cwd))
    c.user(PROMPT)
    c.answer(answer_text("retries"), tools=("Read",))
    c.write(root / "-home-u")
    return root


def test_session_cwd_that_is_not_a_repository_is_refused_through_the_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = _home(tmp_path)
    claude = _claude(tmp_path / "projects", home)
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)
    grader = {"content": '{"score": 5, "verdict": "v", "rationale": "r"}'}
    with serve(FakeLLM([grader] * 5)) as url:
        argv = ["sessions", "--claude-dir", str(claude), "--harness", "replay", "--replay",
                "reference", "--judge-model", f"openai:{url}/v1#judge",
                "--out", str(tmp_path / "run")]  # fmt: skip
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert "abcdef01-000" in err and "abcdef01-1111" in err, err
    assert "is not a git repository" in err and '"cwd": null' in err
    # Nothing of the home folder was copied anywhere the agent could read it.
    assert not list(temp.rglob("id_ed25519")) and not list(temp.rglob("credentials"))


def test_prepare_refuses_a_folder_that_is_not_a_repository(tmp_path: Path) -> None:
    home = _home(tmp_path)
    with pytest.raises(InvalidInputError) as err:
        prepare(str(home), None, tmp_path / "w", case="abcdef01-000", session="abcdef01-1111")
    assert "abcdef01-000" in str(err.value) and "abcdef01-1111" in str(err.value)
    assert not (tmp_path / "w").exists()


def test_a_repository_holding_the_temp_folder_is_cloned_not_copied_into_itself(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "a.txt").write_text("tracked\n")
    (repo / "untracked-secret.txt").write_text("not for the agent\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo)]
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "m"], check=True)
    dest = repo / "tmp" / "run" / "work"  # the run's temp folder lies inside the cwd
    work, kind = prepare(str(repo), None, dest)
    assert kind == "git" and (work / "a.txt").read_text() == "tracked\n"
    assert not (work / "untracked-secret.txt").exists() and not (work / "tmp").exists()


def _scenario_with(tmp_path: Path, doc: str, **setup: object) -> Path:
    folder = tmp_path / "scenarios"
    folder.mkdir(exist_ok=True)
    data = scenario("outside-doc", docs=[doc])
    data["setup"].update(setup)
    (folder / "s.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["absolute", "climbs", "symlink"])
def test_scenario_document_outside_its_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    secret = tmp_path / "private" / "notes.txt"
    secret.parent.mkdir()
    secret.write_text("the launch code is 0000\n")
    if how == "absolute":
        doc = str(secret)
    elif how == "climbs":
        doc = "../private/notes.txt"
    else:
        (tmp_path / "scenarios").mkdir()
        (tmp_path / "scenarios" / "link.txt").symlink_to(secret)
        doc = "link.txt"
    folder = _scenario_with(tmp_path, doc)
    out = tmp_path / "run"
    argv = ["agent", "--tier", "custom", "--scenarios-dir", str(folder), "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "s.yaml" in err and "setup.index_documents[0].path" in err, err
    assert "outside the folder" in err and "--allow-outside" in err
    assert not (out / "items.jsonl").exists()
    # The same opt-ins as a RAG dataset: the flag, or the scenario's own field.
    assert main(["agent", "--list", "--tier", "custom", "--scenarios-dir", str(folder)]) == 2
    capsys.readouterr()
    listing = ["agent", "--list", "--tier", "custom", "--scenarios-dir", str(folder)]
    assert main([*listing, "--allow-outside"]) == 0
    assert "outside-doc" in capsys.readouterr().out
    _scenario_with(tmp_path, doc, allow_outside=True)
    assert main(listing) == 0
    assert "outside-doc" in capsys.readouterr().out


def test_scenario_document_inside_its_folder_still_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "scenarios"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "a.txt").write_text("inside\n")
    _scenario_with(tmp_path, "docs/../docs/a.txt")
    assert main(["agent", "--list", "--tier", "custom", "--scenarios-dir", str(folder)]) == 0
    assert "outside-doc" in capsys.readouterr().out
