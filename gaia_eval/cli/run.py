"""`gaia-eval run SUITE [--tier T] [...]`: run any registered suite (core/suites.toml).

A suite's flags come from its package's options.py (a `SuiteCommand`); the older per-suite
commands (`memory`, `retrieval --component rag`, `tasks run`, `code run`, ...) are aliases
that parse the same options, where `--suite TIER` is the older spelling of `--tier`.
"""

from __future__ import annotations

import argparse

from gaia_eval.cli import _alias

NAME = "run"
HELP = "Run a registered suite: `gaia-eval run SUITE --tier T` (`gaia-eval run SUITE --help`)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from gaia_eval.core.suite import suites

    sub = parser.add_subparsers(dest="suite_name", metavar="SUITE", required=True)
    for name, entry in sorted(suites().items()):
        module = _alias.options_module(entry)
        if module is None:
            continue  # a suite registered by a test or plug-in without options
        cmd = _alias.command(module, name)
        p = sub.add_parser(name, help=entry.description, description=cmd.help)
        cmd.add_to(p)
        p.set_defaults(_run=_alias.runner(cmd), _head=("run", name))


def run(args: argparse.Namespace) -> int:  # each suite's parser sets its own _run
    raise AssertionError(args)
