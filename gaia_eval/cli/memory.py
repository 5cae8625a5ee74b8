"""`gaia-eval memory`: the older name of `gaia-eval run memory` (gaia_eval/memory/options.py)."""

from __future__ import annotations

from gaia_eval.cli._alias import alias_of

NAME, HELP, add_arguments, run = alias_of("gaia_eval.memory.options")
