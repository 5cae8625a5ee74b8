"""Grading SWE-bench predictions, with Docker and the swebench package stood in for: a stub
`docker` on PATH records its arguments, and a stub `swebench.harness.run_evaluation` on
PYTHONPATH records its own and writes the report.json the real harness writes (the
recorded format below), resolved only when the patch has the fix. Docker is not on this
machine; these stubs are the only fakes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from swebench_fixtures import make_repo
from test_tasks_swebench import EMPTY, ID, _run_argv

from gaia_eval.cli.main import main
from gaia_eval.core.results import load_envelope
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.swebench_grade import parse_report

# A report.json as swebench.harness.run_evaluation writes it (per instance).
RECORDED = {
    "patch_is_None": False,
    "patch_exists": True,
    "patch_successfully_applied": True,
    "resolved": True,
    "tests_status": {
        "FAIL_TO_PASS": {"success": ["tests/test_core.py::test_add"], "failure": []},
        "PASS_TO_PASS": {"success": ["tests/test_a.py::t1", "tests/test_a.py::t2"], "failure": []},
        "FAIL_TO_FAIL": {"success": [], "failure": []},
        "PASS_TO_FAIL": {"success": [], "failure": []},
    },
}

STUB_HARNESS = """
import argparse, json, os, pathlib, sys
p = argparse.ArgumentParser()
for a in ("--dataset_name", "--split", "--predictions_path", "--instance_ids", "--max_workers",
          "--run_id", "--timeout", "--namespace", "--cache_level"):
    p.add_argument(a)
args = p.parse_args()
with open(os.environ["STUB_LOG"], "a") as fh:
    fh.write(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(),
                         "platform": os.environ.get("DOCKER_DEFAULT_PLATFORM")}) + "\\n")
(pred,) = [json.loads(l) for l in open(args.predictions_path) if l.strip()]
report = json.loads(os.environ["STUB_REPORT"])
fixed = "+    return a + b" in pred["model_patch"]
report["resolved"] = fixed
if not fixed:
    f2p = {"success": [], "failure": ["tests/test_core.py::test_add"]}
    report["tests_status"]["FAIL_TO_PASS"] = f2p
log = pathlib.Path("logs/run_evaluation", args.run_id)
out = log / pred["model_name_or_path"] / pred["instance_id"]
out.mkdir(parents=True, exist_ok=True)
(out / "report.json").write_text(json.dumps({pred["instance_id"]: report}))
"""


@pytest.fixture
def stubs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    import importlib

    pkg = tmp_path / "stubs" / "swebench" / "harness"
    pkg.mkdir(parents=True)
    (pkg.parent / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "run_evaluation.py").write_text(STUB_HARNESS)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    docker_log = tmp_path / "docker.log"
    docker = bindir / "docker"
    docker.write_text(f'#!/bin/sh\necho "$*" >> {docker_log}\nexit 0\n')
    docker.chmod(0o755)
    harness_log = tmp_path / "harness.log"
    monkeypatch.setenv("PATH", f"{bindir}:{__import__('os').environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "stubs"))
    monkeypatch.setenv("STUB_LOG", str(harness_log))
    monkeypatch.setenv("STUB_REPORT", json.dumps(RECORDED))
    monkeypatch.syspath_prepend(str(tmp_path / "stubs"))
    importlib.invalidate_caches()
    return {"docker": docker_log, "harness": harness_log}


def _results(out: Path) -> dict[str, TaskResult]:
    env = load_envelope(out / "results.json", suite="tasks")
    return {r.id: TaskResult.model_validate(r.result) for r in env.items}


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_no_evaluate_then_grade_later_one_instance_at_a_time(
    tmp_path: Path, stubs: dict[str, Path]
) -> None:
    mirror = make_repo(tmp_path / "mirror")
    out = tmp_path / "run"
    assert main([*_run_argv(tmp_path, mirror), "--no-evaluate", "--out", str(out)]) == 0
    assert _lines(stubs["harness"]) == [] and _lines(stubs["docker"]) == []  # not graded
    assert _results(out)[ID].passed is None

    argv = ["tasks", "swebench", str(out), "--docker-platform", "linux/arm64"]
    assert main([*argv, "--work-root", str(tmp_path / "work")]) == 0
    image = "swebench/sweb.eval.x86_64.acme_1776_widget-1:latest"
    # Checked, pulled for the platform just before, removed just after; the empty patch
    # (failed at once) is never sent to the harness.
    assert _lines(stubs["docker"]) == [
        "info",
        f"pull --platform linux/arm64 {image}",
        f"rmi -f {image}",
    ]
    (call,) = [json.loads(ln) for ln in _lines(stubs["harness"])]
    a = call["argv"]
    assert a[a.index("--instance_ids") + 1] == ID and a[a.index("--max_workers") + 1] == "1"
    assert a[a.index("--dataset_name") + 1] == "SWE-bench/SWE-bench_Verified"
    assert Path(a[a.index("--predictions_path") + 1]).name == f"predictions-{ID}.jsonl"
    assert call["cwd"] == str((out / "swebench").resolve())
    assert call["platform"] == "linux/arm64"
    res = _results(out)
    assert res[ID].passed is True
    sw = res[ID].swebench or {}
    assert sw["resolved"] is True and sw["patch_applied"] is True
    assert sw["fail_to_pass"] == {"success": 1, "failure": 0}
    assert sw["pass_to_pass"] == {"success": 2, "failure": 0}
    assert Path(sw["report"]).is_relative_to(out / "swebench" / "logs" / "run_evaluation")
    assert "FAIL_TO_PASS 1/1" in res[ID].why
    assert res[EMPTY].passed is False
    # Graded instances are not graded again.
    assert main([*argv, "--work-root", str(tmp_path / "work")]) == 0
    assert len(_lines(stubs["harness"])) == 1


def test_run_grades_itself_and_keeps_images_when_asked(
    tmp_path: Path, stubs: dict[str, Path]
) -> None:
    mirror = make_repo(tmp_path / "mirror")
    out = tmp_path / "run"
    assert main([*_run_argv(tmp_path, mirror), "--keep-images", "--out", str(out)]) == 0
    assert _lines(stubs["docker"]) == ["info"]  # no pull, no rmi
    (call,) = [json.loads(ln) for ln in _lines(stubs["harness"])]
    assert call["argv"][call["argv"].index("--cache_level") + 1] == "instance"
    res = _results(out)
    assert res[ID].passed is True and res[EMPTY].passed is False
    env = load_envelope(out / "results.json", suite="tasks")
    assert env.summary["counts"]["passed"] == 1


def test_report_parsing_reads_counts_and_a_failed_apply(tmp_path: Path) -> None:
    rep: dict[str, Any] = json.loads(json.dumps(RECORDED))
    rep["resolved"] = False
    rep["patch_successfully_applied"] = False
    rep["tests_status"]["PASS_TO_PASS"]["failure"] = ["tests/test_a.py::t3"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps({ID: rep}))
    got = parse_report(path, ID)
    assert got["resolved"] is False and got["patch_applied"] is False
    assert got["pass_to_pass"] == {"success": 2, "failure": 1}
    path.write_text(json.dumps({"other__x-1": rep}))
    from gaia_eval.core.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match=ID):
        parse_report(path, ID)
