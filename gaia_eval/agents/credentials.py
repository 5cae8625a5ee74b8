"""The judge's credentials, kept out of the run process while agents run (§6.8).

`tasks run` pops ANTHROPIC_API_KEY and CLAUDE_CODE_OAUTH_TOKEN from its own environment
before the first agent starts (and before the local server and the gateway start, which
copy it), and puts them back only around the judge step, which needs them. The agent
environment drops them anyway (isolation.agent_env); this keeps them out of everything
else the run process starts, too. Their values stay registered with the scrubber, so a
transcript that somehow holds one is still redacted.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

JUDGE_CREDENTIALS = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN")
_held: dict[str, str] = {}


def _pop() -> None:
    for name in JUDGE_CREDENTIALS:
        value = os.environ.pop(name, None)
        if value is not None:
            _held[name] = value


@contextmanager
def dropped() -> Iterator[None]:
    """Drop the judge's credentials for the block; they come back when it ends."""
    from gaia_eval.scrub import register_known

    _pop()
    register_known(*_held.values())
    try:
        yield
    finally:
        os.environ.update(_held)
        _held.clear()


@contextmanager
def for_judge() -> Iterator[None]:
    """The held credentials back in the environment for the judge step (or a check of
    what it will need); dropped again after it."""
    if not _held:
        yield
        return
    os.environ.update(_held)
    try:
        yield
    finally:
        _pop()
