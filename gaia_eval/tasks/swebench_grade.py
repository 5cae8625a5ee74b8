"""Grading SWE-bench predictions with the official harness, one instance at a time.

`python -m swebench.harness.run_evaluation` runs in `<out>/swebench/` (so its report.json
lands under `<out>/swebench/logs/run_evaluation/`), in Docker, with the instance image
pulled for `--docker-platform` just before and removed just after unless `--keep-images`
(they are amd64-only and about 3 GB each). The per-instance report.json is read back into
the task's result: resolved, whether the patch applied, and the FAIL_TO_PASS /
PASS_TO_PASS counts. The harness's verdict alone decides the pass.

Used by the run itself (after the last task, unless `--no-evaluate`) and by
`gaia-eval tasks swebench DIR`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.core.results_io import write_text
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.swebench import PREDICTIONS, SwebenchOptions, read_predictions
from gaia_eval.tasks.swebench_data import DATASET, SPLIT

INSTALL = "pip install swebench"
DOCKER_INFO_TIMEOUT_S = 60
PULL_TIMEOUT_S = 3600
MARGIN_S = 600  # the harness's own setup on top of its per-instance timeout


def missing(opts: SwebenchOptions) -> list[str]:
    """What grading needs and this machine lacks (checked before any task runs)."""
    out = []
    if importlib.util.find_spec("swebench") is None:
        out.append(
            f"the swebench package in {sys.executable} to grade SWE-bench runs: {INSTALL} "
            "(or pass --no-evaluate and grade later with `gaia-eval tasks swebench DIR`)"
        )
    docker = shutil.which("docker")
    if docker is None:
        out.append(
            "Docker (the `docker` CLI and a running daemon) to grade SWE-bench runs: install "
            "Docker Engine (https://docs.docker.com/engine/install/) or pass --no-evaluate"
        )
    else:
        try:
            info = subprocess.run(
                [docker, "info"], capture_output=True, timeout=DOCKER_INFO_TIMEOUT_S, check=False
            )
            ok, why = info.returncode == 0, info.stderr.decode("utf-8", "replace").strip()
        except (OSError, subprocess.SubprocessError) as err:
            ok, why = False, str(err)
        if not ok:
            out.append(
                f"a running Docker daemon to grade SWE-bench runs (`docker info` failed: "
                f"{why[-200:]}); start Docker or pass --no-evaluate"
            )
    return out


def check(opts: SwebenchOptions) -> None:
    lines = missing(opts)
    if lines:
        msg = "SWE-bench grading cannot run:" + "".join(f"\n  - {ln}" for ln in lines)
        raise InvalidInputError(msg)


def image(instance: str) -> str:
    """The official instance image (the harness's own naming)."""
    return f"swebench/sweb.eval.x86_64.{instance.replace('__', '_1776_')}:latest".lower()


def harness_argv(predictions: Path, instance: str, run_id: str, opts: SwebenchOptions) -> list[str]:
    return [
        sys.executable,
        "-m",
        "swebench.harness.run_evaluation",
        "--dataset_name",
        DATASET,
        "--split",
        SPLIT,
        "--predictions_path",
        str(predictions),
        "--instance_ids",
        instance,
        "--max_workers",
        "1",
        "--run_id",
        run_id,
        "--timeout",
        str(opts.timeout_s),
        "--namespace",
        "swebench",
        "--cache_level",
        "instance" if opts.keep_images else "env",
    ]


def _docker(args: list[str], timeout: float) -> tuple[int, str]:
    try:
        p = subprocess.run(["docker", *args], capture_output=True, timeout=timeout, check=False)
    except (OSError, subprocess.SubprocessError) as err:
        return -1, str(err)
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")


def find_report(root: Path, run_id: str, instance: str) -> Path | None:
    """`<root>/logs/run_evaluation/<run_id>/<model>/<instance>/report.json`."""
    base = root / "logs" / "run_evaluation" / run_id
    hits = sorted(base.glob(f"*/{instance}/report.json"))
    return hits[0] if hits else None


def parse_report(path: Path, instance: str) -> dict[str, Any]:
    """The verdict of one report.json: resolved, patch applied, test counts."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        msg = f"{path}: not a SWE-bench report ({err})"
        raise InvalidInputError(msg) from err
    rep = data.get(instance) if isinstance(data, dict) else None
    if not isinstance(rep, dict) or not isinstance(rep.get("resolved"), bool):
        msg = f"{path}: no report for {instance} with a boolean 'resolved'"
        raise InvalidInputError(msg)
    status = rep.get("tests_status") or {}

    def counts(key: str) -> dict[str, int]:
        part = status.get(key) or {}
        return {
            "success": len(part.get("success") or []),
            "failure": len(part.get("failure") or []),
        }

    return {
        "resolved": rep["resolved"],
        "patch_applied": bool(rep.get("patch_successfully_applied")),
        "fail_to_pass": counts("FAIL_TO_PASS"),
        "pass_to_pass": counts("PASS_TO_PASS"),
        "report": str(path),
    }


def grade_one(out: Path, instance: str, run_id: str, opts: SwebenchOptions) -> dict[str, Any]:
    """Run the harness on one instance; its verdict (or why there is none)."""
    work = out / "swebench"
    work.mkdir(parents=True, exist_ok=True)
    # The harness reads the whole file; give it this instance's row only.
    rows = [r for r in read_predictions(out) if r["instance_id"] == instance]
    single = work / f"predictions-{instance}.jsonl"
    write_text(single, "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    img = image(instance)
    if not opts.keep_images:
        rc, text = _docker(["pull", "--platform", opts.docker_platform, img], PULL_TIMEOUT_S)
        if rc != 0:
            msg = f"docker pull {img} ({opts.docker_platform}) failed: {text.strip()[-300:]}"
            raise InfrastructureError(msg)
    env = dict(os.environ)
    env["DOCKER_DEFAULT_PLATFORM"] = opts.docker_platform
    try:
        proc = subprocess.run(
            harness_argv(single.resolve(), instance, run_id, opts),
            cwd=work,
            env=env,
            capture_output=True,
            timeout=opts.timeout_s + MARGIN_S,
            check=False,
        )
        log = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        write_text(work / f"harness-{instance}.log", log)
    except subprocess.TimeoutExpired as err:
        msg = f"the SWE-bench harness ran past {opts.timeout_s + MARGIN_S}s on {instance}"
        raise InfrastructureError(msg) from err
    finally:
        if not opts.keep_images:
            _docker(["rmi", "-f", img], 300)
    report = find_report(work, run_id, instance)
    if report is None:
        return {
            "resolved": None,
            "error": f"the harness wrote no report.json (exit {proc.returncode}): "
            + log.strip()[-300:],
        }
    return parse_report(report, instance)


def apply_verdict(res: TaskResult, verdict: Mapping[str, Any]) -> None:
    merged = {**(res.swebench or {}), **verdict}
    res.swebench = merged
    if res.after_answer or merged.get("empty_patch"):
        return  # failed already; the harness cannot pass it
    resolved = merged.get("resolved")
    if resolved is None:
        res.passed, res.why = None, f"SWE-bench harness gave no verdict: {merged.get('error')}"
        return
    f2p, p2p = merged["fail_to_pass"], merged["pass_to_pass"]
    res.passed = bool(resolved)
    res.why = (
        f"harness: {'resolved' if resolved else 'not resolved'}"
        f"{'' if merged['patch_applied'] else ' (patch did not apply)'}; FAIL_TO_PASS "
        f"{f2p['success']}/{f2p['success'] + f2p['failure']}, PASS_TO_PASS "
        f"{p2p['success']}/{p2p['success'] + p2p['failure']}"
    )


def grade_results(
    out: Path, results: Mapping[str, TaskResult], opts: SwebenchOptions, run_id: str
) -> int:
    """Grade every SWE-bench result (item id -> result) awaiting the harness, in place,
    each against its repeat folder's predictions; how many were graded."""
    from gaia_eval.core.items import item_dir, split_item_id

    n = 0
    for iid, res in results.items():
        sw = res.swebench or {}
        if res.check != "swebench" or sw.get("empty_patch") or sw.get("resolved") is not None:
            continue
        folder = item_dir(out, iid).parent
        if not (folder / PREDICTIONS).is_file():
            msg = f"{folder}: no {PREDICTIONS}; is this a finished `--suite swebench` run?"
            raise InvalidInputError(msg)
        repeat = split_item_id(iid)[1]
        rid = run_id if repeat == 1 else f"{run_id}-r{repeat}"
        apply_verdict(res, grade_one(folder, res.id, rid, opts))
        n += 1
    return n


def run_id_for(out: Path) -> str:
    """The harness's run id: the run folder's name in its alphabet."""
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "-", out.resolve().name).strip("-") or "gaia-eval"


def regrade_run(folder: Path, opts: SwebenchOptions) -> tuple[int, Any]:
    """`tasks swebench DIR`: grade the run's awaiting instances, rewrite results.json,
    items.jsonl and the reports (under the eval lock); (graded, envelope)."""
    from gaia_eval.core.rewrite import rewriting
    from gaia_eval.core.suite import suite_class
    from gaia_eval.tasks.results import load_run

    env, pre_engine = load_run(folder)
    if pre_engine or env.header.tier != "swebench":
        msg = f"{folder}: not a `tasks run --suite swebench` folder (suite {env.header.tier!r})"
        raise InvalidInputError(msg)
    cls = suite_class(env.header.suite)
    with rewriting(folder, env, cls, f"gaia-eval tasks swebench {folder}", TaskResult) as results:
        graded = grade_results(folder, results, opts, run_id_for(folder))
    return graded, env
