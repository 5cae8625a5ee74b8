"""`gaia-eval agent`: the older name of `gaia-eval run agent` (gaia_eval/agent/options.py)."""

from __future__ import annotations

from gaia_eval.cli._alias import alias_of

NAME, HELP, add_arguments, run = alias_of("gaia_eval.agent.options")
