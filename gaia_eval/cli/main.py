"""Assemble the command modules in gaia_eval.cli into one argparse program."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from gaia_eval import __version__
from gaia_eval.core.argparser import ArgumentParser
from gaia_eval.core.errors import (
    EXIT_INTERNAL,
    EXIT_INVALID,
    GaiaEvalError,
    disk_full,
    exit_code_for,
    exit_table_epilog,
)

EPILOG = (
    "Every command has --help. Documentation: README.md and docs/ in the gaia_eval source "
    "(docs/architecture.md, docs/runs.md, docs/datasets.md, docs/retrieval-rag.md, "
    "docs/code-retrieval.md, docs/memory.md, docs/tasks.md, docs/sessions.md, "
    "docs/benchmark.md, docs/local-model.md, docs/code-bench.md, docs/agent.md, "
    "docs/scrubbing.md, docs/view.md, docs/probed-cases.md). " + exit_table_epilog()
)


def _command_modules() -> list[ModuleType]:
    import gaia_eval.cli as pkg

    mods = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name == "main" or info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"gaia_eval.cli.{info.name}")
        if _listed(mod):
            mods.append(mod)
    return mods


def _listed(mod: ModuleType) -> bool:
    """A command module is listed when it defines NAME and run, and, if it defines
    `available() -> bool`, that says it works here (only commands that work are listed)."""
    if not (hasattr(mod, "NAME") and hasattr(mod, "run")):
        return False
    available = getattr(mod, "available", None)
    return available is None or bool(available())


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="gaia-eval",
        description="Evaluate AI agents and their parts with numbers you can trust.",
        epilog=EPILOG,
    )
    parser.add_argument("--version", action="version", version=f"gaia-eval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for mod in _command_modules():
        p = sub.add_parser(
            mod.NAME,
            help=mod.HELP,
            description=mod.HELP,
            add_help=getattr(mod, "ADD_HELP", True),
        )
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; everything it prints passes the scrubber (core.terminal)."""
    from gaia_eval.core.terminal import scrubbed_terminal

    with scrubbed_terminal():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from gaia_eval.cli import _alias
    from gaia_eval.core import launch

    if argv is None:
        # The real command: no agent it starts (a process of the same user) may read the
        # credentials of its start-up environment from /proc/<pid>/environ or its memory
        # (core.procguard). In-process callers (tests) keep their own process as it is.
        from gaia_eval.agents.isolation import is_secret_name
        from gaia_eval.core.procguard import private_memory

        private_memory(is_secret_name)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        argv = launch.expand_resume(argv, _alias.command_of)
    except GaiaEvalError as err:
        return _fail(err)
    launch.invoked[:] = argv  # what a run records (and --resume re-runs)
    from gaia_eval.view.index import index_finished_run

    if index_finished_run not in launch.finished_hooks:  # a finished run joins the view's index
        launch.finished_hooks.append(index_finished_run)
    args = parser.parse_args(argv)
    args._argv = argv  # what the run records (main(argv) in-process is not sys.argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_INVALID
    try:
        return int(args._run(args))
    except GaiaEvalError as err:
        return _fail(err)
    except KeyboardInterrupt as err:
        print("gaia-eval: interrupted; everything finished is saved", file=sys.stderr)
        return exit_code_for(err)
    except Exception as err:  # a bug: one line, the traceback saved, exit 70
        full = disk_full(err)  # ...unless the disk is full: an infrastructure stop, exit 3
        return _fail(full) if full is not None else _internal(err)


def _say(text: str) -> None:
    """Print to stderr through the scrubber (a message may quote a user's secret)."""
    from gaia_eval.core.results_io import scrub_text

    try:
        text = scrub_text(text)
    except Exception:  # the scrubber itself failed: say nothing it could not check
        text = "gaia-eval: error (message withheld: the secret scrubber failed on it)"
    print(text, file=sys.stderr)


def _fail(err: GaiaEvalError) -> int:
    _say(f"gaia-eval: error: {err}")
    return exit_code_for(err)


def _internal(err: BaseException) -> int:
    import tempfile
    import traceback

    from gaia_eval.core.results_io import write_text
    from gaia_eval.core.runloop import current_run_dir

    folder = current_run_dir.get("dir") or Path(tempfile.gettempdir())
    path = folder / f"gaia-eval-crash-{os.getpid()}.txt"
    text = "".join(traceback.format_exception(err))
    try:
        write_text(path, text)
        where = f"the traceback is in {path}"
    except Exception:
        where = "the traceback could not be saved"
    _say(
        f"gaia-eval: internal error ({type(err).__name__}); this is a bug in gaia-eval, "
        f"please report it; {where}"
    )
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
