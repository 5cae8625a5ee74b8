"""The `swebench` suite: SWE-bench Verified instances as tasks, built at run time.

Each task is the instance's issue text plus a fixed paragraph, on a sealed checkout of the
repository at `base_commit` (agents.checkout). The agent's only Python is a bare venv (no
packages, not even pip) first on PATH, so an installed newer release of the package under
test, which may hold the fix, cannot be imported. After the agent exits its patch (new
files included) becomes a row of `<out>/predictions.jsonl`; an empty patch fails at once.
Grading by the official harness in Docker is tasks.swebench_grade.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import site
import sys
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.agents import checkout
from gaia_eval.agents.fence import FenceExtra
from gaia_eval.agents.isolation import toolchain_dir
from gaia_eval.agents.workspace import IGNORED, Workspace
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results_io import read_json, write_text
from gaia_eval.tasks.definitions import TaskDef
from gaia_eval.tasks.models import TaskResult
from gaia_eval.tasks.swebench_data import (
    PILOT,
    all_ids,
    cache_dir,
    check_id,
    load_rows,
    sample,
)

MAX_STEPS = 120
PARAGRAPH = (
    "Work only in this checkout. Make the smallest change that resolves the issue above; "
    "do not refactor unrelated code. Do not use the internet: no web search, no fetching "
    "pages, no git fetch, no pip install. The project's tests cannot be run here (its "
    "dependencies are not installed), so reason from the code."
)
PREDICTIONS = "predictions.jsonl"
AGENT_PYTHON_ENV = "GAIA_EVAL_AGENT_PYTHON"
DEFAULT_PLATFORM = "linux/amd64"
# Repository name -> import name, where they differ.
IMPORT_NAMES = {"scikit-learn": "sklearn", "pytest-dev": "pytest"}


@dataclass(frozen=True)
class SwebenchOptions:
    """How a swebench run is graded (flags of `tasks run --suite swebench`)."""

    evaluate: bool = True
    """Grade with the official harness after the last task (False: --no-evaluate)."""
    docker_platform: str = DEFAULT_PLATFORM
    """The platform the instance images are pulled for."""
    keep_images: bool = False
    """Leave each instance image in place after grading."""
    timeout_s: int = 1800
    """The harness's per-instance timeout."""


# ---- building the suite -------------------------------------------------------------------


SUBSET_PREFIX = "subset:"


def subset_ids(name: str) -> list[str]:
    """The instances of a named subset (`--instances subset:smoke`), from the shipped
    swebench_subsets.json the CI lanes name."""
    from importlib import resources

    path = resources.files("gaia_eval.tasks") / "data" / "swebench_subsets.json"
    subsets = read_json(Path(str(path)))["subsets"]
    if name not in subsets:
        msg = (
            f"--instances subset:{name}: no such subset in {path.name} "
            f"(known: {', '.join(sorted(subsets))})"
        )
        raise InvalidInputError(msg)
    return [check_id(i, f"{path.name} subset {name}") for i in subsets[name]["instances"]]


def select_ids(instances: str | None, n: int | None, seed: int, work_root: Path) -> list[str]:
    """--instances a,b, or --sample N --seed S, or the pilot."""
    if instances and n is not None:
        msg = "--instances and --sample exclude each other: name instances or sample them"
        raise InvalidInputError(msg)
    if n is not None:
        return sample(all_ids(work_root), n, seed)
    if instances and instances.startswith(SUBSET_PREFIX):
        return subset_ids(instances.removeprefix(SUBSET_PREFIX))
    if instances:
        ids = [i.strip() for i in instances.split(",") if i.strip()]
        if not ids:
            msg = "--instances: name at least one instance id"
            raise InvalidInputError(msg)
        return list(dict.fromkeys(ids))
    return list(PILOT)


def prompt_for(row: dict[str, Any]) -> str:
    return str(row["problem_statement"]).rstrip() + "\n\n" + PARAGRAPH


def task_for(row: dict[str, Any]) -> TaskDef:
    return TaskDef(
        id=row["instance_id"],
        check="swebench",
        prompt=prompt_for(row),
        max_steps=MAX_STEPS,
        closed_book="instructed",
        swebench={
            "instance_id": row["instance_id"],
            "repo": row["repo"],
            "base_commit": row["base_commit"],
        },
    )


def build_tasks(ids: list[str], work_root: Path) -> list[TaskDef]:
    """One task per instance, from the row cache under `work_root` (fetched if missing)."""
    return [task_for(r) for r in load_rows(ids, work_root)]


# ---- the toolchain ------------------------------------------------------------------------


def toolchain(work_root: Path) -> Path:
    """`<work root>/swebench/toolchain`: a bare venv, rebuilt if anything was installed."""
    root = cache_dir(work_root) / "toolchain"
    if not _bare(root):
        shutil.rmtree(root, ignore_errors=True)
        venv.EnvBuilder(with_pip=False, symlinks=os.name != "nt", clear=True).create(root)
        if not _bare(root):
            msg = f"could not build a bare venv at {root}"
            raise InvalidInputError(msg)
    return root


def _python(root: Path) -> Path:
    return root / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def _bare(root: Path) -> bool:
    if not _python(root).exists():
        return False
    sites = list(root.glob("lib/python*/site-packages")) + list(root.glob("Lib/site-packages"))
    return bool(sites) and all(not any(s.iterdir()) for s in sites)


def bare_env(env: dict[str, str], tool: Path) -> dict[str, str]:
    """The bare venv first on PATH, the host interpreter's own folders removed."""
    bin_dir = _python(tool).parent
    host = {str(toolchain_dir()), str(Path(sys.prefix) / "bin")}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p and p not in host]
    out = dict(env)
    out["PATH"] = os.pathsep.join([str(bin_dir), *path])
    out["VIRTUAL_ENV"] = str(tool)
    # The builtin harness's run_pytest runs this interpreter, like the agent's shell.
    out[AGENT_PYTHON_ENV] = str(_python(tool))
    return out


def package_paths(repo: str) -> list[Path]:
    """Where the host interpreter has the package under test installed (if at all)."""
    name = repo.split("/", 1)[1]
    mod = IMPORT_NAMES.get(name, name).replace("-", "_")
    try:
        spec = importlib.util.find_spec(mod)
    except (ImportError, ValueError):
        return []
    if spec is None or mod in sys.modules:
        return []  # not installed, or this interpreter imports it itself
    if spec.submodule_search_locations:
        return [Path(p) for p in spec.submodule_search_locations]
    return [Path(spec.origin)] if spec.origin else []


def host_site_packages() -> list[Path]:
    paths = [Path(p) for p in site.getsitepackages()]
    user = site.getusersitepackages()
    return [*paths, Path(user)] if user else paths


# ---- the kind -----------------------------------------------------------------------------


def repo_source(cfg: Any, repo: str) -> str:
    """A clone named owner+name in --git-mirror, else GitHub."""
    if cfg.git_mirror is not None:
        local = Path(cfg.git_mirror) / repo.replace("/", "+")
        if not local.exists():
            msg = f"--git-mirror {cfg.git_mirror}: no clone named {repo.replace('/', '+')}"
            raise InvalidInputError(msg)
        return str(local.resolve())
    return checkout.GITHUB_TEMPLATE.replace("{repo}", repo)


def repo_workspace(
    task: TaskDef, work_root: Path, bare: Path, commit: str, forbidden: tuple[str, ...] = ()
) -> Workspace:
    """A sealed checkout at `commit` in a fresh task folder, and its baseline copy."""
    work_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix=f"{task.id}-", dir=work_root))
    project = checkout.checkout(bare, commit, root / "project", forbidden=forbidden)
    baseline = root / ".baseline"
    shutil.copytree(
        project, baseline, symlinks=True, ignore=shutil.ignore_patterns(".git", *IGNORED)
    )
    return Workspace(root=root, project=project, baseline=baseline, pristine=baseline)


class SwebenchKind:
    def prepare(self, cfg: Any, task: TaskDef, work_root: Path) -> Workspace:
        sw = task.swebench
        shared = checkout.shared_work_root(cfg.work_root)
        bare = checkout.ensure_commit(
            shared, sw["repo"], repo_source(cfg, sw["repo"]), sw["base_commit"]
        )
        return repo_workspace(task, work_root, bare, sw["base_commit"])

    def env(self, cfg: Any, task: TaskDef, env: dict[str, str]) -> dict[str, str]:
        return bare_env(env, toolchain(checkout.shared_work_root(cfg.work_root)))

    def fence(self, cfg: Any, task: TaskDef, harness: str) -> FenceExtra:
        shared = checkout.shared_work_root(cfg.work_root)
        hide = [shared, *package_paths(task.swebench["repo"])]
        if harness == "claude-code":
            hide += host_site_packages()  # claude needs none of our packages
        return FenceExtra(hide=hide, keep_ro=[toolchain(shared)])

    def finish(
        self,
        cfg: Any,
        task: TaskDef,
        *,
        ws: Workspace,
        result: TaskResult,
        task_dir: Path,
        results_dir: Path,
    ) -> None:
        patch = checkout.worktree_patch(ws.project)
        write_text(task_dir / "model.patch", patch)
        # One predictions file per repeat folder (<out>, <out>/r2, ...), as the harness takes
        # one patch per instance.
        add_prediction(task_dir.parent, task.id, model_name(result.harness, cfg.model), patch)
        if not patch.strip():
            result.passed, result.why = False, "empty patch: the agent changed nothing"
            result.swebench = {"resolved": False, "empty_patch": True}
        elif result.after_answer:
            pass  # failed by the after-answer rule whatever the harness says
        else:
            result.passed, result.why = None, "awaiting the SWE-bench harness"
            result.swebench = {"resolved": None, "empty_patch": False}


# ---- predictions --------------------------------------------------------------------------


def model_name(harness: str, model: str) -> str:
    """`<harness>-<model>` with "/" replaced by "__" (it names the harness's log folders)."""
    return f"{harness}-{model}".replace("/", "__")


def read_predictions(results_dir: Path) -> list[dict[str, Any]]:
    path = results_dir / PREDICTIONS
    if not path.is_file():
        return []
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            msg = f"{path}:{n}: not a JSON line ({err})"
            raise InvalidInputError(msg) from err
        if not isinstance(row, dict) or not isinstance(row.get("instance_id"), str):
            msg = f"{path}:{n}: a prediction needs instance_id, model_name_or_path, model_patch"
            raise InvalidInputError(msg)
        rows.append(row)
    return rows


def add_prediction(results_dir: Path, instance: str, name: str, patch: str) -> None:
    """Add (or, on a resumed item, replace) the instance's row; the file is rewritten
    whole and atomically, so a killed run never leaves half a line."""
    rows = [r for r in read_predictions(results_dir) if r["instance_id"] != instance]
    rows.append({"instance_id": instance, "model_name_or_path": name, "model_patch": patch})
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    write_text(results_dir / PREDICTIONS, text)


def gold_patch(work_root: Path, instance: str) -> str:
    """The gold patch from the row cache: read only in the judge step."""
    row = read_json(cache_dir(work_root) / f"{instance}.json")
    return str(row.get("patch", "")) if isinstance(row, dict) else ""
