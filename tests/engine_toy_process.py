"""`python tests/engine_toy_process.py ITEMS --out OUT [run flags]`: the toy suite as a
process, with the CLI's run flags and error mapping (for kill -9 and SIGTERM tests)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine_toy import ToySuite

from gaia_eval.cli._runflags import add_run_flags, run_suite
from gaia_eval.cli.main import main  # noqa: F401  (the CLI's error mapping)
from gaia_eval.core.errors import exit_code_for

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("items", type=Path)
    add_run_flags(p)
    a = p.parse_args()
    try:
        sys.exit(run_suite(ToySuite(a.items), a))
    except BaseException as err:
        if isinstance(err, SystemExit):
            raise
        print(f"error: {err}", file=sys.stderr)
        sys.exit(exit_code_for(err))
