"""`gaia-eval agent --compare BASELINE CURRENT [--require-complete]`: a thin alias of the
engine's run-vs-run rule kind (core.gate.diff_runs, with the agent's rule `gate.RUNS`).

What stays here is what the specification gives this command alone: the two runs must
share the agent's model (`config.agent_model`) and the driver's (`config.model`), the
baseline's read from a `meta.json` beside it when there is one (refused, exit 3, by the
engine's refuse_fields). The buckets, the failures and the verdict are the engine's; its
exit code (1 on a regression) shows as the documented 2 through options.COMPARE_EXIT_ALIAS.
"""

from __future__ import annotations

import json
from pathlib import Path

from gaia_eval.agent.gate import RUNS
from gaia_eval.agent.scorecard import Scorecard
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.gate import RunDiff, diff_runs, refuse_fields, render_diff
from gaia_eval.core.results import Envelope, load_envelope

__all__ = ["Comparison", "compare", "render"]

Comparison = RunDiff


def _load(path: Path) -> Envelope:
    if not path.exists():
        msg = f"--compare {path}: no such file or folder"
        raise InvalidInputError(msg)
    env = load_envelope(path, suite="agent")
    Scorecard.model_validate(env.summary)  # a summary that is not a scorecard fails here
    return env


def _models(env: Envelope, path: Path) -> tuple[str | None, str | None]:
    agent, driver = env.header.model, env.header.judge
    folder = path if path.is_dir() else path.parent
    meta = folder / "meta.json"
    if meta.is_file():
        try:
            data = json.loads(meta.read_text(encoding="utf-8"))
        except ValueError as err:
            msg = f"{meta}: not JSON ({err})"
            raise InvalidInputError(msg) from None
        if isinstance(data, dict):
            agent = data.get("agent_model", agent)
            driver = data.get("model", driver)
    return agent, driver


def compare(baseline: Path, current: Path, *, require_complete: bool = False) -> RunDiff:
    b_env, c_env = _load(baseline), _load(current)
    b_agent, b_driver = _models(b_env, baseline)
    c_agent, c_driver = c_env.header.model, c_env.header.judge
    refuse_fields(
        {"the agent's model": b_agent, "the driver and judge model": b_driver},
        {"the agent's model": c_agent, "the driver and judge model": c_driver},
        str(baseline),
        fix="every delta would partly be the model swap (capture a baseline on the same models)",
    )
    return diff_runs(
        RUNS,
        b_env,
        c_env,
        labels=(str(baseline), str(current)),
        require_complete=require_complete,
        noun="scenario",
    )


def render(cmp: RunDiff) -> str:
    return render_diff(cmp, slower=RUNS.slower)
