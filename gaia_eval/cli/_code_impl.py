"""The work behind `gaia-eval code ...` (kept out of code.py so `--help` stays instant)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.cli._runflags import (
    RecordedArgv,
    local_server_for,
    resolve_baseline,
)
from gaia_eval.core.errors import EXIT_OK, InvalidInputError
from gaia_eval.core.rundir import default_run_dir

if TYPE_CHECKING:
    from gaia_eval.code_bench.runner import CodeConfig
    from gaia_eval.llm.spec import ModelSpec

DEFAULT_MODEL = "local"
"""The builtin harness's model when none is named: the embedded model (docs/code-bench.md,
"The local model")."""
LOCAL_NOTE = (
    "Why it solves little: the agent model is the embedded SmolLM2-135M (`local`), a "
    "135-million-parameter plumbing model. This run shows that the harness, the grading and "
    "the reports work end to end offline; the model is far too small to read a project, "
    "call tools with the right arguments and fix code, so it is expected to solve (almost) "
    "nothing. These numbers say nothing about a capable model."
)


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def _check_needs(
    args: argparse.Namespace, harness: str, model: ModelSpec | None, tasks: list[object]
) -> None:
    """Refuse, in one message, a run that lacks something (exit 2: the harness's CLI, the
    model's SDK or key, mypy for typed tasks) or whose model server does not answer
    (exit 3)."""
    from gaia_eval.agents import preflight
    from gaia_eval.code_bench.definitions import CodeTask
    from gaia_eval.tasks.settings import env

    typed = [t.id for t in tasks if isinstance(t, CodeTask) and "mypy" in t.needs]
    extra = []
    if typed and importlib.util.find_spec("mypy") is None:
        extra.append(
            f"mypy in {sys.executable}, which the task(s) {', '.join(typed)} run: "
            "pip install 'gaia-eval[code]' (or leave them out with --tasks)"
        )
    preflight.check(
        harness=harness,
        model=model,
        claude_bin=env("claude") or "claude",
        fence=args.fence,
        extra=extra,
    )


def _config(args: argparse.Namespace) -> tuple[CodeConfig, list[str]]:
    """(config, the recorded command line)."""
    from gaia_eval.agents.harnesses.choose import choose_harness
    from gaia_eval.code_bench.definitions import load_tasks, select
    from gaia_eval.code_bench.replays import named_replays
    from gaia_eval.code_bench.runner import DEFAULT_RUN_TIMEOUT_S, TESTS_TIMEOUT_S, CodeConfig
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.settings import env

    argv = RecordedArgv("code", "run")
    tasks_dir = args.tasks_dir.resolve() if args.tasks_dir else None
    argv.add("--tasks-dir", tasks_dir)
    every = load_tasks(tasks_dir)
    wanted = [t.strip() for t in args.tasks.split(",") if t.strip()] if args.tasks else None
    selected = select(every, wanted)
    argv.add("--tasks", ",".join(t.id for t in selected) if wanted else None)
    if args.harness == "builtin" and not args.model:
        args.model = DEFAULT_MODEL

    def need(key: str, why: str) -> str:
        value = getattr(args, key, None)
        if not value:
            msg = f"{_flag(key)} is required {why}"
            raise InvalidInputError(msg)
        return str(value)

    choice = choose_harness(
        args.harness,
        get=lambda key: getattr(args, key, None) or None,
        need=need,
        record=argv.add,
        full_access=args.full_access,
        named_replays=named_replays(),
        claude_bin=env("claude") or "claude",
    )
    agent = parse_model_spec(choice.model) if choice.harness.name == "builtin" else None
    _check_needs(args, choice.harness.name, agent, list(selected))
    run_timeout = args.run_timeout or DEFAULT_RUN_TIMEOUT_S
    tests_timeout = args.tests_timeout or TESTS_TIMEOUT_S
    work_root = args.work_root.resolve() if args.work_root else None
    local = agent is not None and agent.backend == "local"
    cfg = CodeConfig(
        tier="all" if tasks_dir is None else f"dir:{tasks_dir.name}",
        tasks=every,
        harness=choice.harness,
        model=choice.model,
        system=choice.system,
        tries=args.tries,
        repeats=args.repeats,
        run_timeout_s=run_timeout,
        tests_timeout_s=tests_timeout,
        work_root=work_root,
        only=[t.id for t in selected] if wanted else None,
        full_access=args.full_access,
        fence=args.fence,
        price_override=parse_price(args.price) if args.price else None,
        keep_workdirs=args.keep_workdirs,
        harness_settings=choice.settings,
        note=LOCAL_NOTE if local else "",
        local_model=local_server_for(agent),
    )
    if cfg.keep_workdirs and cfg.work_root is None:
        args.keep_temp = True  # the workdirs live in the run's temp folder
    for key, value in (
        ("--tries", args.tries if args.tries != 1 else None),
        ("--repeats", args.repeats if args.repeats != 1 else None),
        ("--run-timeout", args.run_timeout),
        ("--tests-timeout", args.tests_timeout),
        ("--work-root", work_root),
        ("--full-access", args.full_access),
        ("--fence", args.fence),
        ("--price", args.price),
        ("--keep-workdirs", args.keep_workdirs),
        ("--shard", args.shard),
        ("--gate", args.gate),
        ("--tolerance", args.tolerance),
        ("--keep-temp", args.keep_temp),
    ):
        argv.add(key, value)
    return cfg, argv.words


def cmd_run(args: argparse.Namespace) -> int:
    from gaia_eval.llm.local_server import local_servers

    # `local` specs share one server for the run, stopped when it ends.
    with local_servers():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.code_bench.suite import CodeBenchSuite

    cfg, argv = _config(args)
    if args.out is None and args.resume is None:
        args.out = default_run_dir("code")
    if args.out is not None:
        argv += ["--out", str(args.out)]
    return run_suite(CodeBenchSuite(cfg), args, argv=argv)


def _load(folder: Path) -> tuple[object, Path]:
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.results import load_envelope

    path = folder / "results.json" if folder.is_dir() else folder
    return load_envelope(path, suite=CodeBenchSuite.name), path.parent


def cmd_gate(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.gate import compare
    from gaia_eval.core.gate import exit_code as gate_exit_code
    from gaia_eval.core.report import terminal_summary
    from gaia_eval.core.results import Envelope
    from gaia_eval.core.runloop import load_baseline, write_outputs

    env, folder = _load(args.dir)
    assert isinstance(env, Envelope)
    path, label = resolve_baseline(args.baseline, CodeBenchSuite.name)
    baseline = load_baseline(path, label, CodeBenchSuite)
    env.verdict = compare(CodeBenchSuite, baseline, env, tolerance=args.tolerance, label=label)
    paths = write_outputs(CodeBenchSuite, folder, env)
    for line in terminal_summary(CodeBenchSuite, env):
        print(line)
    for kind, p in paths.items():
        print(f"  {kind}: {p}")
    return gate_exit_code(env.verdict)


def cmd_report(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.models import CodeSummary
    from gaia_eval.code_bench.report import comparison
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.report import Section, page_html, page_markdown
    from gaia_eval.core.results import Envelope
    from gaia_eval.core.results_io import write_text
    from gaia_eval.core.runloop import write_outputs

    loaded = [_load(d) for d in args.dirs]
    if len(loaded) == 1 and args.out is None:
        env, folder = loaded[0]
        assert isinstance(env, Envelope)
        for kind, p in write_outputs(CodeBenchSuite, folder, env).items():
            print(f"  {kind}: {p}")
        return EXIT_OK
    if args.out is None:
        msg = "--out DIR is required to compare several runs (the comparison's report folder)"
        raise InvalidInputError(msg)
    rows = []
    for env, folder in loaded:
        assert isinstance(env, Envelope)
        s = CodeSummary.model_validate(env.summary)
        rows.append((str(folder), env.header.system or "", env.header.model or "", s))
    sections = [Section("Runs", [comparison(rows)])]
    title = "Code benchmark — runs compared"
    args.out.mkdir(parents=True, exist_ok=True)
    md = write_text(args.out / "report.md", page_markdown(title, "", sections))
    html = write_text(args.out / "report.html", page_html(title, "", sections))
    print(page_markdown(title, "", sections))
    print(f"  report: {md}\n  html: {html}")
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    from gaia_eval.code_bench.definitions import load_tasks

    tasks = load_tasks(args.tasks_dir.resolve() if args.tasks_dir else None)
    width = max(len(t.id) for t in tasks)
    for t in tasks:
        print(f"{t.id:<{width}}  {t.kind:<10}  {t.category}: {t.summary}")
    print(f"{len(tasks)} tasks")
    return EXIT_OK
