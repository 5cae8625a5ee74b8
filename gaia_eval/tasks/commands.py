"""The work behind `gaia-eval tasks judge|calibrate|gate|propose|report|gateway|swebench`
(the CLI, cli/tasks.py, only parses): these read and rewrite finished run folders. `tasks
run` and `tasks controls` are suites on the engine (gaia_eval/tasks/options.py).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gaia_eval.core.errors import EXIT_GATE_FAILED, InvalidInputError
from gaia_eval.core.results_io import read_json, write_json, write_text
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.options import judge_spec

if TYPE_CHECKING:
    from gaia_eval.tasks.definitions import TaskDef


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


def cmd_judge(args: argparse.Namespace) -> int:
    from gaia_eval.tasks.models import TasksSummary
    from gaia_eval.tasks.rejudge import judge_run

    spec = judge_spec(args, "to judge")

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


def cmd_calibrate(args: argparse.Namespace) -> int:
    from gaia_eval.llm.complete import complete
    from gaia_eval.tasks.controls import assess_calibration, calibration_attempts
    from gaia_eval.tasks.judge import judge_attempts

    spec = judge_spec(args, "to calibrate")
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


def _completeness(env: Any) -> tuple[int, int]:
    """(tasks measured, tasks of the suite): a stopped, unmeasured or filtered run has fewer."""
    head = env.header
    done = sum(1 for r in env.items if r.status != "infra_error")
    total = max(head.items_total, len(head.item_ids))
    if head.interrupted or not head.complete:
        total = max(total, done + 1)  # stopped: never reads as complete
    return done, total


def cmd_gate(args: argparse.Namespace) -> int:
    import os

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
        done, total = _completeness(env_)
        if args.enforce and done < total:
            # "not gated yet" is for a complete run: an incomplete one fails --enforce
            # whether or not expectations exist.
            print(
                f"{args.dir}: gate FAILED: the run is incomplete, {done} of {total} tasks "
                "measured; --enforce gates only a complete run (re-run or --resume it)"
            )
            return 1
        print(
            f"{args.dir}: not gated yet: no expectations committed for model {head.model!r} "
            f"suite {head.tier!r} ({path}); commit a `tasks propose` of judged runs to gate it"
            + (f" (and it measured only {done} of {total} tasks)" if done < total else "")
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
    from gaia_eval.core.gate import exit_code as gate_exit_code

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
    from gaia_eval.tasks.options import SUITE_FILES

    if shipped and tier in SUITE_FILES:
        return dict(load_tasks(data_dir() / SUITE_FILES[tier]).tasks), work
    return {}, work
