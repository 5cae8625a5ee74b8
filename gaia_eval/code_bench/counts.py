"""The failure counts per try that code-editing benchmarks report (Aider's habit), read off a
try's record and its graded copy: edits the tools refused, Python files the try left unable
to compile, an agent that ran out of context, and grading runs that timed out."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from gaia_eval.agents.checks import EDIT_TOOLS
from gaia_eval.agents.models import AgentOutcome
from gaia_eval.code_bench.models import TryCounts

# What backends and harnesses say when a prompt no longer fits (llama.cpp, OpenAI, vLLM,
# Anthropic), matched in the agent's stop reason.
_CONTEXT = re.compile(
    r"context[_ ](length|window)|maximum context|exceeds? the (available )?context|"
    r"n_ctx|prompt is too long|too many tokens",
    re.IGNORECASE,
)


def _compiles(path: Path) -> bool:
    try:
        ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return False
    return True


def syntax_errors(project: Path, baseline: Path) -> list[str]:
    """Python files of `project` that do not compile but did (or did not exist) in
    `baseline`: the syntax errors the try introduced."""
    out = []
    for path in sorted(project.rglob("*.py")):
        rel = path.relative_to(project)
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        before = baseline / rel
        if not _compiles(path) and (not before.is_file() or _compiles(before)):
            out.append(rel.as_posix())
    return out


def try_counts(outcome: AgentOutcome, project: Path, baseline: Path, timed_out: bool) -> TryCounts:
    """One try's counts."""
    return TryCounts(
        malformed_edits=sum(1 for c in outcome.tool_calls if c.name in EDIT_TOOLS and c.is_error),
        syntax_errors=len(syntax_errors(project, baseline)),
        context_exhausted=bool(outcome.error and _CONTEXT.search(outcome.error)),
        test_timeout=timed_out,
    )
