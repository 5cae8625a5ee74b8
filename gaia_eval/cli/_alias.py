"""Suite commands from their options: `gaia-eval run SUITE` and the older commands
(`gaia-eval memory`, `retrieval --component code`, `code run`, ...) parse the same
`SuiteCommand` (a suite package's options.py), so no flag is listed twice."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gaia_eval.core.options import SuiteCommand

if TYPE_CHECKING:
    from gaia_eval.core.suite import SuiteEntry


def command(module: str, suite: str | None = None) -> SuiteCommand:
    """The SuiteCommand of `suite` (or the only one) in an options module."""
    mod = importlib.import_module(module)
    found: tuple[SuiteCommand, ...] = getattr(mod, "COMMANDS", None) or (mod.COMMAND,)
    if suite is None:
        return found[0]
    return next(c for c in found if c.suite == suite)


def options_module(entry: SuiteEntry) -> str | None:
    """The module of a registered suite's flags: the entry's `options`, else the options
    module beside its class (`pkg.suite:Cls` -> `pkg.options`), if there is one."""
    if entry.options:
        return entry.options
    module = entry.target.partition(":")[0]
    if "." not in module:
        return None  # a one-file suite (a test's, a plug-in's) names its options module
    name = module.rsplit(".", 1)[0] + ".options"
    try:
        return name if importlib.util.find_spec(name) is not None else None
    except ModuleNotFoundError:
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
        module = options_module(entry)
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
