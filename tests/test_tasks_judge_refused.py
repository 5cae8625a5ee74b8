"""A judge whose backend refuses the request (a context too small for the prompt, as the
local model's is) leaves every attempt unjudged; the run is not a crash."""

from __future__ import annotations

import pytest

from gaia_eval.llm.outage import ModelRequestError
from gaia_eval.tasks.definitions import load_tasks
from gaia_eval.tasks.judge import Attempt, judge_attempts
from gaia_eval.tasks.upstream_judge import judge_upstream


@pytest.mark.parametrize("rubric", ["tasks", "upstream"])
def test_refused_judge_request_is_unjudged_not_a_crash(rubric: str) -> None:
    """Both rubrics (the tasks judge and TheRock's upstream one) share the one call loop."""
    calls: list[str] = []

    def ask(system: str, prompt: str) -> object:
        calls.append(prompt)
        msg = "request (2102 tokens) exceeds the available context size (2048 tokens)"
        raise ModelRequestError(msg)

    task = load_tasks().tasks["21-qa"]
    attempts = [Attempt(id="21-qa", task=task, prompt="p", answer="a", workspace_diff="")]
    if rubric == "tasks":
        grades = judge_attempts(attempts, ask, attempts_allowed=3, snapshot="")  # type: ignore[arg-type]
    else:
        grades = judge_upstream(attempts, {"21-qa": "diff"}, ask, attempts_allowed=3)  # type: ignore[arg-type]
    (g,) = grades.values()
    assert not g.judged() and g.quality() is None
    assert g.error is not None and "exceeds the available context size" in g.error
    assert len(calls) == 1  # refused the same way again: not re-asked
