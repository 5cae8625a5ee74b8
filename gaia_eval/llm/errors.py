"""Errors of a model's reply, shared by every suite that has a model judge."""

from __future__ import annotations

from gaia_eval.core.errors import EXIT_GATE_FAILED, GaiaEvalError


class JudgeReplyError(GaiaEvalError, ValueError):
    """A judge's reply did not parse into a verdict: an error of the item, never a score
    (the suite says whether it leaves the item unmeasured or fails the scenario)."""

    exit_code = EXIT_GATE_FAILED  # what memory's judge error always exited with
