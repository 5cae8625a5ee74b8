"""`gaia-eval retrieval --component rag|code ...`: dispatch to a component's own flags.

Each component keeps its flags in its own module (`_retrieval_rag`, `_retrieval_code`),
which defines `add_arguments(parser)` and `run(args) -> int`.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util

NAME = "retrieval"
# The component parser answers --help, with the component's own flags.
ADD_HELP = False
HELP = "Retrieval benchmarks: document Q&A (--component rag) and code search (--component code)."

_COMPONENTS = {
    "rag": "gaia_eval.cli._retrieval_rag",
    "code": "gaia_eval.cli._retrieval_code",
}


def _available() -> dict[str, str]:
    return {k: v for k, v in _COMPONENTS.items() if importlib.util.find_spec(v) is not None}


def available(_: object = None) -> bool:
    """Listed only when at least one component is installed."""
    return bool(_available())


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--component",
        required=True,
        choices=sorted(_available()),
        help="which retrieval benchmark to run",
    )
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    parser.epilog = "Run `gaia-eval retrieval --component C --help` for a component's flags."
    parser.add_argument("-h", "--help", action="store_true", help="show help and exit")


def run(args: argparse.Namespace) -> int:
    mod = importlib.import_module(_available()[args.component])
    sub = argparse.ArgumentParser(
        prog=f"gaia-eval retrieval --component {args.component}",
        description=mod.__doc__.splitlines()[0] if mod.__doc__ else None,
    )
    mod.add_arguments(sub)
    rest = list(args.rest)
    if args.help:
        rest.append("--help")
    return int(mod.run(sub.parse_args(rest)))
