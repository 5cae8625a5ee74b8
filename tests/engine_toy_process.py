"""The toy suite's options (its options.py) and the toy as a process:
`python tests/engine_toy_process.py ITEMS --out OUT [run flags]`, with the CLI's error
mapping (for kill -9 and SIGTERM tests). With engine_toy imported, `gaia-eval run toy ITEMS
--tier t2` parses the same options."""

from __future__ import annotations

import sys
from pathlib import Path

from engine_toy import ToySuite

from gaia_eval.core.launch import run_suite
from gaia_eval.core.options import RUN, Option, Options, SuiteCommand, tier

# Its flags, listed once: the parser and the command line a run records (what --resume
# re-runs) are both generated from them.
OPTIONS = Options.of(
    Option("items", "the items JSON file", Path, kind="positional"),
    tier(("t1", "t2"), "t1", "t1 or t2 (recorded in the header)"),
    Option("--knob", "a setting the header records", default="a"),
    RUN,
)
COMMAND = SuiteCommand(
    "toy",
    ("run", "toy"),
    "The engine's toy suite.",
    OPTIONS,
    lambda args: run_suite(ToySuite(args.items, args.suite, args.knob), args),
)

if __name__ == "__main__":
    from gaia_eval.cli.main import main  # noqa: F401  (the CLI's error mapping)
    from gaia_eval.core.errors import exit_code_for

    a = OPTIONS.parser("engine_toy_process.py").parse_args()
    try:
        sys.exit(COMMAND.main(a))
    except BaseException as err:
        if isinstance(err, SystemExit):
            raise
        print(f"error: {err}", file=sys.stderr)
        sys.exit(exit_code_for(err))
