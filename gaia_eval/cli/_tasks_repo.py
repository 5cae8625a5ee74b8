"""The flags and commands of repository tasks (SWE-bench, TheRock) for `gaia-eval tasks`:
kept apart from cli/tasks.py and _tasks_impl.py so those stay small, and free of heavy
imports at module level (`--help` stays instant)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaia_eval.tasks.definitions import TaskDef


def add_swebench_command(sub: Any) -> None:
    p = sub.add_parser("swebench", help="grade a finished swebench run with the official harness")
    p.add_argument("dir", type=Path, metavar="DIR", help="a `tasks run --suite swebench` folder")
    p.add_argument("--docker-platform", help="platform images are pulled for (linux/amd64)")
    p.add_argument("--keep-images", action="store_true", help="do not pull/remove each image")
    p.add_argument("--work-root", type=Path, help="where the SWE-bench row cache lives")


def cmd_swebench(args: argparse.Namespace) -> int:
    """`tasks swebench DIR`: grade a finished run's predictions and rewrite its results."""
    from gaia_eval.tasks.swebench import DEFAULT_PLATFORM, SwebenchOptions
    from gaia_eval.tasks.swebench_grade import check, regrade_run

    opts = SwebenchOptions(
        docker_platform=args.docker_platform or DEFAULT_PLATFORM, keep_images=args.keep_images
    )
    check(opts)
    graded, env = regrade_run(args.dir, opts)
    s = env.summary.get("counts", {})
    print(f"{args.dir}: graded {graded} instance(s); passed {s.get('passed')}/{s.get('tasks')}")
    return 0


def rejudge_context(folder: Path, shipped: bool) -> tuple[dict[str, TaskDef], Path | None]:
    """For `tasks judge DIR`: the tasks of a repository run that tasks.json lacks (its
    suite file's, or SWE-bench tasks rebuilt from the row cache) and the run's --work-root."""
    from gaia_eval.tasks.definitions import data_dir, load_tasks
    from gaia_eval.tasks.results import load_run, split_item_id

    env, _ = load_run(folder)
    argv = env.header.run.argv
    work = Path(argv[argv.index("--work-root") + 1]) if "--work-root" in argv[:-1] else None
    tier = env.header.tier
    if tier == "swebench":
        from gaia_eval.tasks import checkout, swebench

        ids = list(dict.fromkeys(split_item_id(r.id)[0] for r in env.items))
        tasks = swebench.build_tasks(ids, checkout.shared_work_root(work))
        return {t.id: t for t in tasks}, work
    from gaia_eval.tasks.options import SUITE_FILES

    if shipped and tier in SUITE_FILES:
        return dict(load_tasks(data_dir() / SUITE_FILES[tier]).tasks), work
    return {}, work
