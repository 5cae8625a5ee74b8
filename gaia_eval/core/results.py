"""The result envelope every suite's results.json shares, and the gate's Verdict.

One file shape for every suite (inspect_ai's EvalLog is the model): a header that says
what was measured and how (suite, tier, the system / embedder / model / judge specs, the
item-set digest, completeness, errors, run meta), one record per item (status, commit,
time, the suite's own item result), the suite's summary, the set-up facts the summary
needs (index statistics, server info), and the gate's verdict. `load_envelope` is the one
reader: it runs on `read_model` with the suite's migrations, so old files keep loading.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.models import ResultModel
from gaia_eval.core.results_io import Migration, model_from_data, read_json, read_model
from gaia_eval.core.runmeta import Machine

ENVELOPE_SCHEMA = 2
"""2: the header records `concurrency` (--jobs, endpoint caps, backoff, budget)."""
ENVELOPE_KIND: Literal["gaia-eval/results"] = "gaia-eval/results"

ItemStatus = Literal["ok", "error", "infra_error"]


class RunInfo(ResultModel):
    """Identity and timing of the run (or, after a merge or resume, of its first part)."""

    package_version: str
    """gaia-eval version that ran."""
    commit: str | None
    """Commit of the checkout the run came from, if any."""
    dirty: bool | None
    """True when that checkout had uncommitted changes."""
    started: str
    """Local ISO-8601 start time with UTC offset."""
    duration_s: float | None = None
    """Wall seconds of the run (summed over resumed parts)."""
    cpu_s: float | None = None
    """CPU seconds of the run process."""
    machine: Machine
    """Where it ran."""
    argv: list[str] = Field(default_factory=list)
    """The command line after `gaia-eval`; `--resume DIR` re-runs it."""


class EndpointRecord(ResultModel):
    """What the shared limiter of one backend saw during the run."""

    cap: int
    """Requests allowed in flight at once, across all workers."""
    requests: int = 0
    """Requests sent."""
    throttled: int = 0
    """Replies that asked to slow down (429, overload, Retry-After)."""
    backoff_s: float = 0.0
    """Wall seconds every worker waited for this backend's backoff."""


class Concurrency(ResultModel):
    """How many items ran at once, and what held them back: a run's wall time is only
    comparable with its concurrency known."""

    jobs: int = 1
    """Items in flight at most (--jobs; the suite's default when not given)."""
    endpoints: dict[str, EndpointRecord] = Field(default_factory=dict)
    """Per backend (`scheme://host:port`): its cap, requests, throttles and backoff."""
    backoff_s: float = 0.0
    """Backoff waited, summed over the backends."""
    budget_usd: float | None = None
    """The run's --budget-usd, when given."""
    spent_usd: float | None = None
    """What the items of this run part cost, where the suite knows it."""
    not_started: int = 0
    """Items never started because the budget was spent (they stay unmeasured)."""


class Header(ResultModel):
    """What was measured, how, and whether all of it was."""

    suite: str
    """Registry name of the suite (`retrieval-rag`, `code-retrieval`, `tasks`, ...)."""
    tier: str
    """The suite's tier or named item set (`pr`, `offline`, `full`, ...)."""
    system: str | None = None
    """The system under test (`module:factory` or the reference system's name)."""
    embedder: str | None = None
    """Embedder spec, where the suite embeds."""
    model: str | None = None
    """Model spec of the system under test, where it uses one."""
    judge: str | None = None
    """Judge model spec, where one scores."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Every other setting that changes the numbers; gates and --resume compare them."""
    definition_digest: str
    """sha256 over the full item set's definitions (ids and content)."""
    items_total: int
    """Items in the full (unsharded) set."""
    item_ids: list[str] = Field(default_factory=list)
    """Items this run (or shard) was asked to run, in run order."""
    filtered: bool = False
    """The run asked for fewer than all items (`--parts`, an id list); gates say so."""
    shard: str | None = None
    """`i/N` when this run is one shard; merged runs list theirs in `shards`."""
    shards: list[str] = Field(default_factory=list)
    """The shards a merged result was joined from."""
    complete: bool = False
    """Every asked item has a measured result (no outage, not interrupted)."""
    interrupted: bool = False
    """The run was stopped (SIGINT / SIGTERM) before it finished."""
    errors: list[str] = Field(default_factory=list)
    """Errors of the run (not of one item), scrubbed."""
    infra_errors: int = 0
    """Items left unmeasured by an infrastructure failure."""
    item_errors: int = 0
    """Items whose run crashed inside the system under test (a failure, not an outage)."""
    commits: list[str] = Field(default_factory=list)
    """Distinct commits the item results came from; more than one means mixed code."""
    run: RunInfo
    """Run identity and timing."""
    concurrency: Concurrency | None = None
    """Items in flight, backend caps and backoff of the last run part (None: a file of a
    version that ran items one at a time)."""

    @property
    def mixed_commits(self) -> bool:
        return len(self.commits) > 1


class ItemRecord(ResultModel):
    """One item's outcome, as appended to items.jsonl and kept in results.json."""

    id: str
    """The item's stable id."""
    status: ItemStatus
    """ok: measured; error: the system under test crashed on it; infra_error: unmeasured."""
    result: dict[str, Any] | None = None
    """The suite's item result (its item model, as JSON)."""
    error: str | None = None
    """What went wrong, scrubbed and cut to 2,000 characters."""
    commit: str | None = None
    """Commit of the code that measured this item."""
    ran_at: str
    """Local ISO-8601 time the item finished."""
    seconds: float = 0.0
    """Wall seconds of the item."""


class MetricCheck(ResultModel):
    """One gated metric."""

    name: str
    """Metric name as the suite reports it (`repo_docs/sdk recall@5`)."""
    baseline: float
    """The baseline's value."""
    current: float | None
    """This run's value (None: missing now, which fails)."""
    allowed: float
    """The allowed change against the metric's good direction."""
    rule: str
    """The tolerance rule with its numbers, e.g. `max(0.02, 1.5/55) = 0.0273`."""
    passed: bool
    """Within the allowed change."""


class Flip(ResultModel):
    """An item check whose outcome changed between the baseline and this run."""

    item: str
    """Item id."""
    check: str
    """Check name."""
    before: bool | None
    """Outcome in the baseline (None: absent)."""
    after: bool | None
    """Outcome now (None: absent)."""
    gated: bool
    """True when a pass -> fail of this check fails the gate."""


class Verdict(ResultModel):
    """What the gate decided, stored inside results.json."""

    passed: bool
    """No failure."""
    baseline: str
    """The baseline file (or `builtin:` name) compared against."""
    baseline_commit: str | None = None
    """Commit the baseline was measured at."""
    baseline_started: str | None = None
    """When the baseline run started."""
    tolerance: float | None = None
    """The run's --tolerance (None: each rule's default)."""
    failures: list[str] = Field(default_factory=list)
    """Why it failed, one line each."""
    notes: list[str] = Field(default_factory=list)
    """What changed without failing."""
    metrics: list[MetricCheck] = Field(default_factory=list)
    """Every gated metric."""
    flips: list[Flip] = Field(default_factory=list)
    """Every item check that changed, both directions."""
    missing_items: list[str] = Field(default_factory=list)
    """Baseline items absent from this run (each fails)."""
    not_gated: list[str] = Field(default_factory=list)
    """Metrics measured now that the baseline lacks (reported, not gated)."""


class Envelope(ResultModel):
    """A results.json of any suite."""

    schema_version: int = Field(default=ENVELOPE_SCHEMA, alias="schema")
    """Envelope schema version."""
    kind: Literal["gaia-eval/results"] = ENVELOPE_KIND
    """Marks the file as a gaia-eval results envelope."""
    header: Header
    """What was measured and how."""
    items: list[ItemRecord] = Field(default_factory=list)
    """One record per item run, in run order."""
    setup: dict[str, Any] = Field(default_factory=dict)
    """Facts the set-up produced that the summary needs (index stats, server info)."""
    summary: dict[str, Any] = Field(default_factory=dict)
    """The suite's summary (its summary model, as JSON)."""
    verdict: Verdict | None = None
    """The gate's verdict when the run was gated."""

    def records(self) -> dict[str, ItemRecord]:
        return {r.id: r for r in self.items}

    def measured(self) -> list[ItemRecord]:
        return [r for r in self.items if r.status != "infra_error"]


RESULT_MODELS = (Envelope,)


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    # Version 1 ran one item at a time and recorded no concurrency: nothing to add.
    return data


ENVELOPE_MIGRATIONS: dict[int, Migration] = {1: _v1_to_v2}


def definition_digest(rows: Iterable[tuple[str, Any]]) -> str:
    """sha256 over (id, definition) pairs in id order; definitions must be JSON data."""
    ordered = sorted(rows, key=lambda r: r[0])
    blob = json.dumps(ordered, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


Converter = Callable[[dict[str, Any]], dict[str, Any] | None]


class LegacyFormats(Mapping[str, Converter]):
    """Suite name -> converter of its pre-envelope files, each loaded only when asked for
    (core.suite builds it from the registry), and what a foreign file is."""

    def describe(self, data: dict[str, Any]) -> str | None:
        """A suite's words for `data` when it is one of its old files (None: no suite's)."""
        return None


def load_envelope(
    path: Path,
    *,
    suite: str | None = None,
    legacy: Mapping[str, Converter] | None = None,
    migrations: Mapping[int, Migration] | None = None,
) -> Envelope:
    """Read a results.json (or a baseline) of `suite`.

    `legacy` maps a suite name to a function that turns one of its pre-envelope files into
    an envelope document (None: not its file); it is tried when the file is not an
    envelope, so committed baselines keep loading without ever being edited. A converter
    that recognises its file but finds it broken raises InvalidInputError naming the
    problem. A file of another kind is exit 2 naming the file and what it is.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    data = read_json(path)
    if not isinstance(data, dict):
        msg = (
            f"{path}: expected a gaia-eval results file (a JSON object), got {type(data).__name__}"
        )
        raise InvalidInputError(msg)
    if data.get("kind") != ENVELOPE_KIND:
        converted = None
        legacy = legacy or {}
        # Only the named suite's converter is loaded; any suite's when none is named.
        for name in [suite] if suite is not None else list(legacy):
            convert = legacy.get(name)
            if convert is None:
                continue
            try:
                converted = convert(data)
            except InvalidInputError as err:  # the converter knows the file: say what is wrong
                msg = f"{path}: {err}"
                raise InvalidInputError(msg) from err
            except (KeyError, TypeError, ValueError):
                converted = None
            if converted is not None:
                break
        if converted is None:
            what = _describe(data, legacy)
            want = f"a {suite} results.json" if suite else "a gaia-eval results.json"
            msg = f"{path}: this is {what}, not {want}; pass the results.json of a finished run"
            raise InvalidInputError(msg)
        return _validate(path, converted, migrations)
    env = read_model(path, Envelope, migrations=ENVELOPE_MIGRATIONS | dict(migrations or {}))
    if suite is not None and env.header.suite != suite:
        msg = (
            f"{path}: this is a results file of suite {env.header.suite!r}, not {suite!r}; "
            f"pass a {suite} results.json"
        )
        raise InvalidInputError(msg)
    return env


def _validate(
    path: Path, data: dict[str, Any], migrations: Mapping[int, Migration] | None
) -> Envelope:
    return model_from_data(
        data,
        Envelope,
        source=f"{path} (migrated)",
        migrations=ENVELOPE_MIGRATIONS | dict(migrations or {}),
    )


def _describe(data: dict[str, Any], legacy: Mapping[str, Converter]) -> str:
    """A few words on what an unexpected JSON object looks like (the suites that had old
    formats say which is theirs)."""
    if isinstance(legacy, LegacyFormats) and (what := legacy.describe(data)):
        return what
    keys = ", ".join(sorted(data)[:6])
    return f"a JSON object with keys {keys or '(none)'}"
