"""Compare two runs of one suite: load, refuse unlike runs, pair items, test each metric.

Comparability differs from the gate's on purpose: comparing two systems is the point, so
the system side (system, embedder, model, and every setting that is not about what is
measured: harness, replay, extractor...) may differ and is listed as what changed. What is
measured may not: the suite, the tier, the item definitions digest, the judge, and any
setting naming a dataset, a digest or a rubric; a difference there is NotComparableError
(exit 3) naming the field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gaia_eval.core import baselines, stats
from gaia_eval.core.compare.distributions import compare_distributions
from gaia_eval.core.compare.metrics import ItemMetric, item_metrics
from gaia_eval.core.compare.models import (
    Change,
    Comparison,
    ItemFlip,
    MetricComparison,
    RunRef,
)
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.results import Envelope, load_envelope
from gaia_eval.core.suite import Suite, legacy_converters, suite_class

MEASURED = ("suite", "tier", "definition_digest", "judge")
"""Header fields that say what was measured: they must be equal."""
_MEASURED_SETTING_WORDS = ("dataset", "digest", "rubric", "judge")


def is_measured(key: str) -> bool:
    """A comparable field that describes what is measured (not the system under test)."""
    if key in MEASURED:
        return True
    if key.startswith("settings."):
        name = key.removeprefix("settings.").lower()
        return any(w in name for w in _MEASURED_SETTING_WORDS)
    return False


@dataclass(frozen=True)
class Side:
    label: str
    path: Path
    env: Envelope


def results_path(value: str, suite_hint: str = "") -> Path:
    """A run folder, a results.json or a `builtin:<suite>/<name>` baseline (resolved by
    core.baselines, as `--gate` is; a short name resolves against `suite_hint`'s folder)."""
    path = Path(value)
    if not value.startswith(baselines.PREFIX) and path.is_dir():
        path = path / "results.json"
        if not path.is_file():
            msg = f"{value}: this folder has no results.json; give a finished run's folder"
            raise InvalidInputError(msg)
        return path
    if not suite_hint and not value.startswith(baselines.PREFIX) and not path.exists():
        msg = (
            f"{value}: no such file or folder; give a run folder, its results.json, or "
            "builtin:SUITE/NAME (`gaia-eval baselines` lists them)"
        )
        raise InvalidInputError(msg)
    return baselines.resolve(value, suite_hint)


def load(value: str, suite_hint: str = "") -> Side:
    path = results_path(value, suite_hint)
    return Side(value, path, load_envelope(path, legacy=legacy_converters()))


def load_pair(baseline: str, current: str) -> tuple[Side, Side]:
    """Both runs; a short baseline name resolves against the current run's suite."""
    short = not (baseline.startswith(baselines.PREFIX) or Path(baseline).exists())
    if short:
        cur = load(current)
        return load(baseline, cur.env.header.suite), cur
    base = load(baseline)
    return base, load(current, base.env.header.suite)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def changes(suite: type[Suite], baseline: Envelope, current: Envelope) -> list[Change]:
    """System-side differences; NotComparableError on a measured one."""
    if baseline.header.suite != current.header.suite:
        msg = (
            f"not comparable: suite is {baseline.header.suite!r} in the baseline and "
            f"{current.header.suite!r} in the current run; compare two runs of one suite"
        )
        raise NotComparableError(msg)
    before = suite.comparable_fields(baseline.header)
    after = suite.comparable_fields(current.header)
    out: list[Change] = []
    for key in sorted(set(before) | set(after)):
        b, a = before.get(key), after.get(key)
        if b == a:
            continue
        if is_measured(key):
            msg = (
                f"not comparable: {key} is {b!r} in the baseline and {a!r} in the current "
                "run; it defines what is measured, so the numbers would not be about the "
                "same thing (compare runs of the same items, tier and judge)"
            )
            raise NotComparableError(msg)
        out.append(Change(field=key, baseline=_text(b), current=_text(a)))
    return out


def _ref(side: Side) -> RunRef:
    head = side.env.header
    return RunRef(
        label=side.label,
        results=baselines.shipped_label(side.path),
        commit=head.run.commit,
        started=head.run.started,
        complete=head.complete,
    )


def _rows(
    before: ItemMetric, after: ItemMetric, units: Sequence[str]
) -> tuple[list[float], list[float], list[int]]:
    """Paired rows and each row's unit: repeats pair row by row when both runs have the same
    count, else each side collapses to its mean (the unit's difference is the same)."""
    b_rows: list[float] = []
    c_rows: list[float] = []
    clusters: list[int] = []
    for i, unit in enumerate(units):
        b, c = before.values[unit], after.values[unit]
        if len(b) != len(c):
            b, c = [math.fsum(b) / len(b)], [math.fsum(c) / len(c)]
        b_rows += b
        c_rows += c
        clusters += [i] * len(b)
    return b_rows, c_rows, clusters


def _unit_means(metric: ItemMetric, units: Sequence[str]) -> list[float]:
    return [math.fsum(metric.values[u]) / len(metric.values[u]) for u in units]


def compare(
    baseline: Side,
    current: Side,
    *,
    alpha: float = 0.05,
    resamples: int = 10_000,
    seed: int = 0,
) -> Comparison:
    """The comparison of `current` against `baseline` (NotComparableError when unlike)."""
    suite = suite_class(baseline.env.header.suite)
    changed = changes(suite, baseline.env, current.env)
    notes: list[str] = []
    for side, word in ((baseline, "baseline"), (current, "current run")):
        head = side.env.header
        if not head.complete:
            notes.append(f"the {word} did not complete: its missing items are not compared")
        if head.mixed_commits:
            notes.append(f"the {word} mixes results of {len(head.commits)} commits")
    before = {m.name: m for m in item_metrics(suite.gate, baseline.env)}
    after = {m.name: m for m in item_metrics(suite.gate, current.env)}
    for name in sorted(set(before) ^ set(after)):
        where = "baseline" if name in before else "current run"
        notes.append(f"metric {name!r} exists in the {where} only; it is not compared")

    results: list[tuple[ItemMetric, stats.PairedResult, list[str]]] = []
    for name, b in before.items():
        a = after.get(name)
        if a is None:
            continue
        units = sorted(set(b.values) & set(a.values))
        if not units:
            if b.values or a.values:  # a metric neither run measured is simply absent
                notes.append(f"metric {name!r}: no item is measured in both runs")
            continue
        b_rows, c_rows, clusters = _rows(b, a, units)
        res = stats.paired(
            b_rows, c_rows, b.kind, clusters=clusters, alpha=alpha, resamples=resamples, seed=seed
        )
        results.append((b, res, units))

    gated_p = [
        (i, r.p_value) for i, (m, r, _) in enumerate(results) if m.gated and r.p_value is not None
    ]
    adjusted = dict(zip((i for i, _ in gated_p), stats.holm([p for _, p in gated_p]), strict=True))
    metrics: list[MetricComparison] = []
    flips: list[ItemFlip] = []
    for i, (m, res, units) in enumerate(results):
        p_holm = adjusted.get(i)
        word = stats.call(res, higher_is_better=m.higher_is_better, alpha=alpha, p_value=p_holm)
        a = after[m.name]
        b_means, c_means = _unit_means(m, units), _unit_means(a, units)
        metrics.append(
            MetricComparison(
                name=m.name,
                kind=m.kind,
                higher_is_better=m.higher_is_better,
                gated=m.gated,
                n=res.n,
                baseline=res.baseline,
                current=res.current,
                delta=res.delta,
                low=res.low,
                high=res.high,
                p_value=res.p_value,
                p_holm=p_holm,
                test=res.test,
                mde=res.mde,
                call=word,
                baseline_ci=stats.mean_interval(b_means, m.kind, alpha, resamples, seed),
                current_ci=stats.mean_interval(c_means, m.kind, alpha, resamples, seed),
            )
        )
        if m.kind == "binary":
            flips += [
                ItemFlip(
                    metric=m.name,
                    item=u,
                    before=bv,
                    after=cv,
                    baseline_record=m.record(u),
                    current_record=a.record(u),
                )
                for u, bv, cv in zip(units, b_means, c_means, strict=True)
                if bv != cv
            ]
    if any(r.p_value is None for _, r, _ in results):
        notes.append(
            f"fewer than {stats.MIN_PAIRED} paired items for some metrics: their test has no "
            "power, so no p-value is given and the call is inconclusive; add items or repeats"
        )
    b_ids, c_ids = _measured_ids(baseline.env), _measured_ids(current.env)
    return Comparison(
        suite=baseline.env.header.suite,
        tier=baseline.env.header.tier,
        baseline=_ref(baseline),
        current=_ref(current),
        alpha=alpha,
        resamples=resamples,
        seed=seed,
        changed=changed,
        metrics=metrics,
        latency=compare_distributions(
            suite.gate.distributions(baseline.env),
            suite.gate.distributions(current.env),
            alpha=alpha,
            resamples=resamples,
            seed=seed,
        ),
        flips=flips,
        only_baseline=sorted(b_ids - c_ids),
        only_current=sorted(c_ids - b_ids),
        worse=[m.name for m in metrics if m.gated and m.call == "worse"],
        notes=notes,
    )


def _measured_ids(env: Envelope) -> set[str]:
    return {r.id for r in env.items if r.status != "infra_error"}
