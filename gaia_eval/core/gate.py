"""The one gate engine: every gate of every suite, by rules each suite declares as data.

Rule kinds:
- **Run against a baseline** (`compare`, rules in `GateRules`: `MetricRule` tolerances and
  `CheckRule` item checks), below in order.
- **Fixed bars** (`check_bars`, rules as `Bar`s): a measured number against a limit -- a
  performance manifest (`benchmark --gate`), a tasks expectations file (`tasks gate`).
- **Unlike runs are refused** by one implementation (`refuse_fields`), whatever the kind.
- **One exit-code map** (`exit_code`): 0 passed, 1 failed (a regression), 3 unmeasured or
  not comparable; invalid input (a bad baseline, a bad manifest) is 2 by its error.

Against a baseline:
1. A baseline that did not complete, or measured nothing, is refused (exit 2) -- before
   the run, by the run loop, so no minutes are spent on a run that cannot be gated.
2. Unlike runs are refused (NotComparableError, exit 3) naming the field that differs:
   suite, tier, system, embedder, model, judge, the item definitions, any setting.
3. An incomplete current run fails; a crashed item fails; a baseline item missing from
   this run fails.
4. Metrics: each gated metric may move against its good direction by at most the allowed
   change, the largest of the rule's absolute tolerance (or `--tolerance`), its relative
   share of the baseline value, and `widen_items / n` ("1.5 items on small sets"). A metric
   missing now fails; one the baseline lacks is reported as not gated.
5. Item checks: every change is listed (both directions); a pass -> fail of a check whose
   rule says must-still-pass fails, and so does such a check absent now.
6. The suite's own extra rules (`GateRules.extra`) add failures and notes.
A run compared with itself passes at tolerance 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from gaia_eval.core.errors import (
    EXIT_GATE_FAILED,
    EXIT_NOT_COMPARABLE,
    EXIT_OK,
    InvalidInputError,
    NotComparableError,
)
from gaia_eval.core.results import Envelope, Flip, Header, MetricCheck, Verdict

if TYPE_CHECKING:
    from gaia_eval.core.compare.metrics import Distribution, ItemMetric
    from gaia_eval.core.suite import Suite

# Float slack so equal metrics written with a few decimals never fail on rounding.
_EPS = 1e-9


@dataclass(frozen=True)
class Metric:
    """A gated number. `n` is how many items it averages, for rules widened on small sets."""

    value: float | None
    n: int | None = None


@dataclass(frozen=True)
class MetricRule:
    """How far a metric (selected by an fnmatch pattern) may move."""

    pattern: str
    higher_is_better: bool = True
    absolute: float | None = None
    """Allowed change; None takes the run's --tolerance, else GateRules.default_tolerance."""
    relative: float | None = None
    """Allowed change as a share of the baseline value (0.1: 10%)."""
    widen_items: float | None = None
    """Allowed change of at least widen_items / n (n: the metric's item count now)."""


@dataclass(frozen=True)
class CheckRule:
    """What a change of an item check (selected by pattern on the check name) means."""

    pattern: str
    must_still_pass: bool = True


def _no_metrics(env: Envelope) -> dict[str, Metric]:
    return {}


def _no_checks(env: Envelope) -> dict[tuple[str, str], bool | None]:
    return {}


def _no_extra(baseline: Envelope, current: Envelope) -> tuple[list[str], list[str]]:
    return [], []


def _no_distributions(env: Envelope) -> list[Distribution]:
    return []


@dataclass(frozen=True)
class GateRules:
    """A suite's gate, as data: the rules, and the pure functions that read the numbers
    and checks they compare out of an envelope. A suite declares it as `gate = ...`."""

    metrics: tuple[MetricRule, ...] = ()
    checks: tuple[CheckRule, ...] = ()
    default_tolerance: float = 0.0
    unasked_fail: bool = False
    """A baseline item this run did not ask for (a filtered run) fails; else it is a note."""
    read_metrics: Callable[[Envelope], Mapping[str, Metric]] = _no_metrics
    """Gated metrics by name (the rules select them by pattern)."""
    read_checks: Callable[[Envelope], Mapping[tuple[str, str], bool | None]] = _no_checks
    """(item id, check name) -> passed, for flip detection and must-still-pass rules."""
    extra: Callable[[Envelope, Envelope], tuple[list[str], list[str]]] = _no_extra
    """Suite-specific (failures, notes) from (baseline, current), beyond metrics and checks."""
    comparable: Callable[[Header], Mapping[str, Any]] | None = None
    """What must be equal to gate against a baseline; None: the suite's `comparable_fields`.
    A suite drops fields here that change only ungated numbers (a RAG run's answer model:
    answers never enter its gate), while resume and merge still compare them."""
    item_metrics: Callable[[Envelope], Sequence[ItemMetric]] | None = None
    """The per-item metrics `gaia-eval compare` tests (core.compare.metrics), with kind,
    good direction and whether a `worse` call fails; None: the item checks of
    `read_checks` as pass/fail, gated where a must-still-pass rule covers them."""
    item_fields: tuple[str, ...] = ()
    """Numeric fields of an item's result `gaia-eval compare` also tests per item
    (continuous, higher is better, not gated), beside `item_metrics`."""
    distributions: Callable[[Envelope], Sequence[Distribution]] = _no_distributions
    """Unpaired readings `gaia-eval compare` compares by percentiles (latencies per load
    level); default none."""


def check_tolerance(value: float | None, flag: str = "--tolerance") -> float | None:
    """A tolerance is a finite number >= 0 (exit 2 otherwise)."""
    if value is None:
        return None
    if not math.isfinite(value) or value < 0:
        msg = f"{flag} must be a finite number >= 0, got {value}"
        raise InvalidInputError(msg)
    return value


def check_baseline(baseline: Envelope, label: str) -> None:
    """Refuse a baseline that cannot gate anything (exit 2 naming the file)."""
    if not baseline.header.complete:
        msg = (
            f"{label}: the baseline comes from a run that did not complete "
            f"(header.complete is false: {'; '.join(baseline.header.errors) or 'interrupted'}); "
            "gate against the results.json of a finished run"
        )
        raise InvalidInputError(msg)
    if not baseline.measured():
        msg = f"{label}: the baseline measured nothing (no item has a result); it cannot gate"
        raise InvalidInputError(msg)


def refuse_fields(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    label: str,
    *,
    skip: Sequence[str] = (),
    theirs: str = "the baseline",
    fix: str = "gate against a baseline of the same settings (or capture a new baseline "
    "from a real run)",
) -> None:
    """NotComparableError naming the first field (sorted) whose value differs between what
    a run is gated against (`before`, called `theirs`) and the run (`after`); `skip`: keys
    not known yet. The one refuse-unlike of every gate kind."""
    for key in sorted(set(before) | set(after)):
        if key in skip:
            continue
        if before.get(key) != after.get(key):
            msg = (
                f"not comparable with {label}: {key} differs ({key} is {before.get(key)!r} "
                f"in {theirs} and {after.get(key)!r} in this run); {fix}"
            )
            raise NotComparableError(msg)


def refuse_unlike(
    suite: type[Suite],
    baseline: Envelope,
    current: Envelope,
    label: str,
    skip: Sequence[str] = (),
) -> None:
    """NotComparableError naming the first field that differs (`skip`: not known yet)."""
    fields = suite.gate.comparable or suite.comparable_fields
    refuse_fields(fields(baseline.header), fields(current.header), label, skip=skip)


def exit_code(verdict: Verdict | None, *, unmeasured: bool = False) -> int:
    """The one exit-code map of a gate: 0 passed (or nothing to gate), 1 failed (a
    regression), 3 unmeasured (nothing to gate the verdict on). Invalid input and unlike
    runs never reach here: they raise (2 and 3 by their error)."""
    if unmeasured:
        return EXIT_NOT_COMPARABLE
    if verdict is None or verdict.passed:
        return EXIT_OK
    return EXIT_GATE_FAILED


# ---- fixed bars ------------------------------------------------------------------------


@dataclass(frozen=True)
class Bar:
    """A fixed limit on one measured number: a performance bar, an expectation."""

    name: str
    limit: float
    higher_is_better: bool = True
    rule: str | None = None
    """How the bar reads in the verdict; default `>= limit` / `<= limit`."""
    reference: float | None = None
    """The number the limit was set from (an expectations file's measured value): shown
    as the check's baseline and named in its failure. None: the limit itself."""
    must_be_measured: bool = False
    """A number not measured fails; otherwise it is noted and not checked."""
    trusted: bool = True
    """False: the number cannot be trusted (a task unjudged), so the bar fails."""
    gated: bool = True
    """False: listed as not gated yet (passes, named in `not_gated`)."""


def check_bars(
    values: Mapping[str, float | None],
    bars: Sequence[Bar],
    *,
    label: str,
    source: str | None = None,
    enforce: bool = True,
) -> Verdict:
    """One MetricCheck per bar, of `values[bar.name]`. A miss fails; with `enforce` False
    (report mode) a miss is a note and the verdict passes. `source` names what measured
    a bar's reference in its failure (`the expectations`)."""
    misses: list[str] = []
    notes: list[str] = []
    verdict = Verdict(passed=False, baseline=label)
    for bar in bars:
        value = values.get(bar.name)
        op = ">=" if bar.higher_is_better else "<="
        rule = bar.rule or f"{op} {bar.limit:g}"
        if value is None and not bar.must_be_measured and bar.gated:
            notes.append(f"{bar.name}: not measured, bar {bar.limit:g} not checked")
            continue
        base = bar.reference if bar.reference is not None else bar.limit
        if not bar.gated:
            ok = True
            verdict.not_gated.append(bar.name)
        elif value is None or not bar.trusted:
            ok = False
        else:
            ok = value >= bar.limit if bar.higher_is_better else value <= bar.limit
        verdict.metrics.append(
            MetricCheck(
                name=bar.name,
                baseline=base,
                current=value,
                allowed=round(abs(base - bar.limit), 6),
                rule=rule,
                passed=ok,
            )
        )
        if not ok:
            shown = "none" if value is None else f"{value:g}"
            miss = f"{bar.name} is {shown}, outside {rule}"
            if bar.reference is not None and source:
                miss += f"; {source} measured {bar.reference:g}"
            misses.append(miss)
    if enforce:
        verdict.failures = misses
    else:
        notes = [f"report mode (enforce: false), would fail: {m}" for m in misses] + notes
    verdict.notes = notes
    verdict.passed = not verdict.failures
    return verdict


def _allowed(
    rule: MetricRule, baseline: float, n: int | None, tolerance: float | None, default: float
) -> tuple[float, str]:
    absolute = rule.absolute if rule.absolute is not None else default
    if tolerance is not None:
        absolute = tolerance
    parts = [(absolute, f"{absolute:g}")]
    if rule.relative is not None:
        parts.append((abs(baseline) * rule.relative, f"{rule.relative:g}*|{baseline:g}|"))
    if rule.widen_items is not None and n:
        parts.append((rule.widen_items / n, f"{rule.widen_items:g}/{n}"))
    allowed = max(p[0] for p in parts)
    if len(parts) == 1:
        return allowed, parts[0][1]
    return allowed, f"max({', '.join(p[1] for p in parts)}) = {allowed:.4f}"


def _first(ids: list[str], n: int = 20) -> str:
    return ", ".join(ids[:n]) + (" ..." if len(ids) > n else "")


def _rule_for(rules: tuple[MetricRule, ...], name: str) -> MetricRule | None:
    return next((r for r in rules if fnmatchcase(name, r.pattern)), None)


def _check_rule(rules: tuple[CheckRule, ...], name: str) -> CheckRule | None:
    return next((r for r in rules if fnmatchcase(name, r.pattern)), None)


def compare(
    suite: type[Suite],
    baseline: Envelope,
    current: Envelope,
    *,
    tolerance: float | None = None,
    label: str = "the baseline",
) -> Verdict:
    """Gate `current` against `baseline`; raises NotComparableError for unlike runs."""
    tolerance = check_tolerance(tolerance)
    check_baseline(baseline, label)
    refuse_unlike(suite, baseline, current, label)
    rules = suite.gate
    verdict = Verdict(
        passed=False,
        baseline=label,
        baseline_commit=baseline.header.run.commit,
        baseline_started=baseline.header.run.started,
        tolerance=tolerance,
    )
    head = current.header
    if not head.complete:
        why = "; ".join(head.errors) or (
            "interrupted" if head.interrupted else f"{head.infra_errors} unmeasured"
        )
        verdict.failures.append(f"the current run did not complete: {why}")
    now = {r.id for r in current.items if r.status != "infra_error"}
    for rec in current.items:
        if rec.status == "error":
            verdict.failures.append(f"{suite.item_noun} {rec.id} crashed: {rec.error}")
    asked = set(head.item_ids) if head.item_ids else None
    unasked: list[str] = []
    for rec in baseline.items:
        if rec.status == "infra_error" or rec.id in now:
            continue
        if asked is not None and rec.id not in asked:
            unasked.append(rec.id)
        else:
            verdict.missing_items.append(rec.id)
    if verdict.missing_items:
        verdict.failures.append(
            f"{len(verdict.missing_items)} baseline {suite.item_noun}(s) not run: "
            + _first(verdict.missing_items)
        )
    if unasked:
        line = (
            f"{len(unasked)} baseline {suite.item_noun}(s) not asked for by this "
            f"{'shard' if head.shard else 'filtered run'}: " + _first(unasked)
        )
        if rules.unasked_fail and not head.shard:
            verdict.missing_items.extend(unasked)
            verdict.failures.append(line)
        else:
            verdict.notes.append(line)
    _gate_metrics(
        suite,
        rules=rules,
        baseline=baseline,
        current=current,
        tolerance=tolerance,
        verdict=verdict,
    )
    _gate_checks(
        suite,
        rules=rules,
        baseline=baseline,
        current=current,
        asked=asked,
        verdict=verdict,
    )
    failures, notes = rules.extra(baseline, current)
    verdict.failures.extend(failures)
    verdict.notes.extend(notes)
    verdict.passed = not verdict.failures
    return verdict


def _gate_metrics(
    suite: type[Suite],
    *,
    rules: GateRules,
    baseline: Envelope,
    current: Envelope,
    tolerance: float | None,
    verdict: Verdict,
) -> None:
    before = rules.read_metrics(baseline)
    after = rules.read_metrics(current)
    for name, old in before.items():
        rule = _rule_for(rules.metrics, name)
        if rule is None or old.value is None:
            continue
        new = after.get(name)
        n = new.n if new is not None else old.n
        allowed, text = _allowed(rule, old.value, n, tolerance, rules.default_tolerance)
        value = new.value if new is not None else None
        if value is None:
            ok = False
        elif rule.higher_is_better:
            ok = value >= old.value - allowed - _EPS
        else:
            ok = value <= old.value + allowed + _EPS
        verdict.metrics.append(
            MetricCheck(
                name=name,
                baseline=old.value,
                current=value,
                allowed=round(allowed, 6),
                rule=text,
                passed=ok,
            )
        )
        if value is None:
            verdict.failures.append(f"{name} is in the baseline but missing now")
        elif not ok:
            word = "dropped" if rule.higher_is_better else "rose"
            verdict.failures.append(
                f"{name} {word} {old.value:.4f} -> {value:.4f} (allowed {text})"
            )
    for name in after:
        if name not in before and _rule_for(rules.metrics, name) is not None:
            verdict.not_gated.append(name)
    if verdict.not_gated:
        verdict.notes.append(
            "measured now but not in the baseline: " + ", ".join(verdict.not_gated)
        )


def _gate_checks(
    suite: type[Suite],
    *,
    rules: GateRules,
    baseline: Envelope,
    current: Envelope,
    asked: set[str] | None,
    verdict: Verdict,
) -> None:
    before = rules.read_checks(baseline)
    after = rules.read_checks(current)
    missing = set(verdict.missing_items)
    for key in sorted(set(before) | set(after)):
        item, check = key
        if asked is not None and item not in asked:
            continue
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        rule = _check_rule(rules.checks, check)
        gated = rule is not None and rule.must_still_pass
        verdict.flips.append(Flip(item=item, check=check, before=old, after=new, gated=gated))
        if gated and old is True and new is not True and item not in missing:
            state = "absent now" if new is None else "fails now"
            verdict.failures.append(
                f"{suite.item_noun} {item}: {check} passed in the baseline, {state}"
            )
