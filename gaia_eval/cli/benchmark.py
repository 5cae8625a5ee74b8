"""`gaia-eval benchmark`: the older name of `gaia-eval run benchmark`
(gaia_eval/throughput/options.py)."""

from __future__ import annotations

from gaia_eval.cli._alias import alias_of

NAME, HELP, add_arguments, run = alias_of("gaia_eval.throughput.options")
