"""What a tasks run needs, checked before the first task runs: the toolchain's pytest,
the judge's SDK and credentials, the claude CLI, bubblewrap for --fence. Everything that
is missing is named in one message (exit 2) with what to install or set, so a run never
spends minutes on tasks and then fails at the judge."""

from __future__ import annotations

import shutil
import sys

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.extras import has_module
from gaia_eval.llm.preflight import ANTHROPIC_KEYS, model_needs
from gaia_eval.llm.spec import ModelSpec

__all__ = ["ANTHROPIC_KEYS", "check", "missing"]


def missing(
    *,
    judge: ModelSpec | None = None,
    model: ModelSpec | None = None,
    harness: str | None = None,
    claude_bin: str = "claude",
    fence: bool = False,
    toolchain: bool = True,
) -> list[str]:
    """One line per missing dependency or credential."""
    out: list[str] = []
    if toolchain and not has_module("pytest"):
        out.append(
            f"pytest in {sys.executable}, which every harness's toolchain and the checks run: "
            "pip install 'gaia-eval[tasks]'"
        )
    if harness == "claude-code" and shutil.which(claude_bin) is None:
        out.append(
            f"the claude CLI ({claude_bin!r}) for --harness claude-code: install Claude Code "
            "or set GAIA_EVAL_CLAUDE_BIN to its path"
        )
    if model is not None:
        out += model_needs(model, "--model", claude_bin)
    if judge is not None:
        out += model_needs(judge, "--judge-model", claude_bin)
    if fence:
        from gaia_eval.tasks.fence import mechanism, why_unavailable

        if mechanism() is None:
            out.append(why_unavailable())
    return out


def check(
    *,
    judge: ModelSpec | None = None,
    model: ModelSpec | None = None,
    harness: str | None = None,
    claude_bin: str = "claude",
    fence: bool = False,
    toolchain: bool = True,
) -> None:
    """Raise InvalidInputError naming everything `missing` finds."""
    lines = missing(
        judge=judge,
        model=model,
        harness=harness,
        claude_bin=claude_bin,
        fence=fence,
        toolchain=toolchain,
    )
    if lines:
        head = "the run cannot start; missing:" if len(lines) > 1 else "the run cannot start:"
        msg = head + "".join(f"\n  - {line}" for line in lines)
        raise InvalidInputError(msg)
