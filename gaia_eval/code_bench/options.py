"""The code benchmark's flags (`gaia-eval run code`, alias `gaia-eval code run`) and the
suite they build: an agent changes small projects; visible and hidden tests score it.

The recorded command line (what `--resume DIR` re-runs) is generated from these options
after the run's effective values are set on them: the resolved paths, the selected task ids,
the harness's own settings and the default model.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.extras import install_hint
from gaia_eval.core.options import (
    RUN,
    Option,
    Options,
    SuiteCommand,
    listed,
    path_of,
    positive,
    positive_int,
)

if TYPE_CHECKING:
    from gaia_eval.code_bench.suite import CodeBenchSuite
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


OPTIONS = Options.of(
    Option("--tasks-dir", "a folder of task folders other than the shipped one", Path),
    Option("--tasks", "only these task ids, comma-separated"),
    Option(
        "--harness", "builtin | claude-code | command | replay (default builtin)", default="builtin"
    ),
    Option(
        "--model",
        "model spec (default for builtin: local, the embedded model), e.g. "
        "openai:http://127.0.0.1:8000/v1#qwen3",
    ),
    Option(
        "--replay",
        "replay harness: a shipped script set (reference, do-nothing, claims-success, "
        "edit-tests, plant-conftest, visible-only) or a JSON file of task id -> steps",
    ),
    Option("--command-template", "command harness: argv template with {prompt}"),
    Option(
        "--tries",
        "2: an unsolved task gets a second try with the failing test output (default 1)",
        int,
        default=1,
        choices=(1, 2),
    ),
    Option("--repeats", "run every task N times", positive_int, default=1),
    Option("--run-timeout", "wall-clock cap per try in s (default 1200)", positive),
    Option("--tests-timeout", "cap per grading test run in s (default 300)", positive),
    Option("--work-root", "where task workdirs live (default: the run's temp folder)", Path),
    Option("--full-access", "builtin: no path boundary, no guardrails", kind="switch"),
    Option(
        "--fence", "fence the agent off the answer keys and results (bubblewrap)", kind="switch"
    ),
    Option("--price", "USD per million tokens 'IN,OUT' for the agent model"),
    Option("--keep-workdirs", "keep each task's project copy", kind="switch"),
    RUN,
)


def _check_needs(
    args: argparse.Namespace, harness: str, model: ModelSpec | None, tasks: list[object]
) -> None:
    """Refuse, in one message, a run that lacks something (exit 2: the harness's CLI, the
    model's SDK or key, mypy for typed tasks) or whose model server does not answer
    (exit 3)."""
    from gaia_eval.agents import preflight
    from gaia_eval.code_bench.definitions import CodeTask

    typed = [t.id for t in tasks if isinstance(t, CodeTask) and "mypy" in t.needs]
    extra = []
    if typed and importlib.util.find_spec("mypy") is None:
        extra.append(
            f"mypy in {sys.executable}, which the task(s) {', '.join(typed)} run: "
            f"{install_hint('code')} (or leave them out with --tasks)"
        )
    preflight.check(
        harness=harness,
        model=model,
        claude_bin=preflight.claude_bin(),
        fence=args.fence,
        extra=extra,
    )


def build(args: argparse.Namespace) -> CodeBenchSuite:
    """The suite `args` ask for; `args` then hold the run's effective values (what
    OPTIONS.argv records)."""
    from gaia_eval.agents import preflight
    from gaia_eval.agents.harnesses.choose import choose_harness
    from gaia_eval.code_bench.definitions import load_tasks, select
    from gaia_eval.code_bench.replays import named_replays
    from gaia_eval.code_bench.runner import DEFAULT_RUN_TIMEOUT_S, TESTS_TIMEOUT_S, CodeConfig
    from gaia_eval.code_bench.suite import CodeBenchSuite
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.llm import local_server
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec

    args.tasks_dir = path_of(args.tasks_dir)
    every = load_tasks(args.tasks_dir)
    wanted = listed(args.tasks) or None
    selected = select(every, wanted)
    args.tasks = ",".join(t.id for t in selected) if wanted else None
    if args.harness == "builtin" and not args.model:
        args.model = DEFAULT_MODEL

    def need(key: str, why: str) -> str:
        value = getattr(args, key, None)
        if not value:
            msg = f"--{key.replace('_', '-')} is required {why}"
            raise InvalidInputError(msg)
        return str(value)

    def record(flag: str, value: object) -> None:  # the harness's effective settings
        setattr(args, OPTIONS[flag].key, value)

    choice = choose_harness(
        args.harness,
        get=lambda key: getattr(args, key, None) or None,
        need=need,
        record=record,
        full_access=args.full_access,
        named_replays=named_replays(),
        claude_bin=preflight.claude_bin(),
    )
    agent = parse_model_spec(choice.model) if choice.harness.name == "builtin" else None
    _check_needs(args, choice.harness.name, agent, list(selected))
    args.work_root = path_of(args.work_root)
    local = agent is not None and agent.backend == "local"
    cfg = CodeConfig(
        tier="all" if args.tasks_dir is None else f"dir:{args.tasks_dir.name}",
        tasks=every,
        harness=choice.harness,
        model=choice.model,
        system=choice.system,
        tries=args.tries,
        repeats=args.repeats,
        run_timeout_s=args.run_timeout or DEFAULT_RUN_TIMEOUT_S,
        tests_timeout_s=args.tests_timeout or TESTS_TIMEOUT_S,
        work_root=args.work_root,
        only=[t.id for t in selected] if wanted else None,
        full_access=args.full_access,
        fence=args.fence,
        price_override=parse_price(args.price) if args.price else None,
        keep_workdirs=args.keep_workdirs,
        harness_settings=choice.settings,
        note=LOCAL_NOTE if local else "",
        local_model=local_server.local_server_for(agent),
    )
    if cfg.keep_workdirs and cfg.work_root is None:
        args.keep_temp = True  # the workdirs live in the run's temp folder
    return CodeBenchSuite(cfg)


def main(args: argparse.Namespace) -> int:
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.rundir import default_run_dir
    from gaia_eval.llm.local_server import local_servers

    # `local` specs share one server for the run, stopped when it ends.
    with local_servers():
        suite = build(args)
        if args.out is None and args.resume is None:
            args.out = default_run_dir("code")
        return run_suite(suite, args)


COMMAND = SuiteCommand(
    "code",
    ("code", "run"),
    "Code-editing benchmark: an agent changes small projects; their tests score it.",
    OPTIONS,
    main,
)
