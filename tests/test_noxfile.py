"""noxfile.py follows scientific-python/cookie and keeps its speed and lock promises.

Checked by reading the file (nox itself is not a test dependency)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

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
    assert {"tests", "lint", "schema"} <= set(sessions)
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


def _function(name: str) -> ast.FunctionDef:
    return next(n for n in TREE.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _checks_the_lock_then_installs(name: str, fn: ast.FunctionDef) -> None:
    calls = _calls(fn)
    runs = [
        c for c in calls
        if ast.unparse(c.func) == "session.run" and c.args
        and isinstance(c.args[0], ast.Constant) and c.args[0].value == "gaia-eval"
    ]  # fmt: skip
    names = [ast.unparse(c.func) for c in calls]
    assert "_await_lock" in names, f"{name}: no lock check"
    assert names.index("_await_lock") < names.index("_install"), f"{name}: installs first"
    for run in runs:
        assert any(ast.unparse(a) == "*wait" for a in run.args), f"{name}: no --wait-lock"


def test_suite_sessions_check_the_lock_before_installing_and_wait_in_the_suite() -> None:
    # Every registered run's session runs through one body; hand-written suite sessions
    # (a body that is not one CLI call) check the lock themselves.
    _checks_the_lock_then_installs("_run_registered", _function("_run_registered"))
    hand = 0
    for name, fn in _sessions().items():
        calls = [ast.unparse(c.func) for c in _calls(fn)]
        if "_run_registered" in calls:
            continue
        direct = [
            c for c in _calls(fn)
            if ast.unparse(c.func) == "session.run" and c.args
            and isinstance(c.args[0], ast.Constant) and c.args[0].value == "gaia-eval"
            and isinstance(c.args[1], ast.Constant) and c.args[1].value in SUITE_COMMANDS
        ]  # fmt: skip
        if direct:
            hand += 1
            _checks_the_lock_then_installs(name, fn)
    assert hand <= 2, "a suite session that is one CLI call belongs in suites.toml [run.*]"


def test_every_registered_run_is_a_session_of_its_name() -> None:
    registry = tomllib.loads((ROOT / "gaia_eval/core/suites.toml").read_text(encoding="utf-8"))
    runs = registry["run"]
    assert "for _run in RUNS:\n    _session_of(_run)" in TEXT
    assert "nox.session(name=run, default=False)" in ast.unparse(_function("_session_of"))
    hand = set(_sessions())
    assert not hand & set(runs), f"defined twice: {sorted(hand & set(runs))}"
    # The names the README, docs and .ci/run call stay sessions (generated or by hand).
    texts = [(ROOT / f).read_text(encoding="utf-8") for f in ("README.md", ".ci/run")]
    texts += [p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")]
    called = {m for t in texts for m in re.findall(r'nox"? -s ([a-z_]+)\b', t)}
    called |= set(re.findall(r"^\| `([a-z_]+)` \|", texts[0], flags=re.M))
    assert {"retrieval_pr", "code_retrieval_offline", "memory_pr", "memory_full", "tasks",
            "code_bench_replay", "sessions_ci", "retrieval_full_small"} <= called  # fmt: skip
    missing = called - hand - set(runs)
    assert not missing, f"README/docs/.ci call sessions that do not exist: {sorted(missing)}"


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


def _helpers(*names: str) -> dict[str, Any]:
    """The named module-level functions of noxfile.py, compiled alone (nox not imported)."""
    import os

    nodes = [n for n in TREE.body if isinstance(n, ast.FunctionDef) and n.name in names]
    nodes += [n for n in TREE.body if isinstance(n, ast.Assign) and "_WORKER_CAP" in ast.unparse(n)]
    namespace: dict[str, Any] = {"os": os, "Path": Path}
    exec(compile(ast.Module(body=nodes, type_ignores=[]), str(NOXFILE), "exec"), namespace)
    return namespace


def test_tests_session_splits_serial_tests_unless_the_caller_picks_the_layout() -> None:
    ns = _helpers("_owns_xdist", "_split_marks", "_and")
    owns, split, both = ns["_owns_xdist"], ns["_split_marks"], ns["_and"]
    for args in (["-n", "4"], ["-n4"], ["-nauto"], ["--numprocesses=2"], ["--dist", "load"],
                 ["-p", "no:xdist"], ["-pno:xdist"]):  # fmt: skip
        assert owns(args), args
    for args in ([], ["tests/test_x.py", "-q", "-x"], ["-k", "gateway"], ["--pdb"], ["-m", "slow"]):
        assert not owns(args), args
    assert split(["-q", "-m", "slow", "-x"]) == (["-q", "-x"], "slow")
    assert split(["-mnot slow"]) == ([], "not slow")
    assert split(["tests"]) == (["tests"], None)
    assert both(None, "serial") == "serial"
    assert both("slow or api", "not serial") == "(slow or api) and not serial"


def test_worker_count_fits_the_cores_and_the_override_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    workers = _helpers("_test_workers")["_test_workers"]
    monkeypatch.delenv("GAIA_EVAL_TEST_WORKERS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert workers() == 4  # CI: 2 cores, tests that mostly wait
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert workers() == 6  # capped: every worker loads models
    monkeypatch.setenv("GAIA_EVAL_TEST_WORKERS", "1")
    assert workers() == 1
    monkeypatch.setenv("GAIA_EVAL_TEST_WORKERS", "many")
    with pytest.raises(ValueError, match="GAIA_EVAL_TEST_WORKERS"):
        workers()


def test_serial_marker_is_registered_and_xdist_is_a_test_dependency() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = meta["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("serial:") for m in markers)
    assert any(d.startswith("pytest-xdist") for d in meta["dependency-groups"]["test"])
