"""`--fence`: a fenced agent cannot read a planted answer file, wherever the earlier run
that holds it lives; the plan keeps the task's folder and the toolchain; the macOS profile
is in the same order; a machine without a sandbox is refused before anything runs."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from tasks_run_helpers import config, run

from gaia_eval.agents import fence
from gaia_eval.agents.harnesses.replay import ReplayHarness
from gaia_eval.agents.models import Transcript
from gaia_eval.cli.main import main

ANSWER = "THE-PLANTED-ANSWER-4711"


def _probe_result(out: Path) -> str:
    tr = Transcript.model_validate_json((out / "21-qa" / "transcript.json").read_text())
    (call,) = tr.outcome.tool_calls
    return call.result


@pytest.mark.usefixtures("sandbox")
def test_fenced_agent_cannot_read_a_planted_answer_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    # An earlier run folder far from this run's --out (not its sibling, not under a results
    # root): only the run registry says where it is.
    old_run = tmp_path / "elsewhere" / "deep" / "old-run"
    (old_run / "21-qa").mkdir(parents=True)
    planted = old_run / "21-qa" / "workspace.diff"
    planted.write_text(ANSWER + "\n")
    fence.register_run(old_run)
    # Another task's workdir left in the work root.
    other = tmp_path / "work" / "02-bugfix-keep" / "project"
    other.mkdir(parents=True)
    (other / "answer.txt").write_text(ANSWER + "\n")
    command = (
        f"cat {planted} 2>&1 | head -1; cat {other / 'answer.txt'} 2>&1 | head -1; "
        # The way around a mount namespace: the host's view through another process.
        f"cat /proc/*/root{planted} 2>/dev/null | head -1; "
        "cat ../.baseline/README.md 2>/dev/null | wc -l; "
        "echo written > note.txt; cat note.txt; python -c 'print(40 + 2)'"
    )
    script = [{"tool": "run_shell", "args": {"command": command}}, {"answer": "x"}]
    seen = {}
    for fenced in (False, True):
        out = tmp_path / "runs" / str(fenced)
        harness = ReplayHarness({"21-qa": script}, full_access=True)
        run(config(tmp_path, harness, ["21-qa"], fence=fenced), out)
        seen[fenced] = _probe_result(out)
    # The control: unfenced, the same commands read both answers and the baseline.
    assert seen[False].count(ANSWER) == 3, seen[False]
    assert ANSWER not in seen[True], seen[True]
    lines = seen[True].split("\n")
    assert "No such file" in seen[True] or "Permission denied" in seen[True]
    # The agent still has its workdir (read-write) and the toolchain's python.
    assert lines[-3:] == ["0", "written", "42"] or lines[-4:-1] == ["0", "written", "42"], lines


@pytest.mark.usefixtures("sandbox")
def test_fence_hides_the_installed_package_under_test(tmp_path: Path) -> None:
    """The SWE-bench case: an extra hidden path (a site-packages copy of the package)."""
    import subprocess

    site = tmp_path / "site-packages" / "fakepkg"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text(f"FIX = {ANSWER!r}\n")
    task = tmp_path / "task"
    (task / "project").mkdir(parents=True)
    fp = fence.task_plan(
        answer_keys=tmp_path / "keys-none",
        task_root=task,
        baseline=None,
        results_dir=tmp_path / "results-none",
        work_root=tmp_path / "work-none",
        extra_hide=[site],
    )
    code = (
        f"import sys; sys.path.insert(0, {str(site.parent)!r}); from fakepkg import FIX; print(FIX)"
    )
    argv = [sys.executable, "-c", code]
    open_run = subprocess.run(argv, capture_output=True, text=True, check=False)
    fenced = subprocess.run(fence.wrap(argv, fp), capture_output=True, text=True, check=False)
    assert open_run.returncode == 0 and ANSWER in open_run.stdout
    # An empty folder where the package was (or, in the fence's fresh temp folder, nothing):
    # at most a namespace package, without the fix.
    assert fenced.returncode != 0 and ANSWER not in fenced.stdout + fenced.stderr
    assert "FIX" in fenced.stderr or "No module named 'fakepkg'" in fenced.stderr


def test_plan_keeps_task_root_and_toolchain_and_rehides_inside(tmp_path: Path) -> None:
    work = tmp_path / "work"
    task = work / "t1"
    baseline = task / ".baseline"
    baseline.mkdir(parents=True)
    venv = tmp_path / "venv"
    venv.mkdir()
    fp = fence.plan(task_root=task, hide=[tmp_path, work / "missing", baseline], keep_ro=[venv])
    assert fp.hide == (tmp_path.resolve(),)  # missing paths are skipped, not created
    assert fp.expose == (task.resolve(),)
    assert venv.resolve() in fp.expose_ro
    assert fp.rehide == (baseline.resolve(),)  # after the bind back, or the bind undoes it
    argv = fence.bwrap_argv(["true"], fp)
    # Read-only root first, then a fresh temp folder (which hides tmp_path with everything
    # else in it), then the task bound back read-write, then its baseline hidden again.
    tmp = str(Path(tempfile.gettempdir()).resolve())
    assert argv[1:4] == ["--ro-bind", "/", "/"]
    order = [argv.index(tmp), argv.index(str(task.resolve())), argv.index(str(baseline.resolve()))]
    assert order == sorted(order) and argv[-2:] == ["--", "true"]
    assert argv[argv.index(str(task.resolve())) - 1] == "--bind"


def test_sandbox_profile_denies_then_allows_with_file_read_data(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "a" / "task"
    b.mkdir(parents=True)
    (b / ".baseline").mkdir()
    fp = fence.plan(task_root=b, hide=[a], rehide=[b / ".baseline"])
    prof = fence.sandbox_profile(fp).splitlines()
    deny = next(
        i for i, ln in enumerate(prof) if ln.startswith("(deny") and f'"{a.resolve()}"' in ln
    )
    allow = next(
        i for i, ln in enumerate(prof) if ln.startswith("(allow") and str(b.resolve()) in ln
    )
    again = max(i for i, ln in enumerate(prof) if ln.startswith("(deny"))
    assert deny < allow < again and "file-read-data" in prof[allow]
    assert fence.wrap(["true"], fp, platform="darwin")[:2] == ["sandbox-exec", "-p"]


def test_fence_without_a_sandbox_is_refused_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil, "which", lambda n, *a, **k: None if n == "bwrap" else real_which(n, *a, **k)
    )
    argv = ["tasks", "run", "--harness", "replay", "--replay", "reference", "--no-judge"]
    assert main([*argv, "--fence", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "bubblewrap" in err and "apt-get install bubblewrap" in err
    assert not (tmp_path / "run").exists()


def test_every_run_is_registered_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAIA_EVAL_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "somewhere" / "run"
    run(config(tmp_path, ReplayHarness({"21-qa": [{"answer": "x"}]}), ["21-qa"]), out)
    fence.register_run(out)
    lines = fence.registry_path().read_text().splitlines()
    assert lines == [str(out.resolve())]
    assert out.resolve() in fence.earlier_results()
