"""`gaia-eval sessions --dataset-only` and the privacy rule, through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from tests.sessions_transcripts import Chat, answer_text

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PROMPT = f"Explain why the deploy token {TOKEN} in config.py fails authentication now."
PROMPT = PROMPT.replace("deploy ", "")  # destructive words are never cases


def _claude_dir(root: Path) -> Path:
    c = Chat("dddddddd-4444")
    c.user(PROMPT)
    c.answer(answer_text("the token") + f" The token {TOKEN} has expired.", tools=("Read",))
    c.write(root / "-proj")
    return root


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_dataset_only_writes_a_scrubbed_dataset(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    claude = _claude_dir(tmp_path / "projects")
    out = tmp_path / "out"
    code = main(["sessions", "--claude-dir", str(claude), "--dataset-only", "--out", str(out)])
    assert code == 0
    data = json.loads((out / "dataset.json").read_text())
    assert data["source"] == "claude-code-sessions"
    assert (data["sessions_scanned"], data["turns_extracted"]) == (1, 1)
    [case] = data["cases"]
    assert case["id"] == "dddddddd-000"
    assert case["tools_used"] == ["Read"]
    assert case["tags"] == ["explain"]
    assert TOKEN not in (out / "dataset.json").read_text()
    assert "1 case(s) selected" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["dataset.json"]


def test_refuses_an_unignored_folder_in_a_work_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    claude = _claude_dir(tmp_path / "projects")
    repo = _git_repo(tmp_path / "repo")
    monkeypatch.chdir(repo)
    argv = ["sessions", "--claude-dir", str(claude), "--dataset-only"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "eval/results/sessions*/" in err and ".gitignore" in err
    assert not (repo / "eval").exists()
    assert main([*argv, "--out", "private/run1"]) == 2
    assert "`/private/run1/`" in capsys.readouterr().err
    (repo / ".gitignore").write_text("eval/results/sessions*/\n")
    assert main(argv) == 0
    [run] = (repo / "eval" / "results").iterdir()
    assert run.name.startswith("sessions-")
    assert (run / "dataset.json").is_file()
    # Outside any work tree nothing is refused.
    assert main([*argv, "--out", str(tmp_path / "elsewhere")]) == 0


def test_bad_input_names_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    claude = _claude_dir(tmp_path / "projects")
    argv = ["sessions", "--claude-dir", str(claude), "--dataset-only", "--out", str(tmp_path / "o")]
    assert main([*argv, "--project", "missing"]) == 2
    assert "--project 'missing'" in capsys.readouterr().err
    assert main(["sessions", "--claude-dir", str(tmp_path / "none"), "--dataset-only"]) == 2


def test_a_dead_judge_and_model_are_refused_before_any_case_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tasks_fakes import closed_port_url

    claude = _claude_dir(tmp_path / "projects")
    model, judge = f"openai:{closed_port_url()}#m", f"openai:{closed_port_url()}#j"
    argv = ["sessions", "--claude-dir", str(claude), "--harness", "builtin", "--model", model,
            "--judge-model", judge, "--out", str(tmp_path / "o")]  # fmt: skip
    assert main(argv) == 3
    err = capsys.readouterr().err
    # Both servers in one message, before anything ran or was written.
    assert f"--judge-model {judge!r}: nothing answers at" in err
    assert f"--model {model!r}: nothing answers at" in err
    assert not (tmp_path / "o").exists()
