"""The tasks commands' settings: every one has an environment variable; the flag wins.

Kept apart from the CLI modules (which both read it) and free of heavy imports, so
`gaia-eval tasks --help` stays instant.
"""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from gaia_eval.core.errors import InvalidInputError

ENV = {
    "suite": "GAIA_EVAL_TASKS_SUITE",
    "harness": "GAIA_EVAL_TASKS_HARNESS",
    "model": "GAIA_EVAL_TASKS_MODEL",
    "out": "GAIA_EVAL_TASKS_RESULTS_DIR",
    "run_timeout": "GAIA_EVAL_TASKS_RUN_TIMEOUT",
    "work_root": "GAIA_EVAL_TASKS_WORK_ROOT",
    "repeats": "GAIA_EVAL_TASKS_REPEATS",
    "judge_model": "GAIA_EVAL_JUDGE_MODEL",
    "command_template": "GAIA_EVAL_TASKS_COMMAND",
    "replay": "GAIA_EVAL_TASKS_REPLAY",
    "price": "GAIA_EVAL_TASKS_PRICE",
    "claude": "GAIA_EVAL_CLAUDE_BIN",
    "tasks": "GAIA_EVAL_TASKS_IDS",
    "full_access": "GAIA_EVAL_TASKS_FULL_ACCESS",
    "therock_url": "GAIA_BENCH_THEROCK_URL",
    "gateway_url": "GAIA_EVAL_TASKS_GATEWAY_URL",
    "meter": "GAIA_EVAL_TASKS_METER",
    "fireworks_account": "GAIA_EVAL_FIREWORKS_ACCOUNT_ID",
}
# The older GAIA_BENCH_* names (README, `tasks run` flags), read when today's name is unset.
SPEC_ENV = {
    "work_root": "GAIA_BENCH_WORK_ROOT",
    "run_timeout": "GAIA_BENCH_RUN_TIMEOUT",
    "gateway_url": "GAIA_BENCH_GATEWAY_URL",
    "out": "GAIA_BENCH_RESULTS_DIR",
    "fireworks_account": "FIREWORKS_ACCOUNT_ID",
}


def env(key: str) -> str | None:
    """Today's variable, else the specification's name for it, else None."""
    value = os.environ.get(ENV[key], "").strip()
    if not value and key in SPEC_ENV:
        value = os.environ.get(SPEC_ENV[key], "").strip()
    return value or None


def env_name(key: str) -> str:
    """The variable that set `key` (for error messages): the spec's name when only it is set."""
    if not os.environ.get(ENV[key], "").strip() and os.environ.get(SPEC_ENV.get(key, ""), ""):
        return SPEC_ENV[key]
    return ENV[key]


def flag(key: str) -> str:
    return "--" + key.replace("_", "-")


def setting(args: argparse.Namespace, key: str) -> str | None:
    """The flag's value, else the variable's, else None."""
    value = getattr(args, key, None)
    return str(value) if value not in (None, "") else env(key)


def required(args: argparse.Namespace, key: str, why: str) -> str:
    value = setting(args, key)
    if not value:
        also = f" (or {SPEC_ENV[key]})" if key in SPEC_ENV else ""
        msg = f"{flag(key)} is required {why}: pass {flag(key)} or set {ENV[key]}{also}"
        raise InvalidInputError(msg)
    return value


def number(args: argparse.Namespace, key: str, kind: type, default: Any) -> Any:
    """A finite positive number from the flag or the variable (exit 2 naming either)."""
    value = getattr(args, key, None)
    source = flag(key)
    if value is None:
        raw = env(key)
        if raw is None:
            return default
        source = f"{env_name(key)}={raw!r}"
        try:
            value = kind(raw)
        except ValueError as err:
            msg = f"{source}: expected a {kind.__name__}"
            raise InvalidInputError(msg) from err
    # nan compares false with everything: `nan <= 0` would let it through as a timeout.
    if not math.isfinite(value) or value <= 0:
        msg = f"{source} must be a finite positive number, got {value}"
        raise InvalidInputError(msg)
    return value
