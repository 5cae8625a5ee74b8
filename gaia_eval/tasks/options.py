"""The tasks suite's flags (`gaia-eval run tasks`, alias `gaia-eval tasks run`) and the run
they build: an agent does real work on a small project; the finished project is scored.

Every setting has an environment variable too (gaia_eval/tasks/settings.py; the flag wins).
The recorded command line (what `--resume DIR` re-runs) is generated from these options
after the run's effective values, those from variables included, are set on them: a resume
runs the same settings in any shell.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.core.options import (
    RUN,
    RUN_UNGATED,
    Option,
    Options,
    SuiteCommand,
    listed,
    path_of,
    tier,
)
from gaia_eval.tasks.settings import ENV, SPEC_ENV, env, number, required, setting

if TYPE_CHECKING:  # the runner imports the harnesses and the LLM clients
    from gaia_eval.llm.spec import ModelSpec
    from gaia_eval.tasks.definitions import TaskDef
    from gaia_eval.tasks.runner import TasksConfig


def env_names(key: str) -> str:
    """Today's variable and the specification's name for it."""
    return f"{ENV[key]} or {SPEC_ENV[key]}" if key in SPEC_ENV else ENV[key]


JUDGE = Options.of(
    Option("--judge-model", f"judge model spec [{ENV['judge_model']}]"),
    Option("--judge-attempts", "tries per grade (default 2)", int, default=2),
)

SWEBENCH_ONLY = ("instances", "sample", "no_evaluate", "keep_images", "docker_platform")
# Suites shipped in a data file of their own, not tasks.json.
SUITE_FILES = {"therock": "therock.json", "therock-demo": "therock_demo.json"}

REPOSITORY = Options.of(
    Option("--instances", "swebench: SWE-bench Verified instance ids, a,b"),
    Option("--sample", "swebench: a seeded random N", int, metavar="N"),
    Option("--seed", "swebench: the --sample seed (default 0)", int, default=0),
    Option(
        "--no-evaluate",
        "swebench: write predictions.jsonl and stop (grade with `tasks swebench DIR`)",
        kind="switch",
    ),
    Option("--docker-platform", "swebench: platform images are pulled for (linux/amd64)"),
    Option("--keep-images", "swebench: do not pull/remove each image", kind="switch"),
    Option(
        "--git-mirror",
        "swebench: clones named owner+name to fetch from instead of GitHub",
        Path,
        metavar="DIR",
    ),
    Option(
        "--therock-url",
        "therock: where its tasks clone from (default https://github.com/ROCm/TheRock) "
        "[GAIA_BENCH_THEROCK_URL]",
    ),
    title="repository tasks (swebench, therock)",
)

OPTIONS = Options.of(
    tier((), None, f"suite name (default core) [{ENV['suite']}]"),
    Option("--tasks-file", "a tasks.json other than the shipped one", Path),
    Option("--tasks", f"only these task ids, comma-separated [{ENV['tasks']}]"),
    Option(
        "--harness",
        f"builtin | claude-code | command | replay (default builtin) [{ENV['harness']}]",
    ),
    Option("--model", f"model spec, e.g. openai:http://127.0.0.1:8000/v1#qwen3 [{ENV['model']}]"),
    Option(
        "--replay",
        f"replay harness: JSON of task id -> script, or 'reference' [{ENV['replay']}]",
        Path,
    ),
    Option(
        "--command-template",
        f"command harness: argv template with {{prompt}} [{ENV['command_template']}]",
    ),
    Option(
        "--repeats",
        f"run every task N times in one run (items <task>, <task>#r2...) [{ENV['repeats']}]",
        int,
    ),
    Option(
        "--run-timeout",
        f"wall-clock cap per task in s (default 1800) [{env_names('run_timeout')}]",
        float,
    ),
    Option(
        "--work-root",
        f"where task workdirs live (default: the run's temp folder) [{env_names('work_root')}]",
        Path,
    ),
    Option(
        "--full-access",
        f"builtin: no path boundary, no shell guardrails [{ENV['full_access']}=1]",
        kind="switch",
    ),
    Option(
        "--fence",
        "fence the agent off the answer keys, results and other workdirs (bubblewrap)",
        kind="switch",
    ),
    Option(
        "--gateway-url",
        "a model gateway already running (`tasks gateway`); default: the run starts its "
        f"own [{env_names('gateway_url')}]",
    ),
    Option(
        "--meter",
        "read the run's real cost from the provider's billing meter (account "
        f"{env_names('fireworks_account')}, key FIREWORKS_API_KEY) [{ENV['meter']}]",
        choices=("fireworks",),
    ),
    Option("--no-judge", "skip judging", kind="switch"),
    Option("--price", f"USD per million tokens 'IN,OUT' for the agent model [{ENV['price']}]"),
    Option("--keep-workdirs", "keep each task's project copy after it ran", kind="switch"),
    JUDGE,
    REPOSITORY,
    RUN,
)


def _harness(args: argparse.Namespace) -> tuple[Any, str, str, dict[str, Any]]:
    """(harness, model, system, harness settings) of --harness and its options."""
    from gaia_eval.agents.harnesses.choose import choose_harness
    from gaia_eval.tasks.definitions import data_dir

    def record(flag: str, value: object) -> None:  # the harness's effective settings
        setattr(args, OPTIONS[flag].key, value)

    choice = choose_harness(
        setting(args, "harness") or "builtin",
        get=lambda key: setting(args, key),
        need=lambda key, why: required(args, key, why),
        record=record,
        full_access=args.full_access,
        named_replays={"reference": data_dir() / "replays" / "reference.json"},
        claude_bin=env("claude") or "claude",
    )
    return choice.harness, choice.model, choice.system, choice.settings


def _gateway(
    args: argparse.Namespace, harness: Any, spec: ModelSpec | None,
    stack: contextlib.ExitStack | None,
) -> tuple[str | None, str]:  # fmt: skip
    """(gateway URL, client suffix) the harness's model calls go through: `--gateway-url`,
    else a gateway of the run's own (stopped with it); (None, "") for no model route."""
    from gaia_eval.agents import gateway
    from gaia_eval.agents.routing import route_for

    given, args.gateway_url = setting(args, "gateway_url"), None
    route = route_for(harness.name, spec)
    if route is None:
        return None, ""
    if harness.name == "claude-code":
        harness.model = route.served_model  # the name the open model's server knows
    if given:
        gateway.check_reachable(given)
        args.gateway_url = given
        return given.rstrip("/"), route.client_suffix
    if stack is None:
        return None, ""
    gw = stack.enter_context(gateway.Gateway(route.upstream))
    return gw.url, route.client_suffix


def select(
    args: argparse.Namespace, suite: str, tasks_file: Path | None
) -> tuple[list[TaskDef], list[TaskDef], bool]:
    """(every task of the suite, the selected ones, whether --tasks filtered)."""
    from gaia_eval.core.errors import InvalidInputError
    from gaia_eval.tasks.definitions import data_dir, load_tasks

    if suite != "swebench":
        for key in SWEBENCH_ONLY:
            if getattr(args, key, None) not in (None, False):
                flag = "--" + key.replace("_", "-")
                msg = f"{flag} is valid only with --suite swebench (the suite is {suite!r})"
                raise InvalidInputError(msg)
    wanted = listed(setting(args, "tasks")) or None
    if suite == "swebench":
        from gaia_eval.agents import checkout
        from gaia_eval.tasks import swebench

        if wanted:
            msg = "--tasks does not apply to --suite swebench: name instances with --instances"
            raise InvalidInputError(msg)
        work = checkout.shared_work_root(path_of(setting(args, "work_root")))
        chosen = swebench.select_ids(args.instances, args.sample, args.seed, work)
        tasks = swebench.build_tasks(chosen, work)
        # The resolved ids, so a resume (or a rerun) builds the same tasks.
        args.instances, args.sample, args.seed = ",".join(chosen), None, 0
        return tasks, tasks, False
    if tasks_file is None and suite in SUITE_FILES:
        tasks_file = data_dir() / SUITE_FILES[suite]
    taskfile = load_tasks(tasks_file)
    selected = taskfile.select(suite, wanted)  # names unknown ids
    args.tasks = ",".join(t.id for t in selected) if wanted else None
    everything = taskfile.select(suite)
    if any(t.therock for t in everything):
        from gaia_eval.tasks.therock_pins import check_pins

        check_pins(everything, taskfile.path)
    return everything, selected, bool(wanted)


def configure(cfg: TasksConfig, args: argparse.Namespace) -> None:
    """The repository settings of `cfg` (set back on args); grading checked up front."""
    from gaia_eval.tasks.swebench import DEFAULT_PLATFORM, SwebenchOptions

    if args.git_mirror is not None:
        cfg.git_mirror = args.git_mirror = args.git_mirror.resolve()
    url, args.therock_url = setting(args, "therock_url"), None
    if url and any(t.therock for t in cfg.tasks):
        cfg.therock_url = args.therock_url = url
    if cfg.suite != "swebench":
        return
    opts = SwebenchOptions(
        evaluate=not args.no_evaluate,
        docker_platform=args.docker_platform or DEFAULT_PLATFORM,
        keep_images=args.keep_images,
    )
    cfg.swebench = opts
    if opts.evaluate:
        from gaia_eval.tasks.swebench_grade import check

        check(opts)  # a missing swebench package or Docker daemon: exit 2 before any task


def config(args: argparse.Namespace, stack: contextlib.ExitStack | None = None) -> TasksConfig:
    """The run's config; `args` then hold its effective values (what OPTIONS.argv records).
    The run's gateway, if any, lives in `stack`."""
    from gaia_eval.agents import credentials, preflight
    from gaia_eval.llm import local_server
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.runner import DEFAULT_RUN_TIMEOUT_S, TasksConfig

    args.suite = suite = setting(args, "suite") or "core"
    args.tasks_file = path_of(args.tasks_file)
    # tasks.json, a suite's own data file (therock) or SWE-bench instances.
    everything, selected, wanted = select(args, suite, args.tasks_file)
    if not args.full_access and env("full_access") in ("1", "true", "yes"):
        args.full_access = True
    judge = None
    if not args.no_judge:
        judge = parse_model_spec(
            required(args, "judge_model", "to judge the run (or pass --no-judge)"),
            "--judge-model",
        )
    harness, model, system, harness_settings = _harness(args)
    agent = parse_model_spec(model) if harness.name == "builtin" else None
    if harness.name == "claude-code":
        from gaia_eval.agents.routing import claude_code_spec

        routed = claude_code_spec(model)  # an open model: through the gateway
    else:
        routed = agent
    with credentials.for_judge():  # the judge's key is checked, then dropped again
        preflight.check(
            judge=judge,
            model=agent,
            harness=harness.name,
            claude_bin=env("claude") or "claude",
            fence=args.fence,
            routed=routed,
            gateway_url=setting(args, "gateway_url"),
        )
    args.price = setting(args, "price")
    repeats = number(args, "repeats", int, 1)
    run_timeout = number(args, "run_timeout", float, DEFAULT_RUN_TIMEOUT_S)
    cfg = TasksConfig(
        suite=suite,
        tasks=everything,
        harness=harness,
        model=model,
        judge_model=judge.text if judge else None,
        judge_attempts=args.judge_attempts,
        run_timeout_s=run_timeout,
        # Absolute: the agent child runs in the task's project folder.
        work_root=path_of(setting(args, "work_root")),
        repeats=repeats,
        only=[t.id for t in selected] if wanted else None,
        full_access=args.full_access,
        fence=args.fence,
        price_override=parse_price(args.price) if args.price else None,
        keep_workdirs=args.keep_workdirs,
        system=system,
        harness_settings=harness_settings,
    )
    configure(cfg, args)
    # The repositories the tasks clone, dialled before the local model starts (it takes a
    # while, and offline there would be nothing for it to do): exit 3, said once.
    from gaia_eval.core.reach import down
    from gaia_eval.core.runloop import refuse
    from gaia_eval.tasks.clones import clone_endpoints

    refuse([], down(clone_endpoints(cfg)))
    cfg.local_model = local_server.local_server_for(routed, judge)
    cfg.gateway_url, cfg.gateway_suffix = _gateway(args, harness, routed, stack)
    if cfg.keep_workdirs and cfg.work_root is None:
        args.keep_temp = True  # the workdirs live in the run's temp folder
    args.repeats = repeats if repeats != 1 else None
    args.run_timeout = run_timeout if run_timeout != DEFAULT_RUN_TIMEOUT_S else None
    args.work_root = cfg.work_root
    args.no_judge = judge is None
    args.judge_model = cfg.judge_model
    if judge is None:
        args.judge_attempts = JUDGE["--judge-attempts"].default
    return cfg


def main(args: argparse.Namespace) -> int:
    from gaia_eval.agents import credentials
    from gaia_eval.llm.local_server import local_servers

    # The judge's credentials are out of this process until the judge step; `local` specs
    # share one server for the run, and the run's gateway (if any) sits in front of it;
    # both stop when the run ends.
    with credentials.dropped(), local_servers(), contextlib.ExitStack() as stack:
        return _run(args, stack)


def _run(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.rundir import default_run_dir
    from gaia_eval.tasks.suite import TasksSuite

    cfg = config(args, stack)
    if args.out is None and args.resume is None:
        out = env("out")
        args.out = Path(out) if out else default_run_dir(f"tasks-{cfg.suite}")
    meter = _meter(args, cfg, stack)
    rc = run_suite(TasksSuite(cfg), args)
    if meter is not None:
        _close_meter(meter, cfg, args.resume or args.out)
    return rc


def _meter(args: argparse.Namespace, cfg: TasksConfig, stack: contextlib.ExitStack) -> Any:
    """`--meter NAME`: the account lock (held for the run) and the opening snapshot, in the
    run's setup; a resumed run keeps its first opening snapshot, so the delta covers it all."""
    from gaia_eval.agents import meter as meters
    from gaia_eval.core.results_io import read_json

    name = args.meter = setting(args, "meter")
    if not name:
        return None
    m = meters.build_meter(name, env("fireworks_account"))
    stack.enter_context(meters.account_lock(m))
    previous = (args.resume or Path()) / "results.json"
    record = None
    if args.resume is not None and previous.is_file():
        data = read_json(previous).get("setup", {}).get("meter")
        if isinstance(data, dict):
            record = meters.MeterRecord.model_validate({**data, "after": None})
    cfg.meter = (record or meters.opening(m)).model_dump(mode="json")
    return m


def _close_meter(m: Any, cfg: TasksConfig, folder: Path) -> None:
    """The closing snapshot (after the meter's lag), written into results.json and the
    reports, whose run cost is then the metered one."""
    from gaia_eval.agents import meter as meters
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.runloop import write_outputs
    from gaia_eval.tasks.suite import TasksSuite

    assert cfg.meter is not None
    record = meters.MeterRecord.model_validate(cfg.meter)
    if record.lag_s > 0:
        print(f"gaia-eval: waiting {record.lag_s:g} s for the {m.name} billing meter to catch up")
    record = meters.closing(m, record)
    env_ = load_envelope(folder / "results.json", suite=TasksSuite.name)
    env_.setup["meter"] = record.model_dump(mode="json")
    env_.summary = TasksSuite.summarise(env_).model_dump(mode="json", by_alias=True)
    write_outputs(TasksSuite, folder, env_)
    print(f"  metered cost ({m.name}, account {m.account}): ${record.usd():.4f}")


def judge_spec(args: argparse.Namespace, why: str, *, toolchain: bool = False) -> Any:
    """The --judge-model spec, with its SDK and credentials checked (and pytest, when the
    command runs tasks)."""
    from gaia_eval.agents import preflight
    from gaia_eval.llm.spec import parse_model_spec

    spec = parse_model_spec(required(args, "judge_model", why), "--judge-model")
    preflight.check(judge=spec, claude_bin=env("claude") or "claude", toolchain=toolchain)
    return spec


CONTROLS = Options.of(
    Option("--work-root", "where the planted workdirs live", Path), JUDGE, RUN_UNGATED
)


def controls_main(args: argparse.Namespace) -> int:
    """`tasks controls`: the judge must score three planted attempts apart."""
    import tempfile

    from gaia_eval.agents.harnesses.replay import ReplayHarness
    from gaia_eval.core.errors import EXIT_GATE_FAILED
    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.results import load_envelope
    from gaia_eval.core.results_io import write_json
    from gaia_eval.llm import local_server
    from gaia_eval.tasks.controls import CONTROL_TASK, assess
    from gaia_eval.tasks.definitions import load_tasks
    from gaia_eval.tasks.results import task_result
    from gaia_eval.tasks.runner import TasksConfig
    from gaia_eval.tasks.suite import ControlsSuite

    spec = judge_spec(args, "to check the judge", toolchain=True)  # the plants run pytest
    args.judge_model, args.work_root = spec.text, path_of(args.work_root)
    cfg = TasksConfig(
        suite="controls",
        tasks=[load_tasks().tasks[CONTROL_TASK]],
        harness=ReplayHarness({}),
        model="replay",
        judge_model=spec.text,
        judge_attempts=args.judge_attempts,
        work_root=args.work_root,
        tests_timeout_s=120.0,
        local_model=local_server.local_server_for(spec),
    )
    if args.out is None and args.resume is None:
        args.out = Path(tempfile.mkdtemp(prefix="gaia-eval-controls-"))
    out = args.resume or args.out
    rc = run_suite(ControlsSuite(cfg), args)
    env_ = load_envelope(out / "results.json", suite=ControlsSuite.name)
    checks = dict(env_.setup.get("checks") or {})
    results = {r.id: task_result(r, checks) for r in env_.items}
    grades = {k: r.judge for k, r in results.items() if r.judge is not None}
    verdict = assess(results, grades)
    write_json(
        out / "controls.json",
        {
            "schema": 1,
            "judge_model": spec.text,
            "ok": verdict.ok,
            "reasons": verdict.reasons,
            "grades": {k: g.model_dump(mode="json") for k, g in grades.items()},
        },
    )
    said = "the judge scores the planted attempts apart" if verdict.ok else "FAILED"
    print(f"controls: {said} ({out})")
    for r in verdict.reasons:
        print(f"  - {r}")
    return rc or (0 if verdict.ok else EXIT_GATE_FAILED)


COMMANDS = (
    SuiteCommand(
        "tasks",
        ("tasks", "run"),
        "Flagship agent tasks: give an agent real work on a small project and score the result.",
        OPTIONS,
        main,
    ),
    SuiteCommand(
        "tasks-controls",
        ("tasks", "controls"),
        "Check the tasks judge on three planted attempts.",
        CONTROLS,
        controls_main,
    ),
)
COMMAND, CONTROLS_COMMAND = COMMANDS
