"""The error tree and the one place that maps errors to exit codes.

Exit codes (the README has the same table):

| code | meaning |
|---|---|
| 0 | success |
| 1 | a gate or check failed (a measured regression) |
| 2 | usage or invalid input; the message names the file, the field and the fix |
| 3 | not comparable (gate refused), or a run stopped by an infrastructure outage |
| 4 | another eval holds the machine-wide eval lock (the message names it) |
| 5 | a secret survived scrubbing, so the write was refused |
| 70 | an internal error (a bug in gaia_eval); the traceback is saved, its path printed |
| 130 | interrupted (Ctrl-C); 143 for SIGTERM; everything finished is saved |
"""

from __future__ import annotations

import errno

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_INVALID = 2
EXIT_NOT_COMPARABLE = 3
EXIT_INFRA = 3
EXIT_LOCKED = 4
EXIT_LEAK = 5
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130


class GaiaEvalError(Exception):
    """Root of every error gaia_eval raises on purpose."""

    exit_code = EXIT_INTERNAL


class InvalidInputError(GaiaEvalError, ValueError):
    """Bad input: a dataset, a flag, a baseline. The message names file, field and fix."""

    exit_code = EXIT_INVALID


class NotComparableError(GaiaEvalError):
    """A gate refused to compare unlike runs (suite, embedder, model, query set...)."""

    exit_code = EXIT_NOT_COMPARABLE


class InfrastructureError(GaiaEvalError):
    """Something outside the system under test failed: a backend, a download, a quota.

    Never a score: callers record the item as unmeasured.
    """

    exit_code = EXIT_INFRA


class DiskFullError(InfrastructureError):
    """The disk or the user's quota is full (ENOSPC, EDQUOT): an infrastructure stop that
    `--resume` finishes once there is room, never a failure of the system under test."""


_FULL_ERRNOS = frozenset(
    n for n in (getattr(errno, "ENOSPC", None), getattr(errno, "EDQUOT", None)) if n is not None
)


def disk_full(err: BaseException | None) -> DiskFullError | None:
    """The DiskFullError for `err` when it, or what caused it, is an out-of-space OSError."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, DiskFullError):
            return err
        if isinstance(err, OSError) and err.errno in _FULL_ERRNOS:
            where = f" writing {err.filename}" if err.filename else ""
            msg = (
                f"out of disk space ({err.strerror or 'no space left'}{where}); free some "
                "space (or the quota) and resume the run: everything finished is kept"
            )
            return DiskFullError(msg)
        err = err.__cause__ or err.__context__
    return None


class LockHeldError(GaiaEvalError):
    """Another eval holds the machine-wide eval lock."""

    exit_code = EXIT_LOCKED


class LeakError(GaiaEvalError):
    """A secret survived scrubbing; the write was refused. Names kinds, never values."""

    exit_code = EXIT_LEAK


class GateFailedError(GaiaEvalError):
    """A gate compared like with like and found a regression."""

    exit_code = EXIT_GATE_FAILED


class Terminated(KeyboardInterrupt):
    """A termination signal (SIGTERM) arrived: unwind like Ctrl-C so finished work is saved."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def exit_code_for(err: BaseException) -> int:
    """The documented exit code for an exception that reached the CLI."""
    if isinstance(err, GaiaEvalError):
        return err.exit_code
    if isinstance(err, Terminated):
        return 128 + err.signum
    if isinstance(err, KeyboardInterrupt):
        return EXIT_INTERRUPTED
    return EXIT_INTERNAL
