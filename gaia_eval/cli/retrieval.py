"""`gaia-eval retrieval --component rag|code ...`: dispatch to a component's own flags.

A component's flags are its suite's options (rag: gaia_eval/retrieval/options.py, code:
gaia_eval/code_retrieval/options.py), the same as `gaia-eval run retrieval-rag` and
`gaia-eval run code-retrieval` parse.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from types import ModuleType

NAME = "retrieval"
# The component parser answers --help, with the component's own flags.
ADD_HELP = False
HELP = "Retrieval benchmarks: document Q&A (--component rag) and code search (--component code)."

_COMPONENTS = {
    "rag": "gaia_eval.retrieval.options",
    "code": "gaia_eval.code_retrieval.options",
}


def _available() -> dict[str, str]:
    return {k: v for k, v in _COMPONENTS.items() if importlib.util.find_spec(v) is not None}


def available() -> bool:
    """Listed only when at least one component is installed."""
    return bool(_available())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # REMAINDER on the option itself: argparse would reject the component's own flags
    # (`--suite ...`) as unknown options if they were left for a positional to collect.
    parser.add_argument(
        "--component",
        default=None,
        nargs=argparse.REMAINDER,
        metavar="{" + ",".join(sorted(_available())) + "} ...",
        help="which retrieval benchmark to run, then its own flags",
    )
    parser.epilog = "Run `gaia-eval retrieval --component C --help` for a component's flags."
    parser.add_argument("-h", "--help", action="store_true", help="show help and exit")


def _first_paragraph(doc: str | None) -> str | None:
    """A module docstring's first paragraph as one line (a cut sentence helps nobody)."""
    if not doc:
        return None
    return " ".join(doc.strip().split("\n\n")[0].split())


def component_parser(component: str) -> tuple[ModuleType, argparse.ArgumentParser]:
    """The flags of one component, described by its module docstring's first paragraph."""
    from gaia_eval.core.argparser import ArgumentParser

    mod = importlib.import_module(_COMPONENTS[component])
    parser = ArgumentParser(
        prog=f"gaia-eval retrieval --component {component}",
        description=_first_paragraph(mod.__doc__),
    )
    from gaia_eval.cli._alias import runner

    # The suite's options, parsed and run as by `gaia-eval run SUITE`.
    mod.COMMAND.add_to(parser)
    parser.set_defaults(_run=runner(mod.COMMAND))
    return mod, parser


def run(args: argparse.Namespace) -> int:
    from gaia_eval.core.errors import InvalidInputError

    given = list(args.component or [])
    choices = _available()
    if not given and args.help:
        print(f"usage: gaia-eval retrieval --component {{{','.join(sorted(choices))}}} [flags]")
        print(HELP)
        print("Run `gaia-eval retrieval --component C --help` for a component's flags.")
        return 0
    if not given or given[0] not in choices:
        msg = f"--component: choose one of {', '.join(sorted(choices))}"
        raise InvalidInputError(msg)
    args.component, args.rest = given[0], given[1:]
    _, sub = component_parser(args.component)
    rest = list(args.rest)
    if args.help:
        rest.append("--help")
    parsed = sub.parse_args(rest)
    return int(parsed._run(parsed))
