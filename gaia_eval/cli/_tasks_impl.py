"""The work behind `gaia-eval tasks ...` (kept out of tasks.py so `--help` stays instant).

`tasks run` and `tasks controls` run on the suite engine (core.runloop: the lock, signals,
saving after every task, resume, shards, the report); the other commands read and rewrite
finished run folders.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.cli._runflags import RecordedArgv, local_server_for
from gaia_eval.core.errors import EXIT_GATE_FAILED, InvalidInputError
from gaia_eval.core.results_io import read_json, write_json, write_text
from gaia_eval.core.rundir import default_run_dir
from gaia_eval.tasks.definitions import data_dir, load_tasks
from gaia_eval.tasks.settings import env, number, required, setting

if TYPE_CHECKING:  # the runner imports the harnesses and the LLM clients
    from gaia_eval.llm.spec import ModelSpec
    from gaia_eval.tasks.runner import TasksConfig


def _harness(args: argparse.Namespace, argv: RecordedArgv) -> tuple[Any, str, str, dict[str, Any]]:
    """(harness, model, system, harness settings) of --harness and its options."""
    from gaia_eval.agents.harnesses.choose import choose_harness

    choice = choose_harness(
        setting(args, "harness") or "builtin",
        get=lambda key: setting(args, key),
        need=lambda key, why: required(args, key, why),
        record=argv.add,
        full_access=args.full_access,
        named_replays={"reference": data_dir() / "replays" / "reference.json"},
        claude_bin=env("claude") or "claude",
    )
    return choice.harness, choice.model, choice.system, choice.settings


def _gateway(
    args: argparse.Namespace, argv: RecordedArgv, harness: Any, spec: ModelSpec | None,
    stack: contextlib.ExitStack | None,
) -> tuple[str | None, str]:  # fmt: skip
    """(gateway URL, client suffix) the harness's model calls go through: `--gateway-url`,
    else a gateway of the run's own (stopped with it); (None, "") for no model route."""
    from gaia_eval.agents import gateway
    from gaia_eval.agents.routing import route_for

    route = route_for(harness.name, spec)
    if route is None:
        return None, ""
    if harness.name == "claude-code":
        harness.model = route.served_model  # the name the open model's server knows
    given = setting(args, "gateway_url")
    if given:
        gateway.check_reachable(given)
        argv.add("--gateway-url", given)
        return given.rstrip("/"), route.client_suffix
    if stack is None:
        return None, ""
    gw = stack.enter_context(gateway.Gateway(route.upstream))
    return gw.url, route.client_suffix


def _run_config(
    args: argparse.Namespace, stack: contextlib.ExitStack | None = None
) -> tuple[TasksConfig, list[str]]:
    """(config, the recorded command line); the run's gateway, if any, lives in `stack`."""
    from gaia_eval.agents import credentials, preflight
    from gaia_eval.llm.pricing import parse_price
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.runner import DEFAULT_RUN_TIMEOUT_S, TasksConfig

    argv = RecordedArgv("tasks", "run")
    suite = setting(args, "suite") or "core"
    argv.add("--suite", suite)
    tasks_file = args.tasks_file.resolve() if args.tasks_file else None
    argv.add("--tasks-file", tasks_file)
    from gaia_eval.cli import _tasks_repo

    # tasks.json, a suite's own data file (therock) or SWE-bench instances.
    everything, selected, wanted = _tasks_repo.select(args, argv, suite, tasks_file)
    if not args.full_access and env("full_access") in ("1", "true", "yes"):
        args.full_access = True
    judge = None
    if not args.no_judge:
        judge = parse_model_spec(
            required(args, "judge_model", "to judge the run (or pass --no-judge)"),
            "--judge-model",
        )
    harness, model, system, harness_settings = _harness(args, argv)
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
    price_text = setting(args, "price")
    work_root = setting(args, "work_root")
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
        work_root=Path(work_root).resolve() if work_root else None,
        repeats=repeats,
        only=[t.id for t in selected] if wanted else None,
        full_access=args.full_access,
        fence=args.fence,
        price_override=parse_price(price_text) if price_text else None,
        keep_workdirs=args.keep_workdirs,
        system=system,
        harness_settings=harness_settings,
        local_model=local_server_for(routed, judge),
    )
    _tasks_repo.configure(cfg, args, argv)
    cfg.gateway_url, cfg.gateway_suffix = _gateway(args, argv, harness, routed, stack)
    if cfg.keep_workdirs and cfg.work_root is None:
        args.keep_temp = True  # the workdirs live in the run's temp folder
    for key, value in (
        ("--repeats", repeats if repeats != 1 else None),
        ("--run-timeout", run_timeout if run_timeout != DEFAULT_RUN_TIMEOUT_S else None),
        ("--work-root", cfg.work_root),
        ("--full-access", cfg.full_access),
        ("--fence", cfg.fence),
        ("--no-judge", judge is None),
        ("--price", price_text),
        ("--keep-workdirs", cfg.keep_workdirs),
        ("--judge-model", cfg.judge_model),
        ("--judge-attempts", args.judge_attempts if judge else None),
        ("--out", args.out),
        ("--shard", args.shard),
        ("--gate", args.gate),
        ("--tolerance", args.tolerance),
        ("--keep-temp", args.keep_temp),
    ):
        argv.add(key, value)
    return cfg, argv.words


def cmd_run(args: argparse.Namespace) -> int:
    from gaia_eval.agents import credentials
    from gaia_eval.llm.local_server import local_servers

    # The judge's credentials are out of this process until the judge step; `local` specs
    # share one server for the run, and the run's gateway (if any) sits in front of it;
    # both stop when the run ends.
    with credentials.dropped(), local_servers(), contextlib.ExitStack() as stack:
        return _run(args, stack)


def _run(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.tasks.suite import TasksSuite

    cfg, argv = _run_config(args, stack)
    if args.out is None and args.resume is None:
        out = env("out")
        args.out = Path(out) if out else default_run_dir(f"tasks-{cfg.suite}")
        argv += ["--out", str(args.out)]
    meter = _meter(args, argv, cfg, stack)
    rc = run_suite(TasksSuite(cfg), args, argv=argv)
    if meter is not None:
        _close_meter(meter, cfg, args.resume or args.out)
    return rc


def _meter(
    args: argparse.Namespace, argv: list[str], cfg: TasksConfig, stack: contextlib.ExitStack
) -> Any:
    """`--meter NAME`: the account lock (held for the run) and the opening snapshot, in the
    run's setup; a resumed run keeps its first opening snapshot, so the delta covers it all."""
    from gaia_eval.agents import meter as meters

    name = setting(args, "meter")
    if not name:
        return None
    m = meters.build_meter(name, env("fireworks_account"))
    if "--meter" not in argv:
        argv += ["--meter", name]
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


def _judge_spec(args: argparse.Namespace, why: str, *, toolchain: bool = False) -> Any:
    """The --judge-model spec, with its SDK and credentials checked (and pytest, when the
    command runs tasks)."""
    from gaia_eval.agents import preflight
    from gaia_eval.llm.spec import parse_model_spec

    spec = parse_model_spec(required(args, "judge_model", why), "--judge-model")
    preflight.check(judge=spec, claude_bin=env("claude") or "claude", toolchain=toolchain)
    return spec


def cmd_swebench(args: argparse.Namespace) -> int:
    from gaia_eval.cli._tasks_repo import cmd_swebench as grade

    return grade(args)


def cmd_judge(args: argparse.Namespace) -> int:
    from gaia_eval.tasks.models import TasksSummary
    from gaia_eval.tasks.rejudge import judge_run

    spec = _judge_spec(args, "to judge")
    from gaia_eval.cli._tasks_repo import rejudge_context

    tasks = load_tasks(args.tasks_file).tasks
    for d in args.dirs:
        # Repository runs: their suite file's tasks, or SWE-bench tasks rebuilt from the
        # row cache; and the work root the run used.
        extra, work_root = rejudge_context(d, args.tasks_file is None)
        env_ = judge_run(
            d,
            spec.text,
            {**extra, **tasks},
            attempts_allowed=args.judge_attempts,
            work_root=work_root,
        )
        c = TasksSummary.model_validate(env_.summary).counts
        print(f"{d}: judged {c.judged}/{c.tasks}, quality {c.quality}, misreported {c.misreported}")
    return 0


def cmd_controls(args: argparse.Namespace) -> int:
    from gaia_eval.agents.harnesses.replay import ReplayHarness
    from gaia_eval.cli._runflags import run_suite
    from gaia_eval.core.results import load_envelope
    from gaia_eval.tasks.controls import CONTROL_TASK, assess
    from gaia_eval.tasks.results import task_result
    from gaia_eval.tasks.runner import TasksConfig
    from gaia_eval.tasks.suite import ControlsSuite

    spec = _judge_spec(args, "to check the judge", toolchain=True)  # the plants run pytest
    work_root = args.work_root.resolve() if args.work_root else None
    cfg = TasksConfig(
        suite="controls",
        tasks=[load_tasks().tasks[CONTROL_TASK]],
        harness=ReplayHarness({}),
        model="replay",
        judge_model=spec.text,
        judge_attempts=args.judge_attempts,
        work_root=work_root,
        tests_timeout_s=120.0,
        local_model=local_server_for(spec),
    )
    if args.out is None and args.resume is None:
        args.out = Path(tempfile.mkdtemp(prefix="gaia-eval-controls-"))
    out = args.resume or args.out
    argv = RecordedArgv("tasks", "controls", "--judge-model", spec.text)
    argv.add("--judge-attempts", args.judge_attempts)
    argv.add("--work-root", work_root)
    argv.add("--out", args.out)
    argv.add("--keep-temp", args.keep_temp)
    rc = run_suite(ControlsSuite(cfg), args, argv=argv.words)
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


def cmd_calibrate(args: argparse.Namespace) -> int:
    from gaia_eval.llm.complete import complete
    from gaia_eval.tasks.controls import assess_calibration, calibration_attempts
    from gaia_eval.tasks.judge import judge_attempts

    spec = _judge_spec(args, "to calibrate")
    attempts, expected = calibration_attempts(load_tasks().select(args.suite))
    grades = judge_attempts(
        attempts, lambda s, p: complete(spec, s, p), attempts_allowed=args.judge_attempts
    )
    verdict = assess_calibration(grades, expected)
    if args.out:
        write_json(
            args.out / "calibration.json",
            {
                "schema": 1,
                "judge_model": spec.text,
                "ok": verdict.ok,
                "reasons": verdict.reasons,
                "grades": {k: g.model_dump(mode="json") for k, g in grades.items()},
            },
        )
    print(f"calibration: {len(expected)} answers, {'all as expected' if verdict.ok else 'FAILED'}")
    for r in verdict.reasons:
        print(f"  - {r}")
    return 0 if verdict.ok else EXIT_GATE_FAILED


# ---- expectations ---------------------------------------------------------------------------


def default_expectations(model: str, suite: str) -> Path:
    """The committed expectations of a model and suite (shipped in the wheel)."""
    from importlib import resources

    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")
    root = Path(str(resources.files("gaia_eval") / "baselines" / "tasks"))
    return root / f"{slug}.{suite}.json"


def _load_expectations(path: Path) -> Any:
    from gaia_eval.core.results_io import model_from_data
    from gaia_eval.tasks.models import Expectations

    return model_from_data(read_json(path), Expectations, source=f"{path} (tasks expectations)")


def _write_expectations(path: Path, exp: Any) -> None:
    write_json(path, exp.model_dump(mode="json", by_alias=True))
    print(f"wrote expectations {path}")


def _cards(dirs: list[Path]) -> list[Any]:
    from gaia_eval.tasks.results import load_run, scorecards

    return [card for d in dirs for card in scorecards(load_run(d)[0])]


def cmd_gate(args: argparse.Namespace) -> int:
    import os

    from gaia_eval.core.gate import exit_code as gate_exit_code
    from gaia_eval.core.report import terminal_summary
    from gaia_eval.core.runloop import write_outputs
    from gaia_eval.core.suite import suite_class
    from gaia_eval.tasks.gate import gate_cards, propose
    from gaia_eval.tasks.results import load_run, scorecards

    env_, pre_engine = load_run(args.dir)
    cards = scorecards(env_)
    if args.propose:
        exp = propose(cards, os.environ.get("GITHUB_SHA"), os.environ.get("RUNNER_NAME"))
        _write_expectations(args.propose, exp)
    expect = None
    if args.expect is not None:  # a file, or shipped expectations by name (core/baselines)
        from gaia_eval.core import baselines

        try:
            expect = baselines.resolve(str(args.expect), "tasks")
        except InvalidInputError as err:
            msg = (
                f"--expect {err}; name an expectations file (written by `tasks propose`), "
                "or leave --expect out to use the committed one"
            )
            raise InvalidInputError(msg) from None
    head = env_.header
    path = expect or default_expectations(head.model or "", head.tier)
    cls = suite_class(head.suite)
    if not path.is_file():
        for line in terminal_summary(cls, env_):
            print(line)
        print(
            f"{args.dir}: not gated yet: no expectations committed for model {head.model!r} "
            f"suite {head.tier!r} ({path}); commit a `tasks propose` of judged runs to gate it"
        )
        return 0
    env_.verdict = gate_cards(cards, _load_expectations(path), label=str(path))
    folder = args.dir if args.dir.is_dir() else args.dir.parent
    if pre_engine:  # leave an old run's files as they were; add the gated report beside them
        from gaia_eval.core.report import render_html, render_markdown

        write_text(folder / "report.md", render_markdown(cls, env_))
        write_text(folder / "report.html", render_html(cls, env_))
    else:
        write_outputs(cls, folder, env_)
    v = env_.verdict
    print(f"{args.dir}: gate {'PASSED' if v.passed else 'FAILED'} against {path}")
    for m in v.metrics:
        state = "ok  " if m.passed else "MISS"
        print(f"  {state} {m.name}: {m.current} ({m.rule}; measured {m.baseline:g})")
    for note in v.notes:
        print(f"  note: {note}")
    print(f"  report: {folder / 'report.md'}")
    return gate_exit_code(v) if args.enforce else 0  # without --enforce: report only


def cmd_propose(args: argparse.Namespace) -> int:
    import os

    from gaia_eval.tasks.gate import propose

    exp = propose(_cards(args.dirs), os.environ.get("GITHUB_SHA"), os.environ.get("RUNNER_NAME"))
    _write_expectations(args.out, exp)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from gaia_eval.tasks.report import table_html, table_markdown
    from gaia_eval.tasks.screenshot import screenshot

    cards = _cards(args.dirs)
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / "report.md", table_markdown(cards))
    html_path = write_text(args.out / "report.html", table_html(cards))
    print(table_markdown(cards))
    rows = len({(c.suite, c.harness, c.model) for c in cards})
    why = screenshot(html_path, args.out / "report.png", height=160 + 44 * max(rows, 1))
    if why is None:
        print(f"wrote {args.out / 'report.md'}, {args.out / 'report.html'} and report.png")
    else:
        print(f"wrote {args.out / 'report.md'} and {args.out / 'report.html'}; {why}")
    return 0


def cmd_gateway(args: argparse.Namespace) -> int:
    import os
    import threading

    from gaia_eval.agents import gateway
    from gaia_eval.llm.local_server import local_servers, shared_server
    from gaia_eval.scrub import register_known

    with local_servers():
        url = args.upstream
        if not url:
            url = shared_server().base_url  # the embedded local model, its root
        key = os.environ.get(args.upstream_key_env) or None
        if key:
            register_known(key)
        with gateway.Gateway(gateway.Upstream(url, key, args.auth), args.port) as gw:
            print(f"gateway: {gw.url} -> {url} (key from {args.upstream_key_env}: "
                  f"{'set' if key else 'none'}); Ctrl-C stops it", flush=True)  # fmt: skip
            try:
                threading.Event().wait()
            except KeyboardInterrupt:
                totals = gw.ledger.totals()
                print(f"gateway: stopped after {totals['calls']} calls, tokens in/out "
                      f"{gateway.show_tokens(totals)}", flush=True)  # fmt: skip
    return 0
