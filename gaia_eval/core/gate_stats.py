"""The statistics beside every gate row, and the gate's `significance` mode.

A tolerance row says whether a metric moved further than its rule allows; it cannot say
whether the move is real or noise. Here each row of a verdict gated against a baseline run
gets the paired comparison `gaia-eval compare` makes (core.stats.paired over the items
measured in both runs): the change's 95% interval, its p-value, and one line in words
(`fails tolerance; the drop is significant (p=0.0012)`). The per-item values come from
the suite's `GateRules.read_item_values`; a baseline without item records (an old
summary-only file) says so instead of guessing.

The must-still-pass item checks join the same family as one pass/fail metric, and Holm's
correction runs across every tested row, so one verdict's many rows do not multiply the
chance of a false alarm.

`significance` mode (`--gate-mode significance`) fails a metric only on a significant
drop: a tolerance failure within noise becomes a note, and so do the pass -> fail flips of
must-still-pass checks when their pooled change is within noise. A row that cannot be
tested (no item records, fewer than 10 paired items) keeps its tolerance verdict, so the
mode never passes what it cannot measure. Structural failures (an incomplete run, a crash,
a baseline item not run, the suite's own rules) fail in both modes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Literal

from gaia_eval.core import stats
from gaia_eval.core.compare.metrics import ItemMetric, paired_rows

if TYPE_CHECKING:
    from gaia_eval.core.gate import GateRules
    from gaia_eval.core.results import Envelope, MetricCheck, Verdict

GateMode = Literal["tolerance", "significance"]
GATE_MODES: tuple[GateMode, ...] = ("tolerance", "significance")
ALPHA = 0.05
RESAMPLES = 10_000
SEED = 0
CHECKS_ROW = "must-still-pass checks"
"""The family member of the pooled must-still-pass item checks."""


@dataclass(frozen=True)
class _Tested:
    name: str
    result: stats.PairedResult
    higher_is_better: bool


def p_text(value: float | None) -> str:
    if value is None:
        return "no p-value"
    return "p < 0.0001" if value < 1e-4 else f"p={value:.4f}"


def _p_words(p: float | None, holm: float | None) -> str:
    text = p_text(p)
    if holm is not None and p is not None and abs(holm - p) > 1e-12:
        text += f", Holm {p_text(holm).removeprefix('p=')}"
    return text


def _paired(
    before: ItemMetric | None, after: ItemMetric | None, alpha: float
) -> tuple[stats.PairedResult | None, str | None]:
    """The paired result of one metric, or why there is none."""
    if before is None or not before.values:
        return None, "no per-item records in the baseline"
    if after is None or not after.values:
        return None, "no per-item records in this run"
    units = sorted(set(before.values) & set(after.values))
    if not units:
        return None, "no item is measured in both runs"
    b_rows, c_rows, clusters = paired_rows(before.values, after.values, units)
    res = stats.paired(
        b_rows,
        c_rows,
        before.kind,
        clusters=clusters,
        alpha=alpha,
        resamples=RESAMPLES,
        seed=SEED,
    )
    if res.p_value is None:
        return res, f"{res.n} paired items, too few to test (at least {stats.MIN_PAIRED})"
    return res, None


def _read(
    reader: Callable[[Envelope], Mapping[str, ItemMetric]] | None, env: Envelope
) -> tuple[Mapping[str, ItemMetric], str | None]:
    """The per-item values of a run, or why they cannot be read: a hand-edited baseline's
    item results need not parse as the suite's, and the tolerance rows never read them."""
    if reader is None:
        return {}, None
    try:
        return reader(env), None
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        return {}, f"{type(err).__name__}: {str(err).splitlines()[0][:120]}"


def _checks_metric(rules: GateRules, env: Envelope) -> ItemMetric:
    """The must-still-pass item checks of a run as one pass/fail metric over (item, check)."""
    out = ItemMetric(CHECKS_ROW, "binary", gated=True)
    for (item, check), ok in rules.read_checks(env).items():
        rule = next((r for r in rules.checks if fnmatchcase(check, r.pattern)), None)
        if rule is not None and rule.must_still_pass and ok is not None:
            out.add(f"{item}/{check}", ok, item)
    return out


def _drop(res: stats.PairedResult, higher_is_better: bool) -> bool:
    return res.delta < 0 if higher_is_better else res.delta > 0


@dataclass
class Annotated:
    """What `annotate` found: the tested family (for significance mode)."""

    checks: stats.PairedResult | None = None
    checks_why: str | None = None
    checks_holm: float | None = None


def annotate(
    rules: GateRules,
    baseline: Envelope,
    current: Envelope,
    verdict: Verdict,
    directions: Mapping[str, bool],
    *,
    alpha: float = ALPHA,
) -> Annotated:
    """Fill every metric row's interval, p-values and words (in place); `directions` maps a
    row's name to its rule's good direction."""
    reader = rules.read_item_values
    before, bad_before = _read(reader, baseline)
    after, bad_after = _read(reader, current)
    family: list[_Tested] = []
    why: dict[str, str] = {}
    for row in verdict.metrics:
        if row.current is None:
            why[row.name] = "missing now"
            continue
        if reader is None:
            why[row.name] = "the suite records no per-item values for this metric"
            continue
        if bad_before or bad_after:
            side = "baseline" if bad_before else "this run"
            why[row.name] = f"the {side}'s item records are unreadable ({bad_before or bad_after})"
            continue
        res, reason = _paired(before.get(row.name), after.get(row.name), alpha)
        if res is not None:
            row.paired_items, row.test = res.n, res.test
            row.delta, row.delta_low, row.delta_high = res.delta, res.low, res.high
            row.p_value = res.p_value
        if res is not None and reason is None:
            family.append(_Tested(row.name, res, directions.get(row.name, True)))
        else:
            why[row.name] = reason or "not tested"
    found = Annotated()
    if any(r.must_still_pass for r in rules.checks):
        res, found.checks_why = _paired(
            _checks_metric(rules, baseline), _checks_metric(rules, current), alpha
        )
        if res is not None and found.checks_why is None:
            found.checks = res
            family.append(_Tested(CHECKS_ROW, res, True))
    adjusted = dict(
        zip(
            (t.name for t in family),
            stats.holm([t.result.p_value or 1.0 for t in family]),
            strict=True,
        )
    )
    found.checks_holm = adjusted.get(CHECKS_ROW)
    tested = {t.name: t for t in family}
    for row in verdict.metrics:
        head = "within tolerance" if row.passed else "fails tolerance"
        t = tested.get(row.name)
        if t is None:
            row.significance = f"{head}; {why.get(row.name, 'not tested')}"
            continue
        row.p_holm = adjusted[row.name]
        row.significant_drop = _drop(t.result, t.higher_is_better) and row.p_holm < alpha
        p = _p_words(row.p_value, row.p_holm)
        if row.significant_drop:
            row.significance = f"{head}; the drop is significant ({p})"
        elif row.passed:
            row.significance = f"{head}; not a significant drop ({p})"
        else:
            row.significance = f"{head} but is within noise ({p})"
    return found


def checks_note(found: Annotated, lost: int, alpha: float) -> str:
    """What the pooled must-still-pass checks say about `lost` pass -> fail flips, in words
    (a tolerance verdict's note: those flips fail it either way)."""
    res = found.checks
    head = f"{lost} must-still-pass check(s) lost"
    if res is None:
        return f"{head}; {found.checks_why}"
    p = _p_words(res.p_value, found.checks_holm)
    over = f"{res.baseline:.4f} -> {res.current:.4f} over {res.n} checks"
    if _drop(res, True) and (found.checks_holm or 1.0) < alpha:
        return f"{head}: the drop is significant ({over}; {p})"
    return f"{head}: within noise ({over}; {p})"


def _change(row: MetricCheck) -> str:
    return f"change {row.delta:+.4f} [{row.delta_low:+.4f}, {row.delta_high:+.4f}]"


def apply_mode(
    verdict: Verdict,
    found: Annotated,
    *,
    metric_failures: Mapping[str, str],
    check_failures: Sequence[str],
) -> None:
    """Significance mode, on an annotated verdict: swap the tolerance failures of tested
    rows (`metric_failures`: row name -> its failure line) and of the must-still-pass
    flips (`check_failures`) for failures of significant drops only."""
    drop: set[str] = set()
    notes: list[str] = []
    failures: list[str] = []
    for row in verdict.metrics:
        line = metric_failures.get(row.name)
        if row.significant_drop is None:
            if line is not None:
                notes.append(
                    f"significance mode: {row.name} cannot be tested "
                    f"({(row.significance or '').split('; ', 1)[-1]}), so its tolerance gates it"
                )
            continue
        if line is not None:
            drop.add(line)
        if row.significant_drop:
            failures.append(
                f"{row.name} dropped significantly: {row.baseline:.4f} -> {row.current:.4f}, "
                f"{_change(row)}, {_p_words(row.p_value, row.p_holm)}"
            )
        elif line is not None:
            notes.append(
                f"significance mode: {row.name} fails tolerance but is within noise "
                f"({_p_words(row.p_value, row.p_holm)}); not failed"
            )
    if check_failures:
        res = found.checks
        if res is None:
            notes.append(
                f"significance mode: the {CHECKS_ROW} cannot be tested ({found.checks_why}), "
                "so every pass -> fail fails"
            )
        else:
            drop.update(check_failures)
            p = _p_words(res.p_value, found.checks_holm)
            lost = len(check_failures)
            if _drop(res, True) and (found.checks_holm or 1.0) < verdict.alpha:
                failures.append(
                    f"the {CHECKS_ROW} dropped significantly: {res.baseline:.4f} -> "
                    f"{res.current:.4f} over {res.n} checks ({lost} lost; {p}, {res.test})"
                )
            else:
                notes.append(
                    f"significance mode: {lost} must-still-pass check(s) lost, within noise "
                    f"over {res.n} checks ({p}); not failed"
                )
    verdict.failures = [f for f in verdict.failures if f not in drop] + failures
    verdict.notes = notes + verdict.notes
