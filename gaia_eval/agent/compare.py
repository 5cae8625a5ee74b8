"""`gaia-eval agent --compare BASELINE CURRENT [--require-complete]`.

Refuses (exit 3) when the two runs differ in the agent's model (`config.agent_model`) or
the driver's (`config.model`); the baseline's are read from a `meta.json` beside it when
there is one. Buckets per scenario: improved (FAIL -> PASS), regressed (PASS -> FAIL or
BLOCKED), score_regressed (a drop of 2.0 or more with the same pass state), unchanged,
corpus_changed (either side skipped for a missing document), unmeasured (either side not
judged), not_run (outside a filtered current run), only_in_baseline, only_in_current.
`time_regressed` (current elapsed more than twice the baseline's) is a separate flag, so
it never hides a pass -> fail. A regression fails (and, with `--require-complete`, a
baseline scenario missing for any reason -- not run by a filter included -- or unmeasured
now; otherwise those are warnings): the verdict's
exit code is the engine's (core.gate.exit_code: 1), which `agent --compare` shows as the
documented 2 (cli/agent.py, the one place of that alias).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from gaia_eval.agent.gate import JUDGED
from gaia_eval.agent.scorecard import Row, Scorecard
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.gate import exit_code, refuse_fields
from gaia_eval.core.results import Envelope, Verdict, load_envelope

SCORE_DROP = 2.0
TIME_FACTOR = 2.0


@dataclass
class Comparison:
    buckets: dict[str, list[str]] = field(default_factory=dict)
    time_regressed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def verdict(self, label: str) -> Verdict:
        """The comparison as the engine's verdict (failures fail; warnings are notes)."""
        return Verdict(
            passed=not self.failures, baseline=label, failures=self.failures, notes=self.warnings
        )

    @property
    def exit_code(self) -> int:
        """The engine's exit code: 0 no regression, 1 a regression."""
        return exit_code(self.verdict("the baseline"))


def _load(path: Path) -> Envelope:
    if not path.exists():
        msg = f"--compare {path}: no such file or folder"
        raise InvalidInputError(msg)
    return load_envelope(path, suite="agent")


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


def compare(baseline: Path, current: Path, *, require_complete: bool = False) -> Comparison:
    b_env, c_env = _load(baseline), _load(current)
    b_agent, b_driver = _models(b_env, baseline)
    c_agent, c_driver = c_env.header.model, c_env.header.judge
    refuse_fields(
        {"the agent's model": b_agent, "the driver and judge model": b_driver},
        {"the agent's model": c_agent, "the driver and judge model": c_driver},
        str(baseline),
        fix="every delta would partly be the model swap (capture a baseline on the same models)",
    )
    b_card = Scorecard.model_validate(b_env.summary)
    c_card = Scorecard.model_validate(c_env.summary)
    b_rows = {r.id: r for r in b_card.scenarios}
    c_rows = {r.id: r for r in c_card.scenarios}
    asked = set(c_env.header.item_ids)
    out = Comparison()
    filtered = c_env.header.filtered

    def put(bucket: str, sid: str) -> None:
        out.buckets.setdefault(bucket, []).append(sid)

    for sid in sorted(set(b_rows) | set(c_rows)):
        b, c = b_rows.get(sid), c_rows.get(sid)
        if c is None or (filtered and sid not in asked):
            if filtered and b is not None:
                put("not_run", sid)
                # Left out by a filter is still missing: --require-complete asks for every
                # baseline scenario, whatever the reason it is not in the current run.
                if require_complete:
                    _incomplete(out, sid, "not run (filtered current run)", True)
                continue
            put("only_in_baseline", sid)
            if b is not None and b.status in JUDGED:
                _incomplete(out, sid, "missing from the current run", require_complete)
            continue
        if b is None:
            put("only_in_current", sid)
            continue
        _bucket(out, sid, b, c, require=require_complete, put=put)
    n = {k: len(v) for k, v in out.buckets.items()}
    out.lines.append(
        f"compare {baseline} -> {current}: "
        + ", ".join(f"{k} {v}" for k, v in sorted(n.items()))
        + (f"; time_regressed {len(out.time_regressed)}" if out.time_regressed else "")
    )
    if filtered:
        out.lines.append(
            f"the current run is filtered: {len(out.buckets.get('not_run', []))} baseline "
            "scenario(s) were not run and are not judged"
        )
    return out


def _incomplete(out: Comparison, sid: str, why: str, require: bool) -> None:
    text = f"{sid}: {why}"
    if require:
        out.failures.append(text + " (--require-complete)")
    else:
        out.warnings.append(text)


def _bucket(out: Comparison, sid: str, b: Row, c: Row, *, require: bool, put: object) -> None:
    assert callable(put)
    if "SKIPPED_NO_DOCUMENT" in (b.status, c.status):
        put("corpus_changed", sid)
        return
    if b.elapsed_s and c.elapsed_s and c.elapsed_s > TIME_FACTOR * b.elapsed_s:
        out.time_regressed.append(sid)
    if c.status not in JUDGED or b.status not in JUDGED:
        put("unmeasured", sid)
        if b.status in JUDGED:
            _incomplete(out, sid, f"unmeasured now ({c.status})", require)
        return
    bp, cp = b.status == "PASS", c.status == "PASS"
    if bp and not cp:
        put("regressed", sid)
        out.failures.append(f"{sid}: regressed {b.status} -> {c.status}")
    elif cp and not bp:
        put("improved", sid)
    elif (
        b.overall_score is not None
        and c.overall_score is not None
        and b.overall_score - c.overall_score >= SCORE_DROP
    ):
        put("score_regressed", sid)
        out.failures.append(f"{sid}: score dropped {b.overall_score:.2f} -> {c.overall_score:.2f}")
    else:
        put("unchanged", sid)


def render(cmp: Comparison) -> str:
    lines = []
    if cmp.warnings:
        lines.append("WARNINGS (incomplete measurement; --require-complete makes them fail):")
        lines += [f"  - {w}" for w in cmp.warnings]
    lines += cmp.lines
    for bucket in (
        "regressed",
        "score_regressed",
        "improved",
        "unmeasured",
        "corpus_changed",
        "not_run",
        "only_in_baseline",
        "only_in_current",
        "unchanged",
    ):
        ids = cmp.buckets.get(bucket)
        if ids:
            lines.append(f"{bucket}: {', '.join(ids)}")
    if cmp.time_regressed:
        lines.append(f"time_regressed (over 2x slower): {', '.join(cmp.time_regressed)}")
    if cmp.failures:
        lines.append("FAILED:")
        lines += [f"  - {f}" for f in cmp.failures]
    else:
        lines.append("no regression")
    return "\n".join(lines)
