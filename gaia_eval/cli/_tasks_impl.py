"""The work behind `gaia-eval tasks ...` (kept out of tasks.py so `--help` stays instant)."""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from gaia_eval.cli.tasks import _env, required
from gaia_eval.core.errors import (
    EXIT_GATE_FAILED,
    EXIT_INFRA,
    InfrastructureError,
    InvalidInputError,
)
from gaia_eval.core.lock import eval_lock
from gaia_eval.core.results_io import read_json, write_json, write_text
from gaia_eval.core.runmeta import timestamp_slug
from gaia_eval.tasks.definitions import TaskDef, data_dir, load_tasks


def _number(args: argparse.Namespace, key: str, kind: type, default: Any) -> Any:
    value = getattr(args, key, None)
    if value is None:
        raw = _env(key)
        if raw is None:
            return default
        try:
            value = kind(raw)
        except ValueError as err:
            from gaia_eval.cli.tasks import ENV

            msg = f"{ENV[key]}={raw!r}: expected a {kind.__name__}"
            raise InvalidInputError(msg) from err
    if value <= 0:
        msg = f"--{key.replace('_', '-')} must be positive, got {value}"
        raise InvalidInputError(msg)
    return value


def _price(args: argparse.Namespace) -> tuple[float, float] | None:
    from gaia_eval.llm.pricing import parse_price

    text = getattr(args, "price", None) or _env("price")
    return parse_price(text) if text else None


def _load_replay(path: Path) -> dict[str, list[dict[str, Any]]]:
    if str(path) == "reference":
        path = data_dir() / "replays" / "reference.json"
    data = read_json(path)
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if not k.startswith("_")}
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, list) for k, v in data.items()
    ):
        msg = f"{path}: expected an object of task id -> list of steps"
        raise InvalidInputError(msg)
    return data


def _judge_tasks(args: argparse.Namespace) -> dict[str, TaskDef]:
    return load_tasks(getattr(args, "tasks_file", None)).tasks


def cmd_run(args: argparse.Namespace) -> int:
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.harnesses.base import make_harness
    from gaia_eval.tasks.report import summary
    from gaia_eval.tasks.runner import DEFAULT_RUN_TIMEOUT_S, RunConfig, judge_run, run_suite

    if args.fence:
        from gaia_eval.tasks.isolation import fence_available

        if not fence_available():
            msg = (
                "--fence: bubblewrap (bwrap) is missing or cannot create a sandbox here "
                "(install the Debian package bubblewrap; user namespaces must be allowed); "
                "refused rather than pretended"
            )
            raise InvalidInputError(msg)
    suite = args.suite or _env("suite") or "core"
    harness_name = args.harness or _env("harness") or "builtin"
    taskfile = load_tasks(args.tasks_file)
    ids = args.tasks or _env("tasks")
    only = [t.strip() for t in ids.split(",") if t.strip()] if ids else None
    if not args.full_access and _env("full_access") in ("1", "true", "yes"):
        args.full_access = True
    tasks = taskfile.select(suite, only)
    judge_model = None
    if not args.no_judge:
        judge_model = required(args, "judge_model", "to judge the run (or pass --no-judge)")
        parse_model_spec(judge_model, "--judge-model")
    harness: Any
    if harness_name == "builtin":
        spec = parse_model_spec(required(args, "model", "for --harness builtin"))
        model = spec.text
        harness = make_harness("builtin", model=spec, full_access=args.full_access)
    elif harness_name == "replay":
        replay = args.replay or (Path(p) if (p := _env("replay")) else None)
        if replay is None:
            required(args, "replay", "for --harness replay")
        assert replay is not None
        model = args.model or _env("model") or "replay"
        harness = make_harness("replay", scripts=_load_replay(replay), full_access=args.full_access)
    elif harness_name == "claude-code":
        text = required(args, "model", "for --harness claude-code")
        model = text
        name = text.split(":", 1)[1] if text.startswith(("claude-code:", "anthropic:")) else text
        harness = make_harness("claude-code", model=name, executable=_env("claude") or "claude")
    else:
        template = required(args, "command_template", "for --harness command")
        model = args.model or _env("model") or "command"
        harness = make_harness(harness_name, template=template, model=model)
    out = args.out or (Path(p) if (p := _env("out")) else None)
    out = out or Path("eval/results") / f"tasks-{suite}-{timestamp_slug()}"
    work_root = args.work_root or (Path(p) if (p := _env("work_root")) else None)
    outages: list[str] = []

    def judge(run_dir: Path) -> None:
        assert judge_model is not None
        try:
            judge_run(run_dir, judge_model, taskfile.tasks, attempts_allowed=args.judge_attempts)
        except InfrastructureError as err:
            outages.append(str(err))

    cfg = RunConfig(
        suite=suite,
        tasks=tasks,
        harness=harness,
        model=model,
        out=out,
        run_timeout_s=_number(args, "run_timeout", float, DEFAULT_RUN_TIMEOUT_S),
        repeats=_number(args, "repeats", int, 1),
        full_access=args.full_access,
        price_override=_price(args),
        keep_workdirs=args.keep_workdirs,
        fence=args.fence,
        judge=judge if judge_model else None,
    )
    if work_root is not None:
        cfg.work_root = work_root
    dirs = run_suite(cfg)
    from gaia_eval.tasks.runner import load_scorecard

    unmeasured = 0
    for d in dirs:
        s = summary(load_scorecard(d))
        unmeasured += s.unmeasured
        print(
            f"{d}: not measured {s.unmeasured}, passed {s.passed}/{s.tasks}, verified "
            f"{s.verified}/{s.coding}, quality {s.quality if s.quality is not None else 'n/a'}"
        )
    for o in outages:
        print(f"gaia-eval: judge unavailable: {o}", file=sys.stderr)
    return EXIT_INFRA if unmeasured or outages else 0


def cmd_judge(args: argparse.Namespace) -> int:
    from gaia_eval.tasks.report import summary
    from gaia_eval.tasks.runner import judge_run, run_folders

    model = required(args, "judge_model", "to judge")
    tasks = _judge_tasks(args)
    for d in run_folders(args.dirs):
        card = judge_run(d, model, tasks, attempts_allowed=args.judge_attempts)
        s = summary(card)
        print(f"{d}: judged {s.judged}/{s.tasks}, quality {s.quality}, misreported {s.misreported}")
    return 0


def cmd_controls(args: argparse.Namespace) -> int:
    from gaia_eval.llm.complete import complete
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.controls import CONTROL_TASK, SCRIPTS, assess
    from gaia_eval.tasks.harnesses.replay import ReplayHarness
    from gaia_eval.tasks.judge import judge_attempts
    from gaia_eval.tasks.runner import RunConfig, attempts_for_run, load_scorecard, run_one

    spec = parse_model_spec(required(args, "judge_model", "to check the judge"), "--judge-model")
    tasks = load_tasks()
    task = tasks.tasks[CONTROL_TASK]
    out = args.out or Path(tempfile.mkdtemp(prefix="gaia-eval-controls-"))
    results, attempts = {}, []
    with eval_lock("gaia-eval tasks controls"):
        for name, script in SCRIPTS.items():
            cfg = RunConfig(
                suite="controls",
                tasks=[task],
                harness=ReplayHarness({CONTROL_TASK: script}),
                model="replay",
                out=out / name,
                tests_timeout_s=120.0,
            )
            if args.work_root:
                cfg.work_root = args.work_root
            run_one(cfg, out / name, 1)
            card = load_scorecard(out / name)
            results[name] = card.tasks[0]
            (attempt,) = attempts_for_run(out / name, card, tasks.tasks)
            attempt.id = name
            attempts.append(attempt)
    grades = judge_attempts(
        attempts, lambda s, p: complete(spec, s, p), attempts_allowed=args.judge_attempts
    )
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
    return 0 if verdict.ok else EXIT_GATE_FAILED


def cmd_calibrate(args: argparse.Namespace) -> int:
    from gaia_eval.llm.complete import complete
    from gaia_eval.llm.spec import parse_model_spec
    from gaia_eval.tasks.controls import assess_calibration, calibration_attempts
    from gaia_eval.tasks.judge import judge_attempts

    spec = parse_model_spec(required(args, "judge_model", "to calibrate"), "--judge-model")
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


def _slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("_")


def default_expectations(model: str, suite: str) -> Path:
    return data_dir() / "expectations" / f"{_slug(model)}.{suite}.json"


def _load_expectations(path: Path) -> Any:
    from gaia_eval.tasks.models import Expectations

    data = read_json(path)
    try:
        return Expectations.model_validate(data)
    except ValueError as err:
        msg = f"{path}: not a tasks expectations file: {err}"
        raise InvalidInputError(msg) from err


def _write_expectations(path: Path, exp: Any) -> None:
    write_json(path, exp.model_dump(mode="json", by_alias=True))
    print(f"wrote expectations {path}")


def cmd_gate(args: argparse.Namespace) -> int:
    import os

    from gaia_eval.tasks.gate import gate, propose, verdict_markdown
    from gaia_eval.tasks.runner import load_scorecard, run_folders

    dirs = run_folders([args.dir])
    cards = [load_scorecard(d) for d in dirs]
    if args.propose:
        exp = propose(cards, os.environ.get("GITHUB_SHA"), os.environ.get("RUNNER_NAME"))
        _write_expectations(args.propose, exp)
    failed = False
    for d, card in zip(dirs, cards, strict=True):
        path = args.expect or default_expectations(card.model, card.suite)
        if not path.exists():
            if args.enforce:
                msg = (
                    f"--expect: no expectations for model {card.model!r} suite {card.suite!r} "
                    f"({path} does not exist); write them with `tasks propose` or pass --expect"
                )
                raise InvalidInputError(msg)
            print(f"{d}: no expectations for {card.model!r}/{card.suite!r}; nothing to gate")
            continue
        verdict = gate(card, _load_expectations(path))
        write_json(d / "gate.json", verdict.model_dump(mode="json", by_alias=True))
        text = verdict_markdown(card, verdict)
        write_text(d / "gate.md", text)
        print(text)
        failed = failed or not verdict.ok
    return EXIT_GATE_FAILED if failed and args.enforce else 0


def cmd_propose(args: argparse.Namespace) -> int:
    import os

    from gaia_eval.tasks.gate import propose
    from gaia_eval.tasks.runner import load_scorecard, run_folders

    cards = [load_scorecard(d) for d in run_folders(args.dirs)]
    exp = propose(cards, os.environ.get("GITHUB_SHA"), os.environ.get("RUNNER_NAME"))
    _write_expectations(args.out, exp)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from gaia_eval.tasks.report import table_html, table_markdown
    from gaia_eval.tasks.runner import load_scorecard, run_folders

    cards = [load_scorecard(d) for d in run_folders(args.dirs)]
    args.out.mkdir(parents=True, exist_ok=True)
    write_text(args.out / "report.md", table_markdown(cards))
    write_text(args.out / "report.html", table_html(cards))
    print(table_markdown(cards))
    print(f"wrote {args.out / 'report.md'} and {args.out / 'report.html'}")
    return 0
