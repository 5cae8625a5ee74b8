"""How a suite command runs on the engine: the shared run flags become a RunRequest, the
suite runs on core.runloop, and the short terminal summary with the paths of results.json,
report.md and report.html is printed (and, when an outage stopped the run, its cause and the
resume command). `expand_resume` lets `gaia-eval SUITE --resume DIR` alone re-run a stopped
run under its own recorded command line.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gaia_eval.core.errors import InvalidInputError

if TYPE_CHECKING:
    from gaia_eval.core.runloop import RunOutcome
    from gaia_eval.core.suite import Suite


def resolve_baseline(spec: str, folder: str | None = None) -> tuple[Path, str]:
    """(path, label) of a --gate value: a file, a run folder, `builtin:SUITE/NAME`, or (with
    the suite's baselines `folder`) a short name; names resolve in core/baselines. A name's
    label is the shipped file (`gaia_eval/baselines/retrieval/pr.json`), so the report's
    gate section says which file was compared, not just `pr`."""
    from gaia_eval.core import baselines

    path = Path(spec)
    if spec.startswith(baselines.PREFIX) or (folder is not None and not path.exists()):
        try:
            found = baselines.resolve(spec, folder or "")
        except InvalidInputError as err:
            raise InvalidInputError(f"--gate {err}") from None
        return found, baselines.shipped_label(found)
    if path.is_dir():
        path = path / "results.json"
    return path, spec


invoked: list[str] = []
"""The command line `cli.main.main` is running, after `--resume` expansion (what a run
records; `sys.argv` is neither expanded nor, when main() is called in-process, ours)."""


def request(
    args: argparse.Namespace, argv: Sequence[str] | None = None, *, folder: str | None = None
) -> object:
    """The RunRequest the shared flags ask for (`folder`: the suite's baselines folder under
    gaia_eval/baselines/, where `--gate NAME` looks)."""
    from gaia_eval.core.runloop import RunRequest, Shard

    command = getattr(args, "_suite_command", None)
    if argv is None and command is not None:
        argv = command.argv(args)  # generated from the suite's options (core/options.py)
    if argv is None:
        argv = invoked or sys.argv[1:]
    argv = list(argv)
    baseline, label = (None, None)
    if getattr(args, "gate", None):
        baseline, label = resolve_baseline(args.gate, folder)
    return RunRequest(
        command="gaia-eval " + shlex.join(argv),
        argv=argv,
        out=args.out,
        resume=args.resume,
        shard=Shard.parse(args.shard) if args.shard else None,
        baseline=baseline,
        baseline_label=label,
        tolerance=getattr(args, "tolerance", None),
        keep_temp=args.keep_temp,
        wait_lock=getattr(args, "wait_lock", None),
        jobs=getattr(args, "jobs", None),
        budget_usd=getattr(args, "budget_usd", None),
    )


def run_suite(
    suite: object,
    args: argparse.Namespace,
    *,
    argv: Sequence[str] | None = None,
) -> int:
    """Run a configured suite with the shared flags; print the summary; the exit code.

    `argv` is the command line to record (and resume with) when the suite knows a fuller
    one than sys.argv (settings taken from environment variables)."""
    from gaia_eval.core import runloop
    from gaia_eval.core.suite import Suite

    assert isinstance(suite, Suite)
    # main(argv) keeps its own argv on args: an in-process run records that, not sys.argv.
    cls = type(suite)
    command = getattr(args, "_suite_command", None)  # then request() generates the argv
    req = request(
        args,
        argv if argv is not None or command is not None else getattr(args, "_argv", None),
        folder=getattr(cls, "baselines_folder", cls.name),
    )
    assert isinstance(req, runloop.RunRequest)
    return run_and_print(suite, req)


def run_and_print(suite: object, req: object) -> int:
    """Run `suite` on the run loop; print its summary and file paths on stdout, also when
    an outage stopped it or it measured nothing (then the cause and the resume command
    too, before the error goes up to the CLI: exit 3 with the same message on stderr),
    and when Ctrl-C or SIGTERM stopped it (then the resume command)."""
    from gaia_eval.core import runloop
    from gaia_eval.core.progress import scrubbed
    from gaia_eval.core.suite import Suite

    assert isinstance(suite, Suite) and isinstance(req, runloop.RunRequest)

    def interrupted(outcome: RunOutcome, resume: str) -> None:
        _print_outcome(type(suite), outcome)
        print(scrubbed(f"finish the run with:\n  {resume}"))

    req.on_interrupt = interrupted
    try:
        outcome = runloop.run(suite, req)
    except runloop.RunStopped as err:
        _print_outcome(type(suite), err.outcome)
        _index(err.outcome)
        for line in err.lines():
            print(scrubbed(line))
        raise
    _print_outcome(type(suite), outcome)
    _index(outcome)
    return outcome.exit_code


finished_hooks: list[Callable[[Path], None]] = []
"""Called with a finished (or stopped) run's folder; the CLI adds the view's index update
(a layer above core). Best effort: a hook that fails never fails the run."""


def _index(outcome: RunOutcome) -> None:
    for hook in finished_hooks:
        try:
            hook(outcome.out_dir)
        except Exception:
            continue


def _print_outcome(cls: type[Suite], outcome: RunOutcome) -> None:
    from gaia_eval.core.report import terminal_summary

    for line in terminal_summary(cls, outcome.envelope):
        print(line)
    for kind, path in outcome.paths.items():
        print(f"  {kind}: {path}")


def expand_resume(
    argv: Sequence[str], command_of: Callable[[Sequence[str]], tuple[str, int]] | None = None
) -> list[str]:
    """`gaia-eval CMD --resume DIR [more]` -> the recorded command line of the run in DIR
    with `--resume DIR` (and any flags given now) appended; other argv pass through."""
    argv = list(argv)
    if "--resume" not in argv and not any(a.startswith("--resume=") for a in argv):
        return argv
    folder: str | None = None
    rest: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg == "--resume":
            folder = next(it, None)
        elif arg.startswith("--resume="):
            folder = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if folder is None:
        return argv  # argparse reports the missing value
    results = Path(folder) / "results.json"
    if not results.is_file():
        # Said here: left to argparse, `retrieval --resume DIR` (no --component, which
        # only the recorded command line supplies) read as "unrecognized arguments".
        msg = f"--resume {folder}: no results.json there; pass the folder of an earlier run"
        raise InvalidInputError(msg)
    from gaia_eval.core.results_io import read_json

    data = read_json(results)
    header = data.get("header") if isinstance(data, dict) else None
    run = header.get("run") if isinstance(header, dict) else None
    recorded = run.get("argv") if isinstance(run, dict) else None
    if (
        not isinstance(recorded, list)
        or not recorded
        or not all(isinstance(a, str) for a in recorded)
    ):
        return argv
    # `command_of(words)`: (the suite, how many words name it), so that `run SUITE` and
    # the suite's older command resume each other's runs.
    of = command_of or (lambda words: (words[0], 1))
    if rest:
        (given, n), (ran, _) = of(rest), of(recorded)
        # `sessions --resume DIR` of a `sessions controls` run: the command word suffices.
        if given != ran and not (n == 1 and rest[0] == recorded[0]):
            msg = (
                f"--resume {folder}: that folder holds a `gaia-eval {recorded[0]}` run, "
                f"not `gaia-eval {rest[0]}`"
            )
            raise InvalidInputError(msg)
        rest = rest[n:]
    from gaia_eval.core.runloop import strip_run_dir_flags

    base = strip_run_dir_flags(recorded)
    changed = [a for a in rest if a not in recorded]
    if changed:
        msg = (
            f"--resume {folder} runs under the run's recorded command line "
            f"(gaia-eval {shlex.join(base)}); drop {shlex.join(changed)}, or start a new run"
        )
        raise InvalidInputError(msg)
    return [*base, "--resume", folder]
