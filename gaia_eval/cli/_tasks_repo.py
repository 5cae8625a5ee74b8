"""The flags and commands of repository tasks (SWE-bench, TheRock) for `gaia-eval tasks`:
kept apart from cli/tasks.py and _tasks_impl.py so those stay small, and free of heavy
imports at module level (`--help` stays instant)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.tasks.settings import setting

if TYPE_CHECKING:
    from gaia_eval.tasks.definitions import TaskDef
    from gaia_eval.tasks.runner import TasksConfig

SWEBENCH_ONLY = ("instances", "sample", "no_evaluate", "keep_images", "docker_platform")
# Suites shipped in a data file of their own, not tasks.json.
SUITE_FILES = {"therock": "therock.json", "therock-demo": "therock_demo.json"}


def add_run_flags(run: argparse.ArgumentParser) -> None:
    g = run.add_argument_group("repository tasks (swebench, therock)")
    g.add_argument("--instances", help="swebench: SWE-bench Verified instance ids, a,b")
    g.add_argument("--sample", type=int, metavar="N", help="swebench: a seeded random N")
    g.add_argument("--seed", type=int, default=0, help="swebench: the --sample seed (default 0)")
    g.add_argument(
        "--no-evaluate",
        action="store_true",
        help="swebench: write predictions.jsonl and stop (grade with `tasks swebench DIR`)",
    )
    g.add_argument(
        "--docker-platform", help="swebench: platform images are pulled for (linux/amd64)"
    )
    g.add_argument(
        "--keep-images", action="store_true", help="swebench: do not pull/remove each image"
    )
    g.add_argument(
        "--git-mirror",
        type=Path,
        metavar="DIR",
        help="swebench: clones named owner+name to fetch from instead of GitHub",
    )
    g.add_argument(
        "--therock-url",
        help="therock: where its tasks clone from (default https://github.com/ROCm/TheRock) "
        "[GAIA_BENCH_THEROCK_URL]",
    )


def add_swebench_command(sub: Any) -> None:
    p = sub.add_parser("swebench", help="grade a finished swebench run with the official harness")
    p.add_argument("dir", type=Path, metavar="DIR", help="a `tasks run --suite swebench` folder")
    p.add_argument("--docker-platform", help="platform images are pulled for (linux/amd64)")
    p.add_argument("--keep-images", action="store_true", help="do not pull/remove each image")
    p.add_argument("--work-root", type=Path, help="where the SWE-bench row cache lives")


def select(
    args: argparse.Namespace, argv: Any, suite: str, tasks_file: Path | None
) -> tuple[list[TaskDef], list[TaskDef], bool]:
    """(every task of the suite, the selected ones, whether --tasks filtered)."""
    from gaia_eval.tasks.definitions import data_dir, load_tasks

    if suite != "swebench":
        for key in SWEBENCH_ONLY:
            if getattr(args, key, None) not in (None, False):
                flag = "--" + key.replace("_", "-")
                msg = f"{flag} is valid only with --suite swebench (the suite is {suite!r})"
                raise InvalidInputError(msg)
    ids = setting(args, "tasks")
    wanted = [t.strip() for t in ids.split(",") if t.strip()] if ids else None
    if suite == "swebench":
        from gaia_eval.agents import checkout
        from gaia_eval.tasks import swebench

        if wanted:
            msg = "--tasks does not apply to --suite swebench: name instances with --instances"
            raise InvalidInputError(msg)
        work = checkout.shared_work_root(_work_root(args))
        chosen = swebench.select_ids(args.instances, args.sample, args.seed, work)
        tasks = swebench.build_tasks(chosen, work)
        # The resolved ids, so a resume (or a rerun) builds the same tasks.
        argv.add("--instances", ",".join(chosen))
        return tasks, tasks, False
    if tasks_file is None and suite in SUITE_FILES:
        tasks_file = data_dir() / SUITE_FILES[suite]
    taskfile = load_tasks(tasks_file)
    selected = taskfile.select(suite, wanted)  # names unknown ids
    argv.add("--tasks", ",".join(t.id for t in selected) if wanted else None)
    everything = taskfile.select(suite)
    if any(t.therock for t in everything):
        from gaia_eval.tasks.therock_pins import check_pins

        check_pins(everything, taskfile.path)
    return everything, selected, bool(wanted)


def _work_root(args: argparse.Namespace) -> Path | None:
    value = setting(args, "work_root")
    return Path(value).resolve() if value else None


def configure(cfg: TasksConfig, args: argparse.Namespace, argv: Any) -> None:
    """The repository settings of `cfg`, recorded in argv; grading checked up front."""
    from gaia_eval.tasks.swebench import DEFAULT_PLATFORM, SwebenchOptions

    if args.git_mirror is not None:
        cfg.git_mirror = args.git_mirror.resolve()
        argv.add("--git-mirror", cfg.git_mirror)
    url = setting(args, "therock_url")
    if url and any(t.therock for t in cfg.tasks):
        cfg.therock_url = url
        argv.add("--therock-url", url)
    if cfg.suite != "swebench":
        return
    opts = SwebenchOptions(
        evaluate=not args.no_evaluate,
        docker_platform=args.docker_platform or DEFAULT_PLATFORM,
        keep_images=args.keep_images,
    )
    cfg.swebench = opts
    argv.add("--no-evaluate", args.no_evaluate)
    argv.add("--docker-platform", args.docker_platform)
    argv.add("--keep-images", args.keep_images)
    if opts.evaluate:
        from gaia_eval.tasks.swebench_grade import check

        check(opts)  # a missing swebench package or Docker daemon: exit 2 before any task


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
    from gaia_eval.core.items import split_item_id
    from gaia_eval.tasks.definitions import data_dir, load_tasks
    from gaia_eval.tasks.results import load_run

    env, _ = load_run(folder)
    argv = env.header.run.argv
    work = Path(argv[argv.index("--work-root") + 1]) if "--work-root" in argv[:-1] else None
    tier = env.header.tier
    if tier == "swebench":
        from gaia_eval.agents import checkout
        from gaia_eval.tasks import swebench

        ids = list(dict.fromkeys(split_item_id(r.id)[0] for r in env.items))
        tasks = swebench.build_tasks(ids, checkout.shared_work_root(work))
        return {t.id: t for t in tasks}, work
    if shipped and tier in SUITE_FILES:
        return dict(load_tasks(data_dir() / SUITE_FILES[tier]).tasks), work
    return {}, work
