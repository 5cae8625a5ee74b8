"""The release scorecard gate: `gaia-eval agent --scorecard-gate CANDIDATE [--baseline-file
FILE | --baseline-ref REF] [--min-aggregate N] [--min-urgent-recall R] [--regression-k K]
[--allow-regression] [--allow-ctx-mismatch] [--require-ctx-match]`.

Rules, in the engine's gate (core.gate: bars, the refusal of unlike runs, the exit map):
- Absolute bars on every path, first adoption included: the aggregate (percent) at least
  `--min-aggregate`, urgent_recall at least `--min-urgent-recall` (absent fails).
- A baseline missing at `--baseline-ref` is first adoption: the bars only.
- What is measured must match (core.compare's fields: suite, tier, scenario definitions,
  judge), else exit 3. The context size too, unless `--allow-ctx-mismatch`; when either
  card lacks it the regression check is skipped with a warning, and `--require-ctx-match`
  fails an unstamped candidate.
- Regression: the aggregate may not fall below baseline - k x stdev x 100 when the baseline
  records the aggregate's stdev over repeats (k = `--regression-k`, default 1), else below
  the baseline itself. `--allow-regression` turns that failure into a warning.
- Beside the bar, when both cards list their scenarios, the paired test of core.stats
  (exact McNemar) says whether a drop is also significant.
Exit: 0 passed, 1 failed, 2 invalid input (a missing or bad card, a bad ref), 3 not
comparable.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gaia_eval.agent.models import ReleaseCard
from gaia_eval.agent.release import FILE, parse_card, read_card
from gaia_eval.core import stats
from gaia_eval.core.compare.engine import MEASURED
from gaia_eval.core.compare.metrics import paired_rows
from gaia_eval.core.errors import InvalidInputError, NotComparableError
from gaia_eval.core.gate import Bar, check_bars, exit_code, refuse_fields
from gaia_eval.core.results import Verdict
from gaia_eval.core.results_io import scrub_text

# A git revision as people write them (tags, branches, HEAD~2, sha); never an option.
_REF = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./@^~{}-]{0,199}")
AGGREGATE = "aggregate"
URGENT = "urgent_recall"
REGRESSION = "aggregate against the baseline"


@dataclass(frozen=True)
class GateOptions:
    min_aggregate: float | None = None
    min_urgent_recall: float | None = None
    regression_k: float = 1.0
    allow_regression: bool = False
    allow_ctx_mismatch: bool = False
    require_ctx_match: bool = False


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        msg = f"--baseline-ref: cannot run git ({err}); give --baseline-file instead"
        raise InvalidInputError(msg) from None


def baseline_at_ref(candidate: Path, ref: str) -> str | None:
    """The candidate's SCORECARD.md as committed at `ref`; None when the file is not there
    (first adoption). A ref that is not a commit is exit 2."""
    if not _REF.fullmatch(ref) or ".." in ref:
        msg = f"--baseline-ref: {ref!r} is not a git revision (a tag, branch or commit)"
        raise InvalidInputError(msg)
    path = candidate / FILE if candidate.is_dir() else candidate
    folder = path.resolve().parent
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        msg = f"--baseline-ref: {folder} is not inside a git repository; give --baseline-file"
        raise InvalidInputError(msg)
    rel = path.resolve().relative_to(Path(top.stdout.strip()).resolve()).as_posix()
    if _git(folder, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        msg = f"--baseline-ref: {ref!r} is not a commit in {top.stdout.strip()}"
        raise InvalidInputError(msg)
    shown = _git(folder, "show", f"{ref}:{rel}")
    return shown.stdout if shown.returncode == 0 else None


def _measured(card: ReleaseCard) -> dict[str, object]:
    """What must be equal to compare two cards: the fields core.compare calls measured."""
    fields: dict[str, object] = {key: getattr(card, key) for key in MEASURED}
    fields["aggregate.metric"] = card.aggregate.metric
    return fields


def _significance(baseline: ReleaseCard, candidate: ReleaseCard) -> str | None:
    units = sorted(set(baseline.scenarios) & set(candidate.scenarios))
    if not units:
        return None
    before = {u: [float(v) for v in baseline.scenarios[u]] for u in units}
    after = {u: [float(v) for v in candidate.scenarios[u]] for u in units}
    b_rows, c_rows, clusters = paired_rows(before, after, units)
    res = stats.paired(b_rows, c_rows, "binary", clusters=clusters)
    word = stats.call(res, higher_is_better=True)
    p = "no p-value" if res.p_value is None else f"p={res.p_value:.4g}"
    return (
        f"paired over {res.n} scenario(s): judged pass rate {res.baseline:.3f} -> "
        f"{res.current:.3f}, change {res.delta:+.3f} [{res.low:+.3f}, {res.high:+.3f}], "
        f"{res.test}, {p}: {word}"
    )


def gate(
    candidate: ReleaseCard,
    baseline: ReleaseCard | None,
    opts: GateOptions,
    *,
    label: str = "the baseline",
) -> Verdict:
    """The verdict on `candidate`; NotComparableError (exit 3) when unlike `baseline`."""
    values: dict[str, float | None] = {AGGREGATE: candidate.aggregate.value}
    values[URGENT] = next((m.value for m in candidate.results.metrics if m.name == URGENT), None)
    bars: list[Bar] = []
    if opts.min_aggregate is not None:
        bars.append(Bar(AGGREGATE, opts.min_aggregate, must_be_measured=True))
    if opts.min_urgent_recall is not None:
        bars.append(Bar(URGENT, opts.min_urgent_recall, must_be_measured=True))
    verdict = check_bars(values, bars, label=label)
    notes: list[str] = []
    failures: list[str] = []
    ctx_now = candidate.recipe.environment.ctx_size
    if ctx_now is None and opts.require_ctx_match:
        failures.append(
            "the candidate records no recipe.environment.ctx_size (--require-ctx-match); "
            "write it with `gaia-eval agent --release-card RUN --ctx-size N`"
        )
    if baseline is None:
        notes.append("no baseline: first adoption, so only the bars apply")
    else:
        refuse_fields(
            _measured(baseline),
            _measured(candidate),
            label,
            fix="the cards score different things; gate against a card of the same tier, "
            "scenarios and judge",
        )
        ctx_then = baseline.recipe.environment.ctx_size
        compared = True
        if ctx_now is None or ctx_then is None:
            compared = False
            side = "the candidate" if ctx_now is None else "the baseline"
            notes.append(
                f"WARNING: {side} records no context size (recipe.environment.ctx_size): "
                "the regression check is skipped"
            )
        elif ctx_now != ctx_then:
            if not opts.allow_ctx_mismatch:
                msg = (
                    f"not comparable with {label}: the context size differs "
                    f"(recipe.environment.ctx_size is {ctx_then} there and {ctx_now} in the "
                    "candidate), so every delta would partly be the context; score both at "
                    "one size, or pass --allow-ctx-mismatch"
                )
                raise NotComparableError(msg)
            notes.append(f"context size {ctx_then} -> {ctx_now} (--allow-ctx-mismatch)")
        if compared:
            _regression(candidate, baseline, opts, verdict=verdict, failures=failures, notes=notes)
    verdict.failures += failures
    verdict.notes += notes
    verdict.passed = not verdict.failures
    return verdict


def _regression(
    candidate: ReleaseCard,
    baseline: ReleaseCard,
    opts: GateOptions,
    *,
    verdict: Verdict,
    failures: list[str],
    notes: list[str],
) -> None:
    then = baseline.aggregate.value
    if then is None:
        msg = "the baseline SCORECARD.md has no aggregate.value; it cannot gate"
        raise InvalidInputError(msg)
    spread = baseline.recipe.config.acceptance_variance.get(baseline.aggregate.metric)
    if spread is not None and opts.regression_k > 0:
        band = opts.regression_k * spread.stdev * 100
        limit = then - band
        rule = f">= {then:g} - {opts.regression_k:g} x stdev {spread.stdev * 100:g} = {limit:.2f}"
    else:
        limit, rule = then, f">= {then:g} (no recorded stdev: strict)"
    bar = Bar(REGRESSION, round(limit, 6), rule=rule, reference=then, must_be_measured=True)
    checked = check_bars({REGRESSION: candidate.aggregate.value}, [bar], label="", source="")
    verdict.metrics += checked.metrics
    why = _significance(baseline, candidate)
    if why:
        notes.append(why)
    if checked.failures:
        line = f"regression: {checked.failures[0]}"
        if opts.allow_regression:
            notes.append(f"WARNING: {line} (allowed by --allow-regression)")
        else:
            failures.append(line)


def run(
    candidate: Path,
    opts: GateOptions,
    *,
    baseline_file: Path | None = None,
    baseline_ref: str | None = None,
) -> int:
    """`--scorecard-gate`: print the verdict, return the engine's exit code."""
    if baseline_file is not None and baseline_ref is not None:
        msg = "--baseline-file and --baseline-ref: give one baseline"
        raise InvalidInputError(msg)
    if opts.regression_k < 0:
        msg = f"--regression-k must be >= 0, got {opts.regression_k:g}"
        raise InvalidInputError(msg)
    card = read_card(candidate)
    label = "no baseline"
    base: ReleaseCard | None = None
    if baseline_file is not None:
        base, label = read_card(baseline_file), str(baseline_file)
    elif baseline_ref is not None:
        text = baseline_at_ref(candidate, baseline_ref)
        label = f"{baseline_ref}:{FILE}"
        if text is None:
            print(f"no {FILE} at {baseline_ref}: first adoption")
        else:
            base = parse_card(text, label)
    verdict = gate(card, base, opts, label=label)
    print(render(card, base, verdict))
    return exit_code(verdict)


def render(card: ReleaseCard, base: ReleaseCard | None, verdict: Verdict) -> str:
    now = card.aggregate.value
    lines = [
        f"candidate {card.agent.version or '?'}: aggregate "
        + ("not measured" if now is None else f"{now:g}%")
        + (
            ""
            if base is None or base.aggregate.value is None
            else f"; baseline {base.agent.version or '?'}: {base.aggregate.value:g}%"
        )
    ]
    for m in verdict.metrics:
        shown = "none" if m.current is None else f"{m.current:g}"
        lines.append(f"  {m.name}: {shown} ({m.rule}): {'ok' if m.passed else 'FAILED'}")
    lines += [f"note: {n}" for n in verdict.notes]
    if verdict.failures:
        lines.append("FAILED:")
        lines += [f"  - {f}" for f in verdict.failures]
    else:
        lines.append("PASSED")
    return scrub_text("\n".join(lines))
