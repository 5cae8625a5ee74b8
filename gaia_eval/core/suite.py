"""The suite protocol and the registry of every suite.

A suite is a declaration (inspect_ai's `Task` is the model): its items with stable ids,
how one item runs, how results summarise, and two attributes pointing at data: `gate`
(core.gate.GateRules: which metrics and item checks the gate compares, with what rules)
and `report` (core.report.Report: headline, sections, warnings). Everything else -- the
eval lock, signals, the run folder, saving after every item, progress, `--resume`,
`--shard`, the gate, the report files -- is `core.runloop`'s, once for every suite.

A `Suite` instance is one configured run (built by the CLI from flags). The methods that
read results (`summarise`, `unmeasured_reason`, `comparable_fields`) are classmethods, and
`gate`/`report` are pure functions of an envelope, so `gaia-eval merge` and the gate can
use them on files alone.
"""

from __future__ import annotations

import tomllib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import import_module, resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.gate import GateRules
from gaia_eval.core.report import Report
from gaia_eval.core.results import Converter, LegacyFormats

if TYPE_CHECKING:
    from gaia_eval.core.reach import Endpoint
    from gaia_eval.core.results import Envelope, Header, ItemRecord


@dataclass(frozen=True)
class Item:
    """One unit of work with a stable id. `definition` is JSON data that defines the item
    (its question, its labels...): the definition digest covers it, so a changed item makes
    runs not comparable. `payload` is whatever the suite's `run_item` needs."""

    id: str
    definition: Any = None
    payload: Any = None


@dataclass
class HeaderFields:
    """The header fields a configured suite knows before it runs."""

    tier: str
    system: str | None = None
    embedder: str | None = None
    model: str | None = None
    judge: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    pending: tuple[str, ...] = ()
    """Comparable-field keys only known once setup built the system (a plug-in's embedder):
    the baseline and --resume checks before setup skip them; `RunContext.learn_header` (or
    the end of setup) checks them."""


@dataclass
class RunContext:
    """What a running suite may use: its run folder and the set-up facts it records."""

    out_dir: Path
    setup: dict[str, Any] = field(default_factory=dict)
    """Written into the envelope's `setup` (even when setup fails); the summary reads it."""
    header_updates: dict[str, Any] = field(default_factory=dict)
    """Header fields the suite learns while setting up (the built system's embedder)."""
    check_header: Callable[[dict[str, Any]], None] | None = field(default=None, repr=False)
    """Set by the run loop: checks learned header fields against the baseline and the
    resumed run (NotComparableError)."""

    def item_temp(self, item_id: str) -> Path:
        """A temp folder of this item alone (made on first use, removed with the run's):
        with `--jobs N` items run at once, so nothing an item writes may be shared."""
        import hashlib
        import re

        # Ids may hold any character: a safe stem plus a hash keeps two ids apart.
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", item_id)[:60]
        tag = hashlib.sha256(item_id.encode("utf-8")).hexdigest()[:8]
        folder = Path(str(self.setup["_temp"])) / "items" / f"{stem}-{tag}"
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    def learn_header(self, **updates: Any) -> None:
        """Record header fields learned in setup and check them at once, so an unlike run
        stops before the expensive rest of setup (indexing) instead of after it."""
        self.header_updates.update(updates)
        if self.check_header is not None:
            self.check_header(dict(self.header_updates))


class Suite(ABC):
    """Subclass per suite; register it in `suites.toml`."""

    name: ClassVar[str]
    """Registry name, written as the header's `suite`."""
    title: ClassVar[str]
    """Report title."""
    item_model: ClassVar[type[BaseModel]]
    """The pydantic model of one item's result."""
    item_noun: ClassVar[str] = "item"
    """What an item is called in messages and reports (`question`, `task`...)."""
    stop_on_infra: ClassVar[bool] = True
    """An infrastructure error stops the run (the rest stay unmeasured, resumable). When
    False the run goes on, and only a run that measured nothing at all is exit 3."""
    concurrent_items: ClassVar[bool] = False
    """The suite's `run_item` is safe to call from several threads at once (each item has
    its own temp folder, workspace, agent process and gateway route; nothing it writes is
    shared): `--jobs N` runs up to N items in flight. A suite that did not opt in refuses
    `--jobs` above 1, naming itself."""
    jobs_refused: ClassVar[str | None] = None
    """Why this suite refuses `--jobs` at all (the benchmark: its concurrency is what it
    measures); None: it takes `--jobs`."""
    gate: ClassVar[GateRules] = GateRules()
    """The gate's rules and readers (the package's `gate.py`); default: nothing gated."""
    report: ClassVar[Report] = Report()
    """The report's headline, sections and warnings (the package's `report.py`)."""

    # ---- one configured run ----------------------------------------------------------

    @abstractmethod
    def header_fields(self) -> HeaderFields:
        """Tier, specs and settings of this configured run."""

    @abstractmethod
    def items(self) -> Sequence[Item]:
        """Every item of the full set, in run order (the run loop shards and resumes)."""

    def preflight(self) -> list[str]:
        """What this configured run needs but lacks (an SDK, an API key, an optional
        extra, pytest), one line each naming the fix. The run loop calls it before the
        lock and the first item and stops with all of them at once (exit 2); keep it
        cheap (no model loads, no indexing). Default: nothing is missing."""
        return []

    def endpoints(self) -> Sequence[Endpoint]:
        """The servers this configured run will call (a model backend, a judge, a
        gateway). The run loop dials each right after `preflight()`, before the lock and
        the first item: one that does not answer stops the run before it starts (exit 3,
        with every other problem in the same message). Servers the suite starts itself
        (the local model) are not listed. Default: none."""
        return []

    def default_jobs(self) -> int:
        """Items in flight when `--jobs` is not given: 1 (CPU-bound items on a small
        machine). A model-facing suite answers its backend's fit (`llm.spec.default_jobs`:
        the embedded local model's slot count, 4 for a remote endpoint)."""
        return 1

    def item_seconds(self, item: Item) -> float | None:
        """About how many seconds `item` takes in this configuration (a figure measured on
        an earlier run, rough): the run loop adds them up and says how long a long run
        will take before its first item. None (the default): unknown, nothing is said."""
        return None

    def select(self, items: Sequence[Item]) -> Sequence[Item]:
        """The items this configured run asks for (e.g. `--parts`); default all. A run that
        asks for fewer than all is labelled filtered; the digest still covers all."""
        return items

    def ordered(self, items: Sequence[Item], ctx: RunContext) -> Sequence[Item]:
        """The run order of `items`, decided after setup (which may learn commit dates)."""
        return items

    def setup(self, ctx: RunContext, items: Sequence[Item]) -> None:  # noqa: B027
        """Prepare what the items need (index documents, start a server), inside the lock.

        `items` are the ones this run will actually run (after shard and resume)."""

    def teardown(self) -> None:  # noqa: B027
        """Release what setup made; runs even when the run fails."""

    @abstractmethod
    def run_item(self, item: Item, ctx: RunContext) -> BaseModel:
        """Run one item. Raise InfrastructureError when something outside the system under
        test failed (the item is unmeasured, never scored); any other exception is a crash
        of the system under test and is recorded as the item's error."""

    def after_items(self, ctx: RunContext, results: dict[str, BaseModel]) -> None:  # noqa: B027
        """A pass over every finished item once the loop has run them all (a batched judge).

        `results` maps item id -> item result for each measured item this run was asked to
        run (resumed ones included); replace or change entries in place. The run loop saves
        every entry that changed, also when this raises (InfrastructureError stops the run
        resumably, like an item's outage: a `--resume` calls this again)."""

    # ---- reading results (classmethods: work on files alone) ---------------------------

    @classmethod
    @abstractmethod
    def summarise(cls, env: Envelope) -> BaseModel:
        """The suite's summary of an envelope's items and setup."""

    @classmethod
    def unmeasured_reason(cls, env: Envelope) -> str | None:
        """Why a finished run counts as unmeasured (exit 3) though some items were measured,
        e.g. a whole part of the suite was lost to outages; None when it does not."""
        return None

    @classmethod
    def item_cost_usd(cls, record: ItemRecord) -> float | None:
        """What an item cost in USD (None: unknown or free), summed against `--budget-usd`:
        once the run's spend reaches the budget no new item starts."""
        return None

    @classmethod
    def item_result(cls, record: ItemRecord) -> BaseModel | None:
        """A record's result as the suite's item model (None when it has none)."""
        if record.result is None:
            return None
        return cls.item_model.model_validate(record.result)

    @classmethod
    def comparable_fields(cls, header: Header) -> dict[str, Any]:
        """What must be equal for two runs to be compared, resumed together or merged."""
        return {
            "suite": header.suite,
            "tier": header.tier,
            "system": header.system,
            "embedder": header.embedder,
            "model": header.model,
            "judge": header.judge,
            "definition_digest": header.definition_digest,
            **{f"settings.{k}": v for k, v in sorted(header.settings.items())},
        }


# ---- the registry ---------------------------------------------------------------------


@dataclass(frozen=True)
class SuiteEntry:
    """One suite in `suites.toml`."""

    name: str
    target: str
    """`module:Class` of the Suite subclass, imported only when used."""
    description: str
    legacy: str | None = None
    """`module:function` converting the suite's pre-envelope files, if it had any."""
    describe: str | None = None
    """`module:function` naming an old file of the suite in an error (None: not its)."""
    baselines: str | None = None
    """Its folder under gaia_eval/baselines/, if baselines ship for it."""
    gate_command: str | None = None
    """The command that gates a run against one of those baselines (for listings)."""
    options: str | None = None
    """The module of its flags (a `COMMAND` or `COMMANDS` of core.options.SuiteCommand);
    default: `options` beside its class (`gaia_eval.memory.suite` -> `gaia_eval.memory.options`)."""

    def load(self) -> type[Suite]:
        module, _, attr = self.target.partition(":")
        cls = getattr(import_module(module), attr)
        if not (isinstance(cls, type) and issubclass(cls, Suite)):
            msg = f"suites.toml: {self.name} names {self.target}, which is not a Suite"
            raise TypeError(msg)
        return cls


@dataclass(frozen=True)
class RunEntry:
    """A named, runnable configuration (a nox session of the suite family)."""

    name: str
    suite: str
    argv: tuple[str, ...]
    """Arguments after `gaia-eval`."""
    extras: tuple[str, ...]
    """Package extras the run needs installed."""
    description: str
    ci: bool


@cache
def _registry() -> dict[str, Any]:
    text = resources.files("gaia_eval.core").joinpath("suites.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


_EXTRA: dict[str, SuiteEntry] = {}


def register_suite(entry: SuiteEntry) -> None:
    """Register a suite at run time (tests, plug-ins); suites.toml stays the real list."""
    _EXTRA[entry.name] = entry


def suites() -> dict[str, SuiteEntry]:
    """Every registered suite by name."""
    return _EXTRA | {
        name: SuiteEntry(
            name=name,
            target=row["target"],
            description=row["description"],
            legacy=row.get("legacy"),
            describe=row.get("describe"),
            baselines=row.get("baselines"),
            gate_command=row.get("gate_command"),
            options=row.get("options"),
        )
        for name, row in _registry().get("suite", {}).items()
    }


def runs() -> dict[str, RunEntry]:
    """Every named run (nox session) by name."""
    return {
        name: RunEntry(
            name=name,
            suite=row["suite"],
            argv=tuple(row["argv"]),
            extras=tuple(row.get("extras", ())),
            description=row["description"],
            ci=bool(row.get("ci", False)),
        )
        for name, row in _registry().get("run", {}).items()
    }


def suite_class(name: str) -> type[Suite]:
    """The Suite subclass registered as `name` (exit 2 naming the known ones otherwise)."""
    entry = suites().get(name)
    if entry is None:
        known = ", ".join(sorted(suites()))
        msg = f"unknown suite {name!r}; registered suites: {known}"
        raise InvalidInputError(msg)
    return entry.load()


def _load(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    return getattr(import_module(module), attr)


class _Registered(LegacyFormats):
    """The registry's converters, each suite's module imported only when its own is used:
    reading one suite's results file loads no other suite."""

    def __init__(self) -> None:
        self._entries = {e.name: e for e in suites().values() if e.legacy}

    def __getitem__(self, name: str) -> Converter:
        entry = self._entries[name]
        assert entry.legacy is not None
        converter: Converter = _load(entry.legacy)
        return converter

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def describe(self, data: dict[str, Any]) -> str | None:
        for entry in suites().values():
            if entry.describe and (what := _load(entry.describe)(data)):
                return str(what)
        return None


def legacy_converters() -> LegacyFormats:
    """suite name -> converter of its pre-envelope files, loaded lazily."""
    return _Registered()


def gate_commands() -> dict[str, str]:
    """Baselines folder -> the command that gates against its files (registry only)."""
    return {
        e.baselines: e.gate_command for e in suites().values() if e.baselines and e.gate_command
    }


def gate_command_for(folder: str, name: str) -> str:
    """The whole command that gates a run against baseline `name` of `folder`, as a user
    types it: a named run's argv that gates against it (it is run in CI), else the suite's
    `gate_argv.<name>` (the flags that baseline was measured with), else `gate_command
    NAME`. Every one must run as printed (tests/test_firsthour_runs.py runs each)."""
    import shlex
    from itertools import pairwise

    ref = f"builtin:{folder}/{name}"
    for run in runs().values():
        argv = list(run.argv)
        if any(a == "--gate" and b == ref for a, b in pairwise(argv)):
            return shlex.join(["gaia-eval", *(name if a == ref else a for a in argv)])
    for row in _registry().get("suite", {}).values():
        if row.get("baselines") == folder:
            argv = row.get("gate_argv", {}).get(name)
            if argv:
                return shlex.join(["gaia-eval", *argv])
    return f"{gate_commands().get(folder, '--gate')} {name}"
