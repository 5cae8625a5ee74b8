"""Eval CI lanes: the trigger table, the lane file, the workflows that call them, and a
sharded lane (and the shipped Kubernetes and Slurm examples) merging to the unsharded run."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from gaia_eval.core import lanes

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
SCALE = ROOT / "docs" / "examples" / "scale"


@pytest.mark.parametrize(
    ("event", "ref", "message", "want"),
    [
        ("schedule", "refs/heads/main", "", "weekly"),
        ("push", "refs/tags/v1.2.0-rc3", "rc3", "release"),
        ("push", "refs/tags/v1.2.0-rc3", "rc3 [skip eval]", None),
        ("push", "refs/tags/v1.2.0-rc3", "rc3 [full eval]", "full"),
        ("push", "refs/tags/v1.2.0", "final [skip eval]", "verify"),  # a final tag ignores it
        ("push", "refs/tags/nightly", "", None),
        ("push", "refs/heads/main", "Fix the parser [full eval]", "full"),
        ("push", "refs/heads/main", "Docs only [skip eval]", None),
        ("push", "refs/heads/main", "Fix the parser", "pr"),
        ("pull_request", "refs/pull/7/merge", "", "pr"),
        ("pull_request", "refs/pull/7/merge", "wip [full eval]", "pr"),  # PRs never sweep
    ],
)
def test_the_trigger_table(event: str, ref: str, message: str, want: str | None) -> None:
    got, reason = lanes.choose(event, ref, message)
    assert got == want, reason
    assert reason


def test_a_dispatch_runs_its_lane_and_the_plan_is_a_shard_matrix() -> None:
    made = lanes.plan("workflow_dispatch", "refs/heads/main", "", dispatch_lane="weekly")
    assert made.lane == "weekly"
    memory = [m for m in made.matrix if m["step"] == "memory_pr"]
    assert [m["shard"] for m in memory] == ["1/3", "2/3", "3/3"]
    two = lanes.plan("workflow_dispatch", "", "", dispatch_lane="pr", shards=2)
    assert {m["shard"] for m in two.matrix} == {"1/2", "2/2"}
    out = lanes.github_output(made)
    assert out.splitlines()[0] == "lane=weekly"
    assert json.loads(out.splitlines()[2].removeprefix("matrix=")) == made.matrix


def test_every_lane_resolves_and_gated_runs_keep_their_gate() -> None:
    found = lanes.lanes()
    assert {"pr", "release", "full", "verify", "weekly"} <= set(found)
    steps = {s.name: s for s in found["weekly"].steps}
    # The gate is taken out of the shard runs and applied once, after the merge.
    assert steps["memory_pr"].gate == "builtin:memory/pr"
    assert "--gate" not in steps["memory_pr"].argv
    with pytest.raises(lanes.InvalidInputError, match="no lane 'nope'"):
        lanes.lane("nope")


def test_a_step_without_its_model_or_credentials_is_not_run_and_passes(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_EVAL_MODEL")}
    env.pop("GAIA_EVAL_JUDGE_MODEL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "lane", "release", "--step", "tasks_everyday",
         "--out", str(tmp_path / "out")],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "tasks_everyday: not run: no credentials (GAIA_EVAL_MODEL, GAIA_EVAL_JUDGE_MODEL" in (
        proc.stdout
    )
    record = json.loads((tmp_path / "out" / "lane.json").read_text())
    assert record["complete"] is False  # a step not run leaves the sweep incomplete
    assert record["steps"][0]["status"] == "not run"


def test_a_step_fills_its_variables_as_whole_arguments() -> None:
    step = lanes.lane("release").steps[-1]
    assert step.name == "code_bench_model"
    cmd = step.command({"GAIA_EVAL_MODEL": "openai:http://127.0.0.1:1/v1#m; rm -rf /"})
    assert cmd[-1] == "openai:http://127.0.0.1:1/v1#m; rm -rf /"  # one argv word, no shell


# ---- the workflows ------------------------------------------------------------------------


def _workflows() -> dict[str, Any]:
    return {p.name: yaml.safe_load(p.read_text()) for p in sorted(WORKFLOWS.glob("*.yml"))}


def _nox_sessions() -> set[str]:
    """The hand-written sessions, and one per registered run (the noxfile generates them
    from suites.toml [run.NAME])."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    registry = tomllib.loads((ROOT / "gaia_eval/core/suites.toml").read_text(encoding="utf-8"))
    return set(registry["run"]) | {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("nox.session" in ast.unparse(d) for d in node.decorator_list)
    }


def _tagged() -> dict[str, set[str]]:
    """tag -> the sessions `nox -t tag` runs."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            for kw in getattr(dec, "keywords", []):
                if kw.arg == "tags" and isinstance(kw.value, ast.List):
                    for tag in kw.value.elts:
                        out.setdefault(ast.literal_eval(tag), set()).add(node.name)
    return out


def _called_sessions() -> set[str]:
    """Every nox session a workflow runs: `nox -s NAME`, `nox -t TAG` and matrix lists."""
    called: set[str] = set()
    tagged = _tagged()
    for flow in _workflows().values():
        for job in flow["jobs"].values():
            matrix = (job.get("strategy") or {}).get("matrix") or {}
            called.update(matrix.get("session", []) if isinstance(matrix, dict) else [])
            for step in job.get("steps", []):
                called.update(re.findall(r"nox (?:[^\n]*?)-s ([a-z_]+)", step.get("run", "")))
                for tag in re.findall(r"nox -t ([a-z_]+)", step.get("run", "")):
                    called.update(tagged.get(tag, {f"(no session tagged {tag})"}))
    return called


def test_every_session_a_workflow_calls_exists() -> None:
    sessions = _nox_sessions()
    called = _called_sessions()
    assert "lane" in called
    assert called <= sessions, f"workflows call missing nox sessions: {called - sessions}"


def test_every_session_the_readme_marks_in_ci_is_called_by_a_workflow() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## nox sessions", 1)[1].split("\n\n", 2)[1]
    in_ci = set()
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[-1].lower() != "no":
            name = re.sub(r"\(tag `[a-z_]+`\)", "", cells[0])  # `schema` (tag `gen`)
            in_ci.update(re.findall(r"`([a-z_]+)`", name))
    lane_runs = {s.name for lane in lanes.lanes().values() for s in lane.steps}
    runs = {name: row for name, row in _registry_runs().items()}
    called = _called_sessions()
    # A suite session is called directly, or through a lane step that is the same run.
    missing = {s for s in in_ci if s not in called and s not in lane_runs & set(runs)}
    missing -= {"tasks"} if "tasks_smoke" in lane_runs else set()
    assert not missing, f"README says these run in CI, but no workflow calls them: {missing}"


def _registry_runs() -> dict[str, Any]:
    import tomllib

    return tomllib.loads((ROOT / "gaia_eval" / "core" / "suites.toml").read_text())["run"]


def test_the_workflows_pass_actionlint() -> None:
    # actionlint comes with the test and lint dependency groups; beside this interpreter.
    exe = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which(
        "actionlint"
    )
    assert exe, "actionlint is missing: it is in the test dependency group"
    proc = subprocess.run([exe, "-no-color"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_subset_names_fixed_swebench_instances() -> None:
    from gaia_eval.tasks.swebench import select_ids

    smoke = select_ids("subset:smoke", None, 0, Path("unused"))
    assert smoke == ["psf__requests-1921", "psf__requests-5414", "pallets__flask-5014"]
    assert len(select_ids("subset:hard", None, 0, Path("unused"))) >= 4
    with pytest.raises(lanes.InvalidInputError, match=r"no such subset .* \(known: hard, smoke\)"):
        select_ids("subset:nope", None, 0, Path("unused"))


def test_a_shard_that_wrote_nothing_leaves_its_step_unmeasured(tmp_path: Path) -> None:
    step = lanes.Step("memory_pr", ("memory", "--suite", "pr"), gate="builtin:memory/pr", shards=2)
    job = lanes.LaneRun(
        lanes.Lane("t", "d", "t", (step,)), tmp_path, environ={}, run=lambda argv: 0
    )
    record = lanes.run_steps(job, merge_only=True)
    (outcome,) = record.steps
    assert outcome.status == "unmeasured" and outcome.exit_code == 3
    assert "shard results missing" in outcome.detail
    assert lanes.lane_exit(record) == 3 and not record.complete


# ---- sharded runs equal the unsharded run ---------------------------------------------------


def _items(results: Path) -> dict[str, Any]:
    """Each item's status and result, without what differs between any two runs (timings)."""
    data = json.loads(results.read_text())

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: strip(v)
                for k, v in value.items()
                if not re.search(r"(latency|duration|_ms$|_s$|seconds|elapsed|started)", k)
            }
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return {r["id"]: (r["status"], strip(r.get("result"))) for r in data["items"]}


@pytest.fixture(scope="module")
def unsharded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("unsharded") / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "memory", "--suite", "pr", "--out", str(out)],
        capture_output=True, text=True, check=False, env=_locked_env(tmp_path_factory),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _items(out / "results.json")


def _locked_env(factory: pytest.TempPathFactory) -> dict[str, str]:
    return {**os.environ, "GAIA_EVAL_LOCK_DIR": str(factory.mktemp("lock"))}


@pytest.mark.slow
def test_a_sharded_lane_merges_to_the_unsharded_run(
    tmp_path: Path, unsharded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    out = tmp_path / "weekly"
    proc = subprocess.run(
        [sys.executable, "-m", "gaia_eval", "lane", "weekly", "--step", "memory_pr",
         "--shards", "3", "--out", str(out)],
        capture_output=True, text=True, check=False, env=_locked_env(tmp_path_factory),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "memory_pr: passed (3 shard(s), exit 0, gated by builtin:memory/pr)" in proc.stdout
    assert "scrub check: clean" in proc.stdout
    merged = out / "memory_pr" / "merged" / "results.json"
    assert _items(merged) == unsharded
    record = json.loads((out / "lane.json").read_text())
    assert record["complete"] is True and record["scrub_check"] == "clean"


def _run_rendered(commands: list[str], env: dict[str, str], cwd: Path) -> None:
    for cmd in commands:
        proc = subprocess.run(
            ["sh", "-c", cmd], capture_output=True, text=True, env=env, cwd=cwd, check=False
        )
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"


def _gaia_eval_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PATH with this interpreter's `gaia-eval` first, as on a machine it is installed on."""
    bindir = tmp_path_factory.mktemp("bin")
    shim = bindir / "gaia-eval"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gaia_eval "$@"\n')
    shim.chmod(0o755)
    env = _locked_env(tmp_path_factory)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return env


@pytest.mark.slow
def test_the_kubernetes_indexed_job_shards_merge_to_the_unsharded_run(
    tmp_path: Path, unsharded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    shards, merge = yaml.safe_load_all((SCALE / "k8s-indexed-job.yaml").read_text())
    spec = shards["spec"]
    assert spec["completionMode"] == "Indexed"
    n = spec["completions"]
    assert n == 3
    (container,) = spec["template"]["spec"]["containers"]
    (template,) = container["args"]
    (merge_cmd,) = merge["spec"]["template"]["spec"]["containers"][0]["args"]
    results = tmp_path / "results"
    env = _gaia_eval_env(tmp_path_factory)
    rendered = [
        f"JOB_COMPLETION_INDEX={i}; " + template.replace("/results", str(results)) for i in range(n)
    ]
    _run_rendered([*rendered, merge_cmd.replace("/results", str(results))], env, tmp_path)
    assert _items(results / "merged" / "results.json") == unsharded


@pytest.mark.slow
def test_the_slurm_array_shards_merge_to_the_unsharded_run(
    tmp_path: Path, unsharded: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    script = SCALE / "slurm-array.sh"
    text = script.read_text()
    lo, hi = (int(x) for x in re.search(r"#SBATCH --array=(\d+)-(\d+)", text).groups())  # type: ignore[union-attr]
    assert (lo, hi) == (1, 3)
    (merge_cmd,) = re.findall(r"^# merge: (.+)$", text, flags=re.M)
    env = {**_gaia_eval_env(tmp_path_factory), "RESULTS": str(tmp_path / "runs")}
    rendered = [f"SLURM_ARRAY_TASK_ID={i} bash {script}" for i in range(lo, hi + 1)]
    _run_rendered([*rendered, merge_cmd], env, tmp_path)
    assert _items(tmp_path / "runs" / "merged" / "results.json") == unsharded


# ---- the verify lane ----------------------------------------------------------------------


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"},
    ).stdout.strip()  # fmt: skip


def _record(folder: Path, lane: str, commit: str, complete: bool) -> None:
    folder.mkdir(parents=True)
    rec = lanes.LaneRecord(lane=lane, commit=commit, complete=complete, steps=[])
    (folder / lanes.LANE_FILE).write_text(rec.model_dump_json())


def test_a_final_tag_is_verified_by_a_complete_full_sweep_of_one_of_its_candidates(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    _git(repo, "tag", "v1.0.0-rc1")
    rc1 = _git(repo, "rev-parse", "HEAD")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    _git(repo, "tag", "v1.0.0")
    earlier = tmp_path / "earlier"
    _record(earlier / "a", "full", rc1, complete=False)  # incomplete: no evidence
    _record(earlier / "b", "release", rc1, complete=True)  # not a full sweep
    argv = [sys.executable, "-m", "gaia_eval", "lane", "verify", "--tag", "v1.0.0",
            "--from", str(earlier)]  # fmt: skip
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=repo, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "no complete full sweep measured v1.0.0" in proc.stdout
    _record(earlier / "c", "full", rc1, complete=True)
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=repo, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"measured commit {rc1}" in proc.stdout
