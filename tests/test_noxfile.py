"""noxfile.py follows scientific-python/cookie and keeps its speed and lock promises.

Checked by reading the file (nox itself is not a test dependency)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOXFILE = ROOT / "noxfile.py"
TEXT = NOXFILE.read_text(encoding="utf-8")
TREE = ast.parse(TEXT)
SUITE_COMMANDS = {"retrieval", "tasks", "bench", "code"}


def _sessions() -> dict[str, ast.FunctionDef]:
    out = {}
    for node in TREE.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if "nox.session" in ast.unparse(dec):
                    out[node.name] = node
    return out


def _decorator(fn: ast.FunctionDef) -> ast.expr:
    (dec,) = [d for d in fn.decorator_list if "nox.session" in ast.unparse(d)]
    return dec


def test_script_header() -> None:
    lines = TEXT.splitlines()
    assert lines[0] in ("#!/usr/bin/env -S uv run --script", "#!/usr/bin/env python3")
    assert lines[1] == "# /// script"
    end = lines.index("# ///")
    meta = tomllib.loads("\n".join(line.removeprefix("# ") for line in lines[2:end]))
    assert any(re.match(r"^nox\b", d) for d in meta["dependencies"])
    assert NOXFILE.stat().st_mode & 0o111, "noxfile.py is not executable"


def test_main_guard_and_no_global_session_list() -> None:
    assert "nox.options.sessions" not in TEXT
    last = TREE.body[-1]
    assert isinstance(last, ast.If)
    assert ast.unparse(last.test) == "__name__ == '__main__'"
    assert ast.unparse(last.body[0]) == "nox.main()"


def test_every_session_says_whether_it_is_a_default() -> None:
    sessions = _sessions()
    assert {"tests", "lint", "retrieval_pr", "schema"} <= set(sessions)
    defaults = set()
    for name, fn in sessions.items():
        dec = _decorator(fn)
        assert isinstance(dec, ast.Call), f"{name}: give default= explicitly"
        kw = {k.arg: k.value for k in dec.keywords}
        assert "default" in kw, f"{name}: give default= explicitly"
        if ast.literal_eval(kw["default"]):
            defaults.add(name)
    assert defaults == {"lint", "tests"}


def test_generated_files_are_tagged_gen() -> None:
    kw = {k.arg: k.value for k in _decorator(_sessions()["schema"]).keywords}  # type: ignore[attr-defined]
    assert ast.literal_eval(kw["tags"]) == ["gen"]


def test_venvs_are_reused_and_tests_always_rebuild() -> None:
    assert 'nox.options.reuse_venv = "yes"' in TEXT
    assert 'nox.options.default_venv_backend = "uv|virtualenv"' in TEXT
    tests = ast.unparse(_sessions()["tests"])
    assert "rebuild=True" in tests
    install = ast.unparse(next(n for n in TREE.body if getattr(n, "name", "") == "_install"))
    assert "--no-build-isolation" in install and "-Cbuild-dir=" in install
    assert "'-v'" in install and "silent=False" in install  # build progress is shown


def _calls(fn: ast.FunctionDef) -> list[ast.Call]:
    return sorted(
        (n for n in ast.walk(fn) if isinstance(n, ast.Call)), key=lambda c: (c.lineno, c.col_offset)
    )


def test_suite_sessions_check_the_lock_before_installing_and_wait_in_the_suite() -> None:
    checked = 0
    for name, fn in _sessions().items():
        calls = _calls(fn)
        runs = [
            c for c in calls
            if ast.unparse(c.func) == "session.run" and c.args
            and isinstance(c.args[0], ast.Constant) and c.args[0].value == "gaia-eval"
            and isinstance(c.args[1], ast.Constant) and c.args[1].value in SUITE_COMMANDS
        ]  # fmt: skip
        if not runs:
            continue
        checked += 1
        names = [ast.unparse(c.func) for c in calls]
        assert "_await_lock" in names, f"{name}: no lock check"
        assert names.index("_await_lock") < names.index("_install"), f"{name}: installs first"
        for run in runs:
            assert any(ast.unparse(a) == "*wait" for a in run.args), f"{name}: no --wait-lock"
    assert checked >= 8


def test_the_suite_family_comes_from_the_registry_and_ci_runs_its_ci_entries() -> None:
    registry = tomllib.loads((ROOT / "gaia_eval/core/suites.toml").read_text(encoding="utf-8"))
    runs = registry["run"]
    assert "suite" in _sessions()
    assert "suites.toml" in TEXT and 'nox.parametrize("run", list(RUNS)' in TEXT
    # .ci/run runs the README's commands (the main job among them) as extracted.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8") + readme.split("```", 2)[1]
    for name, entry in runs.items():
        assert entry["suite"] in registry["suite"], f"run {name} names an unknown suite"
        if entry.get("ci"):
            alias = name.removesuffix("_smoke")  # tasks_smoke runs as the `tasks` alias
            assert f"suite({name})" in ci or f"-s {name}" in ci or f"-s {alias}" in ci, name
