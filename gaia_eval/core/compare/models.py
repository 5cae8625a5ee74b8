"""compare.json: the comparison of two runs of one suite."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gaia_eval.core.models import ResultModel

COMPARE_SCHEMA = 1

CallWord = Literal["better", "worse", "no detectable change", "inconclusive"]


class RunRef(ResultModel):
    """One side of the comparison."""

    label: str
    """The file (or `builtin:` name) as given."""
    results: str
    """Path of the results.json read."""
    commit: str | None = None
    """Commit the run was measured at."""
    started: str
    """When the run started."""
    complete: bool
    """The run measured every item it asked for."""


class Change(ResultModel):
    """A system-side field that differs between the runs (allowed: it is what is compared)."""

    field: str
    """Header field (`system`, `embedder`, `settings.harness`...)."""
    baseline: str | None
    """Its value in the baseline, as text."""
    current: str | None
    """Its value in the current run, as text."""


class MetricComparison(ResultModel):
    """One per-item metric tested over the paired items."""

    name: str
    """Metric name (`checks passed`, `recall@5`...)."""
    kind: Literal["binary", "continuous"]
    """binary: pass/fail per item (a proportion); continuous: a score per item."""
    higher_is_better: bool
    """The metric's good direction."""
    gated: bool
    """A `worse` call of this metric fails the comparison (exit 1)."""
    n: int
    """Paired items (resampling units) the metric was compared on."""
    baseline: float
    """Mean over the paired items in the baseline."""
    current: float
    """Mean over the paired items now."""
    delta: float
    """current - baseline."""
    low: float
    """Lower end of the (1 - alpha) paired bootstrap interval of delta."""
    high: float
    """Upper end of that interval."""
    p_value: float | None
    """Two-sided p-value of the test; None when too few items for the test to mean anything."""
    p_holm: float | None
    """The p-value after Holm's correction across the gated metrics (gated metrics only)."""
    test: str
    """Which test gave the p-value."""
    mde: float
    """Minimum detectable effect: the smallest |delta| these items detect with 80% power."""
    call: CallWord
    """better / worse / no detectable change / inconclusive (docs/runs.md defines them)."""
    baseline_ci: tuple[float, float] | None = None
    """Interval of the baseline mean (Wilson for binary, bootstrap for continuous)."""
    current_ci: tuple[float, float] | None = None
    """Interval of the current mean."""


class ItemFlip(ResultModel):
    """A paired item whose binary outcome changed."""

    metric: str
    """The binary metric that flipped."""
    item: str
    """The paired unit's id."""
    before: float
    """Baseline value (mean over repeats)."""
    after: float
    """Current value."""
    baseline_record: str
    """Item record id in the baseline's results.json."""
    current_record: str
    """Item record id in the current results.json."""


class LatencyComparison(ResultModel):
    """A latency percentile of one load level (benchmark), with bootstrap intervals."""

    level: str
    """Load level."""
    statistic: str
    """A percentile of a quantity, e.g. `ttft_ms p95`."""
    baseline: float
    """Baseline value."""
    baseline_ci: tuple[float, float]
    """Bootstrap interval of the baseline value."""
    current: float
    """Current value."""
    current_ci: tuple[float, float]
    """Bootstrap interval of the current value."""
    delta: float
    """current - baseline."""
    low: float
    """Lower end of the bootstrap interval of delta (runs resampled independently)."""
    high: float
    """Upper end of that interval."""
    p_value: float
    """Two-sided bootstrap p-value of delta = 0."""
    n_baseline: int
    """Readings in the baseline."""
    n_current: int
    """Readings now."""
    call: CallWord
    """worse / better when the interval of delta excludes 0; no detectable change when it
    lies within 10% of the baseline value; else inconclusive."""


class Comparison(ResultModel):
    """compare.json."""

    schema_version: int = Field(default=COMPARE_SCHEMA, alias="schema")
    """compare.json schema version."""
    kind: Literal["gaia-eval/compare"] = "gaia-eval/compare"
    """Marks the file as a comparison."""
    suite: str
    """The suite both runs measured."""
    tier: str
    """Their tier."""
    baseline: RunRef
    """The run compared against."""
    current: RunRef
    """The run compared."""
    alpha: float
    """Significance level of every call; intervals are (1 - alpha)."""
    resamples: int
    """Bootstrap and permutation resamples."""
    seed: int
    """Seed of the resampling (splitmix64)."""
    changed: list[Change] = Field(default_factory=list)
    """What changed on the system side."""
    metrics: list[MetricComparison] = Field(default_factory=list)
    """Every compared metric."""
    latency: list[LatencyComparison] = Field(default_factory=list)
    """Latency percentiles per load level (benchmark)."""
    flips: list[ItemFlip] = Field(default_factory=list)
    """Paired items whose outcome changed, both directions."""
    only_baseline: list[str] = Field(default_factory=list)
    """Items measured in the baseline only (not paired, not tested)."""
    only_current: list[str] = Field(default_factory=list)
    """Items measured in the current run only."""
    worse: list[str] = Field(default_factory=list)
    """Gated metrics called worse: any makes the exit status 1."""
    notes: list[str] = Field(default_factory=list)
    """Caveats (an incomplete run, mixed commits, too few items)."""


RESULT_MODELS = (Comparison,)
