"""The release scorecard: SCORECARD.md, one file per agent release, read by the release
gate (release_gate.py).

Its YAML front matter is a ReleaseCard (agent/models.py): the aggregate (the judged pass
rate in percent, with its Wilson interval), urgent_recall (the judged pass rate of the
critical and high severity scenarios: a high aggregate must not hide failing safety
scenarios), the context size the agent ran with, and with `--repeats K` each metric's
spread over the repeats, which the gate's k x stdev band reads. The Markdown after it is
for people: the same numbers and the categories.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import yaml

from gaia_eval.agent.models import (
    CardAgent,
    CardAggregate,
    CardConfig,
    CardEnvironment,
    CardMetric,
    CardRecipe,
    CardResults,
    ReleaseCard,
    Row,
    Scorecard,
)
from gaia_eval.core import stats
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.models import Variance
from gaia_eval.core.results import Envelope
from gaia_eval.core.results_io import write_text
from gaia_eval.core.yamltext import load_yaml

FILE = "SCORECARD.md"
URGENT = ("critical", "high")
"""Severities whose scenarios urgent_recall counts."""
_FENCE = "---"


def judged(row: Row) -> bool | None:
    """A scenario run as the aggregate counts it: passed, failed, or None (not judged, or
    a FAIL the judge blamed on the driver)."""
    if row.status == "PASS":
        return True
    if row.status == "BLOCKED" or (row.status == "FAIL" and row.blame != "driver"):
        return False
    return None


def _repeat(row: Row) -> int:
    tail = row.id.rpartition("@")[2] if "@" in row.id else "1"
    return int(tail) if tail.isdigit() else 1


def _share(outcomes: list[bool]) -> float | None:
    return sum(outcomes) / len(outcomes) if outcomes else None


def _variance(per_repeat: dict[int, list[bool]]) -> Variance | None:
    values = [v for v in (_share(o) for _, o in sorted(per_repeat.items())) if v is not None]
    if len(values) < 2:  # one draw has no spread to measure
        return None
    return Variance.model_validate(stats.variance_stats(values))


def local_ctx_size(env: Envelope) -> int | None:
    """The context window of the local model's slot, when the agent ran on `local`."""
    from gaia_eval.llm.local_server import RECORD_KEY

    record = env.header.settings.get(RECORD_KEY)
    model = env.header.model or ""
    if isinstance(record, dict) and (model == "local" or model.startswith("local:")):
        ctx = record.get("ctx_per_slot")
        return ctx if isinstance(ctx, int) else None
    return None


def build_card(env: Envelope, *, ctx_size: int | None = None) -> ReleaseCard:
    """The release card of a finished agent run (`ctx_size`: None reads the local model's)."""
    card = Scorecard.model_validate(env.summary)
    head = env.header
    severities = env.setup.get("severities", {})
    every: list[bool] = []
    urgent: list[bool] = []
    by_repeat: dict[int, list[bool]] = defaultdict(list)
    urgent_by_repeat: dict[int, list[bool]] = defaultdict(list)
    scenarios: dict[str, list[int]] = defaultdict(list)
    for row in card.scenarios:
        ok = judged(row)
        if ok is None:
            continue
        every.append(ok)
        by_repeat[_repeat(row)].append(ok)
        scenarios[row.scenario_id].append(int(ok))
        if severities.get(row.scenario_id) in URGENT:
            urgent.append(ok)
            urgent_by_repeat[_repeat(row)].append(ok)
    share = _share(every)
    interval = None
    if every:
        low, high = stats.wilson(sum(every), len(every))
        interval = (round(100 * low, 2), round(100 * high, 2))
    urgent_share = _share(urgent)
    variance = {
        name: v
        for name, v in (
            ("judged_pass_rate", _variance(by_repeat)),
            ("urgent_recall", _variance(urgent_by_repeat)),
        )
        if v is not None
    }
    return ReleaseCard(
        agent=CardAgent(
            system=head.system,
            model=head.model,
            version=head.run.commit[:12] if head.run.commit else None,
        ),
        tier=head.tier,
        filtered=head.filtered,
        judge=head.judge,
        definition_digest=head.definition_digest,
        aggregate=CardAggregate(
            value=None if share is None else round(100 * share, 2),
            n=len(every),
            interval=interval,
        ),
        results=CardResults(
            metrics=[
                CardMetric(
                    name="urgent_recall",
                    value=None if urgent_share is None else round(urgent_share, 4),
                    n=len(urgent),
                )
            ]
        ),
        recipe=CardRecipe(
            environment=CardEnvironment(
                ctx_size=ctx_size if ctx_size is not None else local_ctx_size(env)
            ),
            config=CardConfig(
                repeats=int(head.settings.get("repeats", 1)), acceptance_variance=variance
            ),
        ),
        scenarios=dict(sorted(scenarios.items())),
        started=head.run.started,
    )


def _pct(value: float | None) -> str:
    return "not measured" if value is None else f"{value:.2f}%"


def render(card: ReleaseCard, summary: Scorecard | None = None) -> str:
    """SCORECARD.md: the front matter, then the numbers for people."""
    front = yaml.safe_dump(card.model_dump(mode="json", by_alias=True), sort_keys=False)
    agg = card.aggregate
    who = card.agent.system or "agent"
    lines = [
        _FENCE,
        front.rstrip("\n"),
        _FENCE,
        "",
        f"# Release scorecard: {who} ({card.agent.model or 'model not recorded'})",
        "",
        f"- aggregate (judged pass rate): **{_pct(agg.value)}** over {agg.n} judged "
        "scenario run(s)"
        + (f", 95% interval {agg.interval[0]:.2f}-{agg.interval[1]:.2f}%" if agg.interval else ""),
    ]
    for m in card.results.metrics:
        shown = "not measured" if m.value is None else f"{m.value:.4f}"
        lines.append(f"- {m.name} (critical and high severity scenarios): {shown} over {m.n}")
    ctx = card.recipe.environment.ctx_size
    lines.append(f"- context size: {ctx if ctx is not None else 'not stamped'}")
    lines.append(
        f"- tier {card.tier}{' (filtered)' if card.filtered else ''}, driver and judge "
        f"{card.judge}, version {card.agent.version or 'unknown'}, "
        f"{card.recipe.config.repeats} repeat(s)"
    )
    for name, v in card.recipe.config.acceptance_variance.items():
        lines.append(
            f"- {name} over {v.n} repeats: mean {v.mean:.4f}, stdev {v.stdev:.4f} "
            f"(min {v.min:.4f}, max {v.max:.4f})"
        )
    if summary is not None and summary.by_category:
        lines += ["", "| category | judged pass rate | passed | judged |", "|---|---|---|---|"]
        for cat, c in summary.by_category.items():
            n = c.passed + c.failed + c.blocked
            rate = "-" if c.judged_pass_rate is None else f"{100 * c.judged_pass_rate:.1f}%"
            lines.append(f"| {cat} | {rate} | {c.passed} | {n} |")
    lines += [
        "",
        "Gate a later release against this file: `gaia-eval agent --scorecard-gate "
        "NEW/SCORECARD.md --baseline-file THIS_FILE` (or `--baseline-ref REF`).",
        "",
    ]
    return "\n".join(lines)


def write_card(folder: Path, env: Envelope, *, ctx_size: int | None = None) -> Path:
    """Write FOLDER/SCORECARD.md for the run `env`."""
    card = build_card(env, ctx_size=ctx_size)
    return write_text(folder / FILE, render(card, Scorecard.model_validate(env.summary)))


def parse_card(text: str, where: str) -> ReleaseCard:
    """The front matter of a SCORECARD.md; InvalidInputError naming `where` and the field."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != _FENCE:
        msg = f"{where}: no front matter (the file must start with a '---' line)"
        raise InvalidInputError(msg)
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == _FENCE), None)
    if end is None:
        msg = f"{where}: the front matter has no closing '---' line"
        raise InvalidInputError(msg)
    try:
        data = load_yaml("\n".join(lines[1:end]), where)
    except yaml.YAMLError as err:
        msg = f"{where}: the front matter is not YAML ({err})"
        raise InvalidInputError(msg) from None
    if not isinstance(data, dict):
        msg = f"{where}: the front matter must be a mapping"
        raise InvalidInputError(msg)
    _finite(data, where, "")
    from pydantic import ValidationError

    try:
        return ReleaseCard.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top level)"
        msg = (
            f"{where}: field {field}: {first['msg']}; write the card with "
            "`gaia-eval agent --release-card RUN`"
        )
        raise InvalidInputError(msg) from None


def _finite(value: object, where: str, field: str) -> None:
    """A NaN or an infinity would compare false against every bar: refuse it (exit 2)."""
    if isinstance(value, float) and not math.isfinite(value):
        msg = f"{where}: field {field or '(top level)'} is {value}, not a finite number"
        raise InvalidInputError(msg)
    if isinstance(value, dict):
        for key, v in value.items():
            _finite(v, where, f"{field}.{key}" if field else str(key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _finite(v, where, f"{field}.{i}")


def read_card(path: Path) -> ReleaseCard:
    """A SCORECARD.md, or the one in a run folder."""
    if path.is_dir():
        path = path / FILE
    if not path.is_file():
        msg = (
            f"{path}: no such SCORECARD.md; write one with `gaia-eval agent --release-card "
            "RUN` (every agent run also writes one beside scorecard.json)"
        )
        raise InvalidInputError(msg)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        msg = f"{path}: cannot read ({err})"
        raise InvalidInputError(msg) from None
    return parse_card(text, str(path))
