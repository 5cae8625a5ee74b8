"""Assemble the command modules in gaia_eval.cli into one argparse program."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from gaia_eval import __version__
from gaia_eval.core.errors import EXIT_INVALID, GaiaEvalError, exit_code_for


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
    parser = argparse.ArgumentParser(
        prog="gaia-eval",
        description="Evaluate AI agents and their parts with numbers you can trust.",
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
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return EXIT_INVALID
    try:
        return int(args._run(args))
    except GaiaEvalError as err:
        print(f"gaia-eval: error: {err}", file=sys.stderr)
        return exit_code_for(err)
    except KeyboardInterrupt:
        print("gaia-eval: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
