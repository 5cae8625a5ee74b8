"""The tool-record rules: runner summaries, `verified`, web use, the agent env filter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gaia_eval.agents.isolation import agent_env, is_secret_name
from gaia_eval.agents.models import ToolCall
from gaia_eval.tasks.checks import checks_that_ran, runner_summary, verified, web_uses


def call(i: int, name: str, result: str = "", is_error: bool = False, **args: Any) -> ToolCall:
    return ToolCall(index=i, name=name, args=args, result=result, is_error=is_error)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("....\n4 passed in 0.12s\n", True),
        ("===== 3 passed, 1 warning in 1.02s =====", True),
        ("FAILED x\n1 failed, 3 passed in 0.2s", False),
        ("== 2 passed, 1 error in 0.5s ==", False),
        ("3 passed, 2 subtests passed in 0.1s", True),
        ("Ran 4 tests in 0.003s\n\nOK", True),
        ("Ran 4 tests in 0.003s\n\nFAILED (failures=1)", False),
        ("no summary here", None),
        ("0 failed", None),
    ],
)
def test_runner_summary(text: str, expected: bool | None) -> None:
    got = runner_summary(text)
    assert (got[0] if got else None) is expected


def test_verified_needs_a_passing_run_after_the_last_edit() -> None:
    edit = call(0, "edit_file", "edited", path="a.py")
    ok = call(1, "run_shell", "exit code 0\n4 passed in 0.1s", command="python -m pytest -q")
    assert verified([edit, ok])
    assert not verified([ok, call(2, "write_file", "wrote", path="b.py")])
    # A failed edit does not reset; an errored edit is not an edit.
    assert verified([ok, call(2, "edit_file", "error", is_error=True, path="b.py")])
    # A command run twice counts by its latest run.
    bad = call(2, "run_shell", "exit code 0\n1 failed in 0.1s", command="python -m pytest -q")
    assert not verified([edit, ok, bad])
    # A failure a pipe prints is a failure even when the command exits 0.
    piped = call(1, "run_shell", "exit code 0\n1 failed, 3 passed in 0.1s", command="pytest | tail")
    assert not verified([edit, piped])
    # The tool's own structured verdict wins over parsing.
    structured = call(1, "run_pytest", "4 passed in 0.1s")
    structured.check_passed = False
    assert not verified([edit, structured])
    # Claude Code's names count too; edits through the shell are not seen.
    assert verified(
        [call(0, "Edit", path="a"), call(1, "Bash", "5 passed in 1s", command="pytest")]
    )
    assert verified([ok, call(2, "run_shell", "", command="sed -i s/a/b/ x.py")])
    assert not verified([call(0, "run_shell", "exit code 0\nfine", command="ls")])


def test_checks_that_ran_lists_summaries() -> None:
    ran = checks_that_ran(
        [
            call(0, "read_file", path="x"),
            call(1, "run_pytest", "1 failed, 2 passed in 0.3s", args=""),
        ]
    )
    assert ran == ["#1 run_pytest : FAILED (1 failed, 2 passed in 0.3s)"]


@pytest.mark.parametrize(
    ("name", "args", "web"),
    [
        ("WebSearch", {"query": "x"}, True),
        ("fetch_url", {"url": "http://127.0.0.1/x"}, True),
        ("run_shell", {"command": "curl https://example.com/a"}, True),
        ("run_shell", {"command": "curl http://localhost:8000/health"}, False),
        ("run_shell", {"command": "python -c 'import urllib'; wget"}, True),
        ("run_shell", {"command": "git clone repo"}, True),
        ("run_shell", {"command": "gh issue list"}, True),
        ("run_shell", {"command": "uv pip install x"}, True),
        ("run_shell", {"command": "npm view left-pad"}, True),
        ("run_shell", {"command": "git status && pytest"}, False),
        ("read_file", {"path": "http://example.com"}, False),
    ],
)
def test_web_use_detection(name: str, args: dict[str, Any], web: bool) -> None:
    assert bool(web_uses([call(0, name, **args)])) is web


def test_agent_env_drops_secrets_and_launcher_settings() -> None:
    base = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "OPENAI_API_KEY": "x",
        "my_token": "x",
        "DB_PASSWD": "x",
        "SESSION_COOKIE": "x",
        "GH_AUTH": "x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "CREDENTIALS_FILE": "x",
        "ANTHROPIC_BASE_URL": "x",
        "CLAUDE_CONFIG_DIR": "x",
        "GAIA_EVAL_OPENAI_BASE_URL": "x",
        "PYTHONPATH": "/src",
        "LANG": "en_US.UTF-8",
    }
    env = agent_env(base)
    assert set(env) == {
        "PATH",
        "HOME",
        "LANG",
        "PYTHONDONTWRITEBYTECODE",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
    }
    assert env["PATH"].endswith(":/usr/bin") and env["PATH"].split(":")[0].endswith("bin")
    assert is_secret_name("x-api-key") and not is_secret_name("EDITOR")
    # The rule is by substring, on purpose: a false positive costs nothing, a miss leaks.
    assert is_secret_name("MONKEY_PATCH")


def test_unchanged_naming_a_file_absent_from_the_baseline_is_a_definition_error(
    tmp_path: Path,
) -> None:
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.tasks.checks import check_unchanged

    (tmp_path / "base").mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "base" / "a.txt").write_text("x")
    (tmp_path / "proj" / "a.txt").write_text("x")
    assert check_unchanged(("a.txt",), tmp_path / "proj", tmp_path / "base").passed
    (tmp_path / "proj" / "a.txt").write_text("y")
    assert (
        check_unchanged(("a.txt",), tmp_path / "proj", tmp_path / "base").detail
        == "a.txt was modified"
    )
    with pytest.raises(InvalidInputError, match="absent from the baseline"):
        check_unchanged(("nope.txt",), tmp_path / "proj", tmp_path / "base")
