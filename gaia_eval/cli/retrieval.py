"""`gaia-eval retrieval --component rag|code ...`: the older names of `gaia-eval run
retrieval-rag` and `gaia-eval run code-retrieval`.

Generated, like every alias, from the suites' options: each registered suite whose older
command (its `SuiteCommand.alias`) is `retrieval --component C` becomes the subcommand C,
holding that suite's own flags. `--component` only announces it, so argparse reads the
whole line once, as `gaia-eval run SUITE` does.
"""

from __future__ import annotations

import argparse
import importlib

from gaia_eval.cli import _alias

NAME = "retrieval"
HELP = "Retrieval benchmarks: document Q&A (--component rag) and code search (--component code)."
_HEAD = ("retrieval", "--component")


def _components() -> dict[str, str]:
    """Component word -> the registered suite it runs (only those installed here)."""
    return {
        alias[len(_HEAD)]: suite
        for suite, alias in _alias.aliases().items()
        if alias[: len(_HEAD)] == _HEAD and len(alias) == len(_HEAD) + 1
    }


def _first_paragraph(module: str) -> str | None:
    """An options module's docstring's first paragraph as one line: the component's
    description (what it measures and how it gates, more than the command list's line)."""
    doc = importlib.import_module(module).__doc__
    return " ".join(doc.strip().split("\n\n")[0].split()) if doc else None


def available() -> bool:
    """Listed only when at least one component is installed."""
    return bool(_components())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from gaia_eval.core.suite import suites

    found = _components()
    words = "{" + ",".join(sorted(found)) + "}"
    parser.usage = f"gaia-eval retrieval --component {words} [flags]"
    parser.epilog = "Run `gaia-eval retrieval --component C --help` for a component's flags."
    # A marker, not a value: the word after it is the subcommand that takes every flag
    # after it (argparse hands a subcommand the rest of the line).
    parser.add_argument(
        "--component",
        action="store_true",
        required=True,
        help=f"which retrieval benchmark to run ({words}, the next word), then its own flags",
    )
    sub = parser.add_subparsers(
        dest="component_name",
        metavar=words,
        required=True,
        prog="gaia-eval retrieval --component",
    )
    entries = suites()
    for word, suite in sorted(found.items()):
        module = _alias.options_module(entries[suite])
        assert module is not None  # _components() lists only suites with options
        cmd = _alias.command(module, suite)
        p = sub.add_parser(word, help=cmd.help, description=_first_paragraph(module) or cmd.help)
        cmd.add_to(p)
        p.set_defaults(_run=_alias.runner(cmd))


def run(args: argparse.Namespace) -> int:  # each component's parser sets its own _run
    raise AssertionError(args)
