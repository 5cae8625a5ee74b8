"""Suite commands from their options: `gaia-eval run SUITE` and the older commands
(`gaia-eval memory`, `retrieval --component code`, `code run`, ...) parse the same
`SuiteCommand` (a suite package's options.py), so no flag is listed twice."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from collections.abc import Callable, Sequence
from typing import Any

from gaia_eval.core.options import SuiteCommand


def command(module: str, suite: str | None = None) -> SuiteCommand:
    """The SuiteCommand of `suite` (or the only one) in an options module."""
    mod = importlib.import_module(module)
    found: tuple[SuiteCommand, ...] = getattr(mod, "COMMANDS", None) or (mod.COMMAND,)
    if suite is None:
        return found[0]
    return next(c for c in found if c.suite == suite)


def options_module(target: str) -> str | None:
    """The options module beside a registered suite's class (`pkg.suite:Cls` -> pkg.options),
    or the suite's own module when it defines COMMAND (a one-file suite: tests/engine_toy.py)."""
    module = target.partition(":")[0]
    name = module.rsplit(".", 1)[0] + ".options"
    try:
        if "." in module and importlib.util.find_spec(name) is not None:
            return name
    except ModuleNotFoundError:
        pass
    if module.startswith("gaia_eval."):
        return None  # a shipped suite without options: not runnable by `run`
    try:
        return module if hasattr(importlib.import_module(module), "COMMAND") else None
    except ImportError:
        return None


def runner(cmd: SuiteCommand) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        args._suite_command = cmd
        return int(cmd.main(args))

    return run


def alias_of(module: str) -> tuple[str, str, Callable[[argparse.ArgumentParser], None], Any]:
    """(NAME, HELP, add_arguments, run) of a one-word older command: a cli module is then
    `NAME, HELP, add_arguments, run = alias_of("gaia_eval.SUITE.options")`."""
    cmd = command(module)
    return cmd.alias[0], cmd.help, cmd.add_to, runner(cmd)


def aliases() -> dict[str, tuple[str, ...]]:
    """Every registered suite's older command words."""
    from gaia_eval.core.suite import suites

    found: dict[str, tuple[str, ...]] = {}
    for name, entry in suites().items():
        module = options_module(entry.target)
        if module is not None:
            found[name] = command(module, name).alias
    return found


def command_of(words: Sequence[str]) -> tuple[str, int]:
    """(suite, words naming it) of a command line: `run SUITE ...` or an older command."""
    if len(words) > 1 and words[0] == "run":
        return words[1], 2
    for name, alias in sorted(aliases().items(), key=lambda kv: -len(kv[1])):
        if tuple(words[: len(alias)]) == alias:
            return name, len(alias)
    return (words[0], 1) if words else ("", 0)
