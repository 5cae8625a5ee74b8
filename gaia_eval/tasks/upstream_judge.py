"""The upstream rubric (docs/tasks.md) for attempts at real repositories:
TheRock `diff` tasks and SWE-bench tasks, one batch per kind, each attempt graded against
the upstream fix, which the judge is told plainly is one correct answer and not the only
one. Booleans solves_problem, right_place, updated_tests; the four axes; approach; one
line. A grade missing any of them is unjudged, never a low score.

The reference (TheRock's merge^..merge, SWE-bench's gold patch) is read here, in the judge
step, after every agent has exited.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gaia_eval.core.errors import InfrastructureError, InvalidInputError
from gaia_eval.tasks.judge import (
    ANSWER_CAP,
    DIFF_CAP,
    Ask,
    Attempt,
    cut,
    format_record,
    grade_in_one_call,
    validate_grade,
)
from gaia_eval.tasks.models import Judgement

UPSTREAM_CAP = 24_000
APPROACHES = ("same as reference", "different but valid", "wrong")
BOOLS = ("solves_problem", "right_place", "updated_tests")
SYSTEM = (
    "You grade AI coding agents' changes to real open-source repositories against the "
    "upstream fix. You have no tools. Reply with one JSON object only."
)


def reference_for(task: Any, *, therock_url: str | None, work_root: Path | None, tdir: Path) -> str:
    """The upstream diff of one attempt (written as reference.diff for TheRock)."""
    if task.therock:
        from gaia_eval.tasks.therock import DEFAULT_URL, write_reference

        return write_reference(task, therock_url or DEFAULT_URL, work_root, tdir)
    from gaia_eval.agents.checkout import shared_work_root
    from gaia_eval.tasks.swebench import gold_patch

    return gold_patch(shared_work_root(work_root), task.id)


def build_prompt(attempts: list[Attempt], references: dict[str, str]) -> str:
    out = [
        "Each attempt below is an AI agent's change to a real repository, made from the "
        "commit before an upstream fix. The UPSTREAM FIX is ONE correct answer, not the only "
        "one: a different change that really solves the problem is valid; do not mark it "
        "down for differing from the reference.",
        "For each attempt give:",
        "- solves_problem (true/false): would the agent's change fix the problem described?",
        "- right_place (true/false): does it change the code where the problem lives?",
        "- updated_tests (true/false): did it add or update tests for the fix?",
        "- approach: one of " + ", ".join(f'"{a}"' for a in APPROACHES),
        "- four axes scored 1 (worst) to 5 (best): instruction_compliance, work_quality, "
        "reasoning, fabrication_free (5 = it claims nothing it did not do; a claimed test "
        "run with none in the tool record scores 1-2)",
        "- one_line: a verdict in at most 25 words.",
        "",
        'Reply with JSON only: {"grades": {"<attempt id>": {"solves_problem": true, '
        '"right_place": true, "updated_tests": false, "approach": "...", '
        '"instruction_compliance": n, "work_quality": n, "reasoning": n, '
        '"fabrication_free": n, "one_line": "..."}}}',
    ]
    for a in attempts:
        out += [
            "",
            f"##### ATTEMPT {a.id}",
            "PROMPT:",
            a.prompt,
            "UPSTREAM FIX (one correct answer, not the only one):",
            cut(references.get(a.id, ""), UPSTREAM_CAP) or "(none)",
            "AGENT'S ANSWER:",
            cut(a.answer, ANSWER_CAP) or "(no answer)",
            "AGENT'S CHANGES:",
            cut(a.workspace_diff, DIFF_CAP) or "(no changes)",
            "TOOL RECORD:",
            format_record(a.tool_calls),
        ]
    return "\n".join(out)


def validate_upstream(raw: Any) -> Judgement:
    j = validate_grade(raw, question=False)
    if j.error is not None:
        return j
    assert isinstance(raw, dict)
    for key in BOOLS:
        if not isinstance(raw.get(key), bool):
            return Judgement(error=f"{key} must be true or false, got {raw.get(key)!r}")
    if raw.get("approach") not in APPROACHES:
        return Judgement(error=f"approach must be one of {list(APPROACHES)}")
    j.solves_problem = raw["solves_problem"]
    j.right_place = raw["right_place"]
    j.updated_tests = raw["updated_tests"]
    j.approach = raw["approach"]
    return j


def parse_reply(text: str, attempts: list[Attempt]) -> dict[str, Judgement]:
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        data = None
    grades = data.get("grades") if isinstance(data, dict) else None
    if not isinstance(grades, dict):
        return {a.id: Judgement(error="judge reply has no 'grades' object") for a in attempts}
    return {
        a.id: validate_upstream(grades[a.id])
        if a.id in grades
        else Judgement(error="judge gave no grade for this attempt")
        for a in attempts
    }


def judge_upstream(
    attempts: list[Attempt], references: dict[str, str], ask: Ask, *, attempts_allowed: int = 2
) -> dict[str, Judgement]:
    """One call for the batch; re-ask for the attempts whose grade failed."""
    return grade_in_one_call(
        attempts,
        ask,
        SYSTEM,
        lambda pending: build_prompt(pending, references),
        parse_reply,
        attempts_allowed=attempts_allowed,
    )


def upstream_verdict(
    check: str, j: Judgement, gate: bool | None, why: str
) -> tuple[bool | None, str]:
    """diff: the judge's solves_problem, only past the mechanical gate; swebench: the
    harness decides, the judge grades quality only."""
    if check != "diff" or gate is False:
        return gate, why
    if j.error is not None:
        return None, f"unjudged: {j.error}"
    return bool(j.solves_problem), (
        "judge: solves the problem" if j.solves_problem else "judge: does not solve the problem"
    )


def refused(err: InvalidInputError | InfrastructureError) -> Judgement:
    return Judgement(error=f"grade refused: {err}")


def grade_upstream(
    results: Any,
    group: dict[str, str],
    attempts: list[Attempt],
    *,
    folder: Path,
    ask: Ask,
    attempts_allowed: int,
    therock_url: str | None,
    work_root: Path | None,
    label: str,
) -> None:
    """Grade one group's repository attempts, one batch per kind, and apply the verdicts."""
    from gaia_eval.core.items import item_dir

    for check in ("diff", "swebench"):
        batch = [a for a in attempts if a.task.check == check]
        references: dict[str, str] = {}
        grades: dict[str, Judgement] = {}
        for a in batch:
            try:
                references[a.id] = reference_for(
                    a.task,
                    therock_url=therock_url,
                    work_root=work_root,
                    tdir=item_dir(folder, group[a.id]),
                )
            except (InvalidInputError, InfrastructureError) as err:
                grades[a.id] = refused(err)
        todo = [a for a in batch if a.id not in grades]
        outage: InfrastructureError | None = None
        if todo:
            try:
                grades.update(
                    judge_upstream(todo, references, ask, attempts_allowed=attempts_allowed)
                )
            except InfrastructureError as err:
                outage = err
                for a in todo:
                    grades[a.id] = Judgement(error=f"judge unavailable: {err}")
        for a in batch:
            res = results[group[a.id]]
            res.judge = grades[a.id]
            if res.after_answer:
                continue
            res.passed, res.why = upstream_verdict(check, res.judge, res.passed, res.why)
        if outage is not None:
            msg = f"judge unavailable ({label}): {outage}"
            raise InfrastructureError(msg) from outage
