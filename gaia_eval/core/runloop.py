"""The one run loop every suite runs on.

It owns, for every suite: the output folder (checked writable before anything runs), the
baseline (loaded and checked before the first item), the machine-wide eval lock,
SIGINT/SIGTERM unwinding, the suite's set-up and tear-down, the item loop with a progress
bar, saving after every finished item (an append-only `items.jsonl` plus an atomic
`results.json` snapshot), `--shard i/N`, `--resume DIR`, the gate, and the report files.
A suite only says how one item runs.

Before anything (the lock, the folder) the suite's `preflight()` lists every missing
dependency and credential and every server in `endpoints()` is dialled: all problems in
one message, exit 2 if anything is missing, else exit 3 when only a server is down.

Exit decisions: interrupted -> the interrupt propagates (130, or 143 for SIGTERM) after
everything finished is written; an infrastructure outage stops the run (exit 3) with the
resume command; an item that crashed or a failed gate -> 1; otherwise 0.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from gaia_eval.core import gate as gate_engine
from gaia_eval.core import limits
from gaia_eval.core.errors import (
    EXIT_GATE_FAILED,
    EXIT_OK,
    GaiaEvalError,
    InfrastructureError,
    InvalidInputError,
    LockHeldError,
    NotComparableError,
    Terminated,
    disk_full,
    exit_code_for,
)
from gaia_eval.core.heartbeat import Heartbeat
from gaia_eval.core.lock import eval_lock
from gaia_eval.core.progress import estimate_line, live, note, track
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import (
    Concurrency,
    EndpointRecord,
    Envelope,
    Header,
    ItemRecord,
    RunInfo,
    Verdict,
    definition_digest,
    load_envelope,
)
from gaia_eval.core.results_io import (
    FILE_MODE,
    loads_json,
    scrub_strings,
    scrub_text,
    write_json,
    write_text,
)
from gaia_eval.core.rundir import default_run_dir
from gaia_eval.core.runmeta import git_state, machine, now_iso
from gaia_eval.core.suite import Item, RunContext, Suite, legacy_converters

ITEM_LOG = "items.jsonl"
RESULTS = "results.json"
# A results.json snapshot at most this often; the item log is written after every item.
_SNAPSHOT_EVERY_S = 2.0
CANCEL_GRACE_S = 20.0
"""After Ctrl-C / SIGTERM with items in flight: how long the run waits for them to finish
(each one that does is saved) before it writes what it has and stops; a second Ctrl-C stops
at once. The rest stay unmeasured and `--resume` runs them."""

# The run folder of the run in progress, for the CLI's crash handler (traceback file).
current_run_dir: dict[str, Path] = {}


# ---- shards -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (1-based, as `--shard 2/4` and JOB_COMPLETION_INDEX + 1)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        head, sep, tail = text.partition("/")
        try:
            index, count = int(head), int(tail)
        except ValueError:
            index = count = 0
        if not sep or count < 1 or not 1 <= index <= count:
            msg = f"--shard {text!r}: expected i/N with 1 <= i <= N, e.g. --shard 1/4"
            raise InvalidInputError(msg)
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, item_id: str) -> bool:
        # A stable hash (never Python's salted hash()): every machine agrees on the split.
        h = int.from_bytes(hashlib.sha256(item_id.encode("utf-8")).digest()[:8], "big")
        return h % self.count == self.index - 1


# ---- what a run is asked ----------------------------------------------------------------------


@dataclass
class RunRequest:
    """The flags every suite shares (core/options.py lists them)."""

    command: str
    """The command line, for the lock's holder record."""
    argv: list[str] = field(default_factory=list)
    out: Path | None = None
    resume: Path | None = None
    shard: Shard | None = None
    baseline: Path | None = None
    baseline_label: str | None = None
    tolerance: float | None = None
    only: Sequence[str] | None = None
    """Run only these item ids (a filtered run: labelled as such, gated on these)."""
    keep_temp: bool = False
    wait_lock: float | None = None
    threshold_gate: Callable[[Envelope], Verdict] | None = None
    """Gate against fixed bars instead of a baseline (e.g. the benchmark's performance
    manifest): called on the finished envelope when no baseline is given; its Verdict is
    stored and a failed one exits 1 like a failed baseline gate."""
    jobs: int | None = None
    """Items in flight at most (`--jobs N`); None: the suite's `default_jobs()`."""
    budget_usd: float | None = None
    """No new item starts once the items' cost (`Suite.item_cost_usd`) reaches this."""
    on_interrupt: Callable[[RunOutcome, str], None] | None = None
    """Called with the outcome and the command that finishes the run when Ctrl-C or
    SIGTERM stops it, after everything finished is written and before the interrupt goes
    on up (the CLI prints the summary, the file paths and that command)."""


@dataclass
class RunOutcome:
    envelope: Envelope
    out_dir: Path
    exit_code: int
    paths: dict[str, Path]


class RunStopped(InfrastructureError):
    """An outage stopped the run, or it measured nothing (exit 3): everything finished is
    written. Carries what the CLI tells the person on stdout: the outcome (summary, file
    paths), the cause as the backend said it (its URL included) and the command that
    finishes the run."""

    def __init__(
        self,
        message: str,
        *,
        outcome: RunOutcome,
        cause: str,
        resume: str,
        unmeasured: bool = False,
    ) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.cause = cause
        self.resume = resume
        self.unmeasured = unmeasured
        """True: the run went to the end and measured nothing; False: an outage stopped it."""

    def lines(self) -> list[str]:
        """What to print on stdout after the run's summary and file paths."""
        if self.unmeasured:
            return [
                f"nothing was measured: {self.cause}",
                "when the cause is fixed, measure what is missing with:",
                f"  {self.resume}",
            ]
        return [
            f"stopped at the first outage: {self.cause}",
            "when the backend is back, finish the run with:",
            f"  {self.resume}",
        ]


# ---- the item log ---------------------------------------------------------------------------


_log_lock = threading.Lock()


def append_record(path: Path, record: ItemRecord) -> None:
    """Append one record as a JSON line, scrubbed, flushed to disk before returning; one
    whole line at a time under a lock (with --jobs, items finish on several threads)."""
    data = scrub_strings(record.model_dump(mode="json"))  # before encoding, then after
    line = json.dumps(data, ensure_ascii=False, allow_nan=False)
    data = (scrub_text(line) + "\n").encode("utf-8")
    with _log_lock:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)  # the run's one mode, whatever the umask is by now
            view = memoryview(data)
            while view:  # os.write may write less than asked
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)


def drop_torn_tail(path: Path) -> int:
    """Cut a last line that a kill left half-written off the item log (saying so), so the
    next record starts a line of its own instead of joining the torn one. Returns the
    number of bytes dropped."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    if not data or data.endswith(b"\n"):
        return 0
    keep = data.rfind(b"\n") + 1
    with path.open("r+b") as fh:
        fh.truncate(keep)
        fh.flush()
        os.fsync(fh.fileno())
    note(
        f"{path}: its last line was cut off ({len(data) - keep} bytes, what a killed run "
        "leaves); dropped it, so that item runs again"
    )
    return len(data) - keep


@contextmanager
def run_dir_lock(out: Path) -> Iterator[None]:
    """Hold an OS lock on the run folder itself (no file is added to it) for the body;
    another run writing there is refused with exit 4. The kernel releases it when the
    holder dies, so a killed run never leaves the folder locked."""
    if sys.platform == "win32":  # pragma: no cover - no flock on a folder there
        yield
        return
    import fcntl

    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            msg = (
                f"{out}: another gaia-eval run is writing to this folder; wait for it to "
                "finish (two runs in one folder would both run the same items)"
            )
            raise LockHeldError(msg) from None
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def read_item_log(path: Path) -> list[ItemRecord]:
    """Records of an item log; a last line cut by a kill is dropped, a bad one elsewhere is
    an error naming the line. Later records of one id replace earlier ones (a resume)."""
    if not path.exists():
        return []
    raw = path.read_bytes().decode("utf-8", errors="replace").split("\n")
    records: dict[str, ItemRecord] = {}
    for n, line in enumerate(raw, start=1):
        if not line.strip():
            continue
        try:
            rec = ItemRecord.model_validate(loads_json(line, f"{path}: line {n}"))
        except (ValueError, ValidationError) as err:
            if n >= len(raw) - 1:  # the torn last line of a killed run
                break
            msg = f"{path}: line {n} is not an item record ({err}); the log is damaged"
            raise InvalidInputError(msg) from err
        records.pop(rec.id, None)
        records[rec.id] = rec
    return list(records.values())


# ---- signals, temp folders, output checks --------------------------------------------------


@contextmanager
def unwind_on_signals() -> Iterator[None]:
    """SIGTERM raises Terminated (SIGINT already raises KeyboardInterrupt), so `finally`
    blocks run and the finished items are written. Only the main thread can install it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_temp(prefix: str = "gaia-eval-run-") -> list[Path]:
    """Remove temp folders of runs whose process is gone (a kill -9 leaves them)."""
    removed = []
    for path in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        parts = path.name[len(prefix) :].split("-")
        if not parts or not parts[0].isdigit() or not path.is_dir():
            continue
        if _pid_alive(int(parts[0])):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def check_out_dir(out: Path, *, resuming: bool) -> None:
    """The output folder must be writable, and a new run must not mix into an old one."""
    if out.exists() and not out.is_dir():
        msg = f"--out {out}: exists and is not a folder; name a new folder"
        raise InvalidInputError(msg)
    if not resuming and out.is_dir() and any(out.iterdir()):
        msg = (
            f"--out {out}: the folder is not empty (it holds another run's files); name a new "
            f"folder, or pass --resume {out} to finish that run"
        )
        raise InvalidInputError(msg)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".gaia-eval-write-probe"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        msg = f"--out {out}: cannot write there ({err.strerror or err}); name a writable folder"
        raise InvalidInputError(msg) from err


def describe(err: BaseException) -> str:
    if isinstance(err, Terminated):
        return f"Terminated: the run received signal {err.signum}"
    if isinstance(err, KeyboardInterrupt):
        return "Interrupted: the run received SIGINT"
    text = str(err) or repr(err)
    if isinstance(err, GaiaEvalError):  # our own messages say what happened already
        return text[:2000]
    return f"{type(err).__name__}: {text}"[:2000]


# ---- the loop ----------------------------------------------------------------------------------


class _Run:
    """State of one run while it goes (kept off the Suite, which stays declarative)."""

    def __init__(self, suite: Suite, req: RunRequest) -> None:
        self.suite = suite
        self.cls = type(suite)
        self.req = req
        self.t0 = time.perf_counter()
        self.cpu0 = time.process_time()
        self.last_snapshot = 0.0
        self.previous: Envelope | None = None
        self.baseline: Envelope | None = None
        self.records: dict[str, ItemRecord] = {}
        self.setup: dict[str, object] = {}
        self.filtered = False
        self.rank: dict[str, int] = {}
        """Run order of the asked ids: results.json lists items in it, whatever order
        they finished in."""
        self.jobs = 1
        self.lock = threading.Lock()
        """Guards `records` and `spent_usd` while workers save their items."""
        self.not_started = 0
        self.spent_usd: float | None = None
        self.beat: Heartbeat | None = None

    # -- header --------------------------------------------------------------------------

    def make_header(self, all_items: Sequence[Item], asked: Sequence[Item]) -> Header:
        fields = self.suite.header_fields()
        commit, dirty = git_state(Path(__file__).resolve().parent)
        from gaia_eval import __version__

        settings = dict(fields.settings)
        return Header(
            suite=self.cls.name,
            tier=fields.tier,
            system=fields.system,
            embedder=fields.embedder,
            model=fields.model,
            judge=fields.judge,
            settings=settings,
            definition_digest=definition_digest((i.id, i.definition) for i in all_items),
            items_total=len(all_items),
            item_ids=[i.id for i in asked],
            filtered=self.filtered,
            shard=str(self.req.shard) if self.req.shard else None,
            run=RunInfo(
                package_version=__version__,
                commit=commit,
                dirty=dirty,
                started=now_iso(),
                machine=machine(),
                argv=list(self.req.argv),
            ),
        )

    def refuse_unlike_previous(self, header: Header, skip: Sequence[str] = ()) -> None:
        """--resume runs under the recorded settings; a change of code or flags refuses."""
        if self.previous is None:
            return
        before = self.cls.comparable_fields(self.previous.header)
        after = self.cls.comparable_fields(header)
        for key in sorted(set(before) | set(after)):
            if key in skip:
                continue
            if before.get(key) != after.get(key):
                msg = (
                    f"--resume {self.req.resume}: {key} is {before.get(key)!r} in the recorded "
                    f"run and {after.get(key)!r} now; resume only with the same code and "
                    "settings (or start a new run)"
                )
                raise NotComparableError(msg)
        if set(self.previous.header.item_ids) != set(header.item_ids):
            msg = (
                f"--resume {self.req.resume}: the recorded run asked for other "
                f"{self.cls.item_noun}s than this one (a different filter or shard)"
            )
            raise NotComparableError(msg)
        if self.previous.header.shard != header.shard:
            msg = (
                f"--resume {self.req.resume}: the recorded run is shard "
                f"{self.previous.header.shard}, this one {header.shard}"
            )
            raise NotComparableError(msg)

    # -- envelope --------------------------------------------------------------------------

    def envelope(self, header: Header) -> Envelope:
        asked = set(header.item_ids)
        last = len(self.rank)
        with self.lock:  # workers of a concurrent loop add records while it runs
            records = list(self.records.items())
        items = sorted(
            (r for i, r in records if i in asked),
            key=lambda r: self.rank.get(r.id, last),  # stable: unranked keep their order
        )
        commits = sorted({r.commit for r in items if r.commit})
        header = header.model_copy(
            update={
                "infra_errors": sum(1 for r in items if r.status == "infra_error"),
                "item_errors": sum(1 for r in items if r.status == "error"),
                "commits": commits,
            }
        )
        env = Envelope(header=header, items=items, setup=dict(self.setup))
        env.summary = self.cls.summarise(env).model_dump(mode="json", by_alias=True)
        return env

    def snapshot(self, out: Path, header: Header, *, force: bool = False) -> Envelope | None:
        now = time.perf_counter()
        if not force and now - self.last_snapshot < _SNAPSHOT_EVERY_S:
            return None
        self.last_snapshot = now
        env = self.envelope(header)
        write_json(out / RESULTS, env)
        return env


def _load_previous(req: RunRequest, suite: type[Suite]) -> Envelope:
    assert req.resume is not None
    folder = req.resume
    path = folder / RESULTS
    env = load_envelope(path, suite=suite.name, legacy=legacy_converters())
    logged = read_item_log(folder / ITEM_LOG)
    if logged:  # the log is newer than the last snapshot
        merged = {r.id: r for r in env.items}
        merged.update({r.id: r for r in logged})
        env.items = list(merged.values())
    return env


def load_baseline(path: Path, label: str, suite: type[Suite]) -> Envelope:
    env = load_envelope(path, suite=suite.name, legacy=legacy_converters())
    gate_engine.check_baseline(env, label)
    return env


def _plan(state: _Run, label: str) -> tuple[Header, list[Item]]:
    """List, select, shard and filter the items; the header; what is left to run."""
    suite, cls, req = state.suite, state.cls, state.req
    all_items = list(suite.items())
    _check_ids(cls, all_items)
    selected = list(suite.select(all_items))
    state.filtered = len(selected) < len(all_items)
    asked = [i for i in selected if req.shard is None or req.shard.holds(i.id)]
    if req.only is not None:
        state.filtered = True
        wanted = set(req.only)
        unknown = sorted(wanted - {i.id for i in all_items})
        if unknown:
            msg = f"unknown {cls.item_noun} id(s): {', '.join(unknown)}"
            raise InvalidInputError(msg)
        asked = [i for i in asked if i.id in wanted]
    if not asked and not any(req.only is None or i.id in req.only for i in selected):
        msg = f"nothing to run: the {cls.item_noun} set is empty"
        raise InvalidInputError(msg)
    # A shard the hash gave no items (5 items in 3 shards can leave one empty) is still a
    # run: it completes with nothing in it, so the merge of all N shards can happen.
    header = state.make_header(all_items, asked)
    pending = suite.header_fields().pending  # known once setup built the system
    state.refuse_unlike_previous(header, skip=pending)
    if state.baseline is not None:
        gate_engine.refuse_unlike(cls, state.baseline, _probe(header), label, skip=pending)
    done: set[str] = set()
    if state.previous is not None:
        state.records = {r.id: r for r in state.previous.items if r.status != "infra_error"}
        state.setup = dict(state.previous.setup)
        done = set(state.records)
        prev = state.previous.header
        # What setup learns (a plug-in's embedder) is unknown (None) until it runs again, and
        # it may not run (nothing left to do): fill those from the recorded run.
        specs = {
            k: getattr(prev, k)
            for k in ("system", "embedder", "model", "judge")
            if getattr(header, k) is None
        }
        known = {k: v for k, v in header.settings.items() if v is not None}
        header = header.model_copy(
            update={
                "run": prev.run.model_copy(update={"argv": req.argv}),
                **specs,
                "settings": {**prev.settings, **known},
            }
        )
    return header, [i for i in asked if i.id not in done]


def run(suite: Suite, req: RunRequest) -> RunOutcome:
    """Run `suite` as `req` asks; see the module docstring for what it owns."""
    cls = type(suite)
    gate_engine.check_tolerance(req.tolerance)
    resolve_jobs(suite, req.jobs)  # a refused --jobs costs nothing
    check_preflight(suite)
    out = req.resume or req.out or default_run_dir(cls.name)
    if req.resume is None:
        check_out_dir(out, resuming=False)
    elif not (out / RESULTS).is_file():
        msg = f"--resume {out}: no {RESULTS} there; pass the folder of an earlier run"
        raise InvalidInputError(msg)
    # The folder's own lock, whatever the eval lock does (GAIA_EVAL_NO_LOCK, another lock
    # folder): two runs appending to one items.jsonl would both run the same items.
    with run_dir_lock(out):
        return _run_locked(suite, req, out)


def _run_locked(suite: Suite, req: RunRequest, out: Path) -> RunOutcome:
    cls = type(suite)
    state = _Run(suite, req)
    state.jobs = resolve_jobs(suite, req.jobs)
    if req.resume is not None:
        state.previous = _load_previous(req, cls)
        if req.shard is None and state.previous.header.shard:
            req.shard = Shard.parse(state.previous.header.shard)
    check_out_dir(out, resuming=req.resume is not None)
    label = req.baseline_label or (str(req.baseline) if req.baseline else "")
    if req.baseline is not None:  # before anything runs: a bad baseline costs nothing
        state.baseline = load_baseline(req.baseline, label, cls)

    with eval_lock(req.command, wait=req.wait_lock) as beat, unwind_on_signals():
        state.beat = beat
        if req.resume is not None:
            drop_torn_tail(out / ITEM_LOG)
        try:
            header, todo = _plan(state, label)
        except BaseException:
            suite.teardown()  # items() may have made scratch folders
            raise
        current_run_dir["dir"] = out
        clean_stale_temp()
        said = estimate_line(
            f"{cls.name} {header.tier}",
            cls.item_noun,
            [suite.item_seconds(i) for i in todo],
            jobs=state.jobs,
        )
        if said is not None:  # before setup, which may start a model and take minutes itself
            note(said)

        def check_learned(updates: dict[str, object]) -> None:
            probe = header.model_copy(update=updates)
            state.refuse_unlike_previous(probe)
            if state.baseline is not None:
                gate_engine.refuse_unlike(cls, state.baseline, _probe(probe), label)

        ctx = RunContext(out_dir=out, check_header=check_learned)
        temp = Path(tempfile.mkdtemp(prefix=f"gaia-eval-run-{os.getpid()}-"))
        ctx.setup["_temp"] = str(temp)
        stop: BaseException | None = None
        limits.configure(state.jobs)  # before setup: it may call the backends too
        try:
            if state.previous is None:
                write_json(out / RESULTS, state.envelope(header))
            if todo:
                try:
                    suite.setup(ctx, todo)
                finally:  # what setup measured before it failed is kept, too
                    state.setup.update({k: v for k, v in ctx.setup.items() if k != "_temp"})
                    if req.keep_temp:
                        state.setup["_temp"] = str(temp)
                todo = list(suite.ordered(todo, ctx))
                state.rank = _rank(header.item_ids, [i.id for i in todo])
                if ctx.header_updates:
                    header = header.model_copy(update=ctx.header_updates)
                    state.refuse_unlike_previous(header)
                    if state.baseline is not None:
                        gate_engine.refuse_unlike(cls, state.baseline, _probe(header), label)
            if state.jobs > 1 and len(todo) > 1:
                stop = _loop_concurrent(state, ctx, header, todo, out)
            else:
                stop = _loop(state, ctx, header, todo, out)
            if stop is None:
                _after_items(state, ctx, header, out)
        except BaseException as err:
            stop = err
        finally:
            try:
                suite.teardown()
            except Exception as err:  # teardown must not hide the run's own outcome
                header.errors.append(f"teardown: {describe(err)}")
            if not req.keep_temp:
                shutil.rmtree(temp, ignore_errors=True)
    return _finish(state, header, out, stop, label)


def resolve_jobs(suite: Suite, jobs: int | None) -> int:
    """Items in flight for this run: `--jobs` when given (checked against the suite's
    opt-in), else the suite's default. Refusals are exit 2 naming the suite."""
    cls = type(suite)
    if jobs is not None and cls.jobs_refused is not None:
        msg = f"--jobs: the {cls.name} suite does not take --jobs ({cls.jobs_refused})"
        raise InvalidInputError(msg)
    if jobs is not None and jobs < 1:
        msg = f"--jobs {jobs}: expected a whole number >= 1"
        raise InvalidInputError(msg)
    if jobs is not None and jobs > 1 and not cls.concurrent_items:
        msg = (
            f"--jobs {jobs}: the {cls.name} suite runs its {cls.item_noun}s one at a time "
            "(it has not declared them safe to run concurrently); drop --jobs or pass --jobs 1"
        )
        raise InvalidInputError(msg)
    if jobs is not None:
        return jobs
    return max(1, suite.default_jobs()) if cls.concurrent_items else 1


def check_preflight(suite: Suite) -> None:
    """Stop before anything runs naming every dependency and credential the configured
    run needs but lacks (`Suite.preflight`) and every server it will call that does not
    answer (`Suite.endpoints`), all in one message."""
    from gaia_eval.core import reach

    refuse(list(suite.preflight()), reach.down(suite.endpoints()))


def refuse(missing: Sequence[str], down: Sequence[str] = ()) -> None:
    """The preflight's one message. Anything missing is exit 2 (the command or the
    install must change); only dead servers is exit 3 (an outage: nothing was measured,
    the same command works once the server is up)."""
    if not missing and not down:
        return
    parts = []
    if missing:
        parts.append(
            ("the run cannot start; missing:" if len(missing) > 1 else "the run cannot start:")
            + "".join(f"\n  - {p}" for p in missing)
        )
    if down:
        head = "not answering:" if missing else "the run cannot start; not answering:"
        parts.append(head + "".join(f"\n  - {d}" for d in down))
    msg = "\n".join(parts)
    if missing:
        raise InvalidInputError(msg)
    raise InfrastructureError(msg + "\nnothing was run")


def strip_run_dir_flags(argv: Sequence[str]) -> list[str]:
    """argv without --out and --resume (and their values)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--out", "--resume"):
            skip = True
        elif not arg.startswith(("--out=", "--resume=")):
            kept.append(arg)
    return kept


def resume_command(argv: Sequence[str], out: Path) -> str:
    """The command that finishes a stopped run in `out`."""
    import shlex

    return shlex.join(["gaia-eval", *strip_run_dir_flags(argv), "--resume", str(out)])


def _probe(header: Header) -> Envelope:
    return Envelope(header=header)


def _check_ids(cls: type[Suite], items: Sequence[Item]) -> None:
    seen: set[str] = set()
    for item in items:
        if not item.id or item.id != item.id.strip():
            msg = f"{cls.name}: {cls.item_noun} id {item.id!r} is empty or padded"
            raise InvalidInputError(msg)
        if item.id in seen:
            msg = f"{cls.name}: two {cls.item_noun}s share the id {item.id!r}"
            raise InvalidInputError(msg)
        seen.add(item.id)


def _rank(asked: Sequence[str], todo: Sequence[str]) -> dict[str, int]:
    """Each asked id's place in results.json: item order, with the slots of the items run
    now filled in the suite's run order (`Suite.ordered`), so a resumed or concurrent run
    lists its items exactly as one uninterrupted run with --jobs 1 does."""
    running = set(todo)
    seq = iter(todo)
    order = [next(seq) if i in running else i for i in asked]
    return {i: n for n, i in enumerate(order)}


def _run_one(state: _Run, ctx: RunContext, item: Item, commit: str | None) -> _Done:
    """Run one item; what it returned or raised as its record (any thread)."""
    cls = state.cls
    t0 = time.perf_counter()
    status: str = "ok"
    result = None
    error: str | None = None
    stop: BaseException | None = None
    try:
        model = state.suite.run_item(item, ctx)
        result = model.model_dump(mode="json", by_alias=True)
    except InfrastructureError as err:
        status, error = "infra_error", describe(err)
        if cls.stop_on_infra:
            stop = err
    except Exception as err:  # the system under test crashed on this item
        status, error = "error", describe(err)
        full = disk_full(err)
        if full is not None:  # a full disk is ours, not the system's: stop, resumable
            status, error, stop = "infra_error", describe(full), full
    gap = state.beat.suspended() if state.beat is not None else None
    if gap is not None:  # the item's timing spans the pause: unmeasured, and stop
        stop = InfrastructureError(
            f"the process did not run for {gap:.0f} s (the machine slept or the run was "
            "suspended), so every timing across the pause is wrong; the item in flight "
            "is left unmeasured"
        )
        status, result, error = "infra_error", None, describe(stop)
    rec = ItemRecord(
        id=item.id,
        status=status,  # type: ignore[arg-type]
        result=result,
        error=error,
        commit=commit,
        ran_at=now_iso(),
        seconds=round(time.perf_counter() - t0, 4),
    )
    return _Done(rec, stop)


@dataclass
class _Done:
    record: ItemRecord
    stop: BaseException | None = None
    raised: BaseException | None = None
    """A KeyboardInterrupt / SystemExit out of a worker thread, re-raised by the loop."""


def _keep(state: _Run, out: Path, rec: ItemRecord) -> None:
    """Log a finished item and count its cost (any thread: a worker saves its own item,
    so the loop never waits on another item's fsync to start the next one)."""
    append_record(out / ITEM_LOG, rec)
    cost = state.cls.item_cost_usd(rec)
    with state.lock:
        state.records[rec.id] = rec
        if cost is not None:
            state.spent_usd = round((state.spent_usd or 0.0) + cost, 6)


def _save(state: _Run, out: Path, header: Header, rec: ItemRecord) -> None:
    _keep(state, out, rec)
    state.snapshot(out, header)


def _budget_spent(state: _Run) -> bool:
    budget = state.req.budget_usd
    return budget is not None and (state.spent_usd or 0.0) >= budget


def _loop(
    state: _Run, ctx: RunContext, header: Header, todo: Sequence[Item], out: Path
) -> BaseException | None:
    cls = state.cls
    commit = header.run.commit
    desc = f"{cls.name} {header.tier}"
    for n, item in enumerate(track(todo, desc, total=len(todo), unit=cls.item_noun)):
        if _budget_spent(state):
            state.not_started = len(todo) - n
            return None
        done = _run_one(state, ctx, item, commit)
        _save(state, out, header, done.record)
        if done.stop is not None:
            return done.stop
    return None


def _loop_concurrent(
    state: _Run, ctx: RunContext, header: Header, todo: Sequence[Item], out: Path
) -> BaseException | None:
    """Up to `state.jobs` items in flight, each on its own thread (the work is waiting on
    models). Only this (main) thread saves records and sees signals: Ctrl-C / SIGTERM
    stops starting items, waits up to CANCEL_GRACE_S for those in flight (saving each),
    then goes on up; an outage stops starting items and lets the in-flight ones finish."""
    cls = state.cls
    commit = header.run.commit
    finished: queue.Queue[_Done] = queue.Queue()
    left = list(todo)
    left.reverse()  # pop() from the end takes them in run order
    in_flight = 0
    stop: BaseException | None = None

    def work(item: Item) -> None:
        try:
            done = _run_one(state, ctx, item, commit)
            _keep(state, out, done.record)
            finished.put(done)
        except BaseException as err:  # KeyboardInterrupt/SystemExit inside an item
            rec = ItemRecord(id=item.id, status="infra_error", error=describe(err), ran_at="")
            finished.put(_Done(rec, raised=err))

    def take(done: _Done) -> None:
        nonlocal in_flight, stop
        in_flight -= 1
        bar.finished(done.record.seconds)
        if done.raised is not None:  # never saved: the item did not finish
            stop = stop or done.raised
            return
        state.snapshot(out, header)
        if done.stop is not None and stop is None:
            stop = done.stop

    desc = f"{cls.name} {header.tier}"
    with live(desc, len(todo), unit=cls.item_noun, jobs=state.jobs, waiting=limits.waiting) as bar:
        try:
            while True:
                while left and in_flight < state.jobs and stop is None:
                    if _budget_spent(state):
                        state.not_started = len(left)
                        left.clear()
                        break
                    item = left.pop()
                    threading.Thread(
                        target=work, args=(item,), name=f"item {item.id}", daemon=True
                    ).start()
                    in_flight += 1
                    bar.started()
                if in_flight == 0:
                    break
                try:
                    take(finished.get(timeout=0.25))
                except queue.Empty:
                    bar.draw()
        except (KeyboardInterrupt, Terminated) as err:
            # Stop starting items; save those in flight that finish within the grace.
            bar.note(
                f"stopping: waiting up to {CANCEL_GRACE_S:.0f} s for {in_flight} "
                f"{cls.item_noun}(s) in flight (Ctrl-C again to stop now)"
            )
            deadline = time.monotonic() + CANCEL_GRACE_S
            try:
                while in_flight and time.monotonic() < deadline:
                    try:
                        take(finished.get(timeout=min(0.25, deadline - time.monotonic())))
                    except queue.Empty:
                        continue
            except (KeyboardInterrupt, Terminated):
                pass
            raise err from None
    if isinstance(stop, (KeyboardInterrupt, SystemExit)):
        raise stop
    return stop


def _after_items(state: _Run, ctx: RunContext, header: Header, out: Path) -> None:
    """The suite's pass over all finished items; saves every result it changed."""
    if type(state.suite).after_items is Suite.after_items:
        return
    asked = set(header.item_ids)
    recs = {
        i: r
        for i, r in state.records.items()
        if i in asked and r.status == "ok" and r.result is not None
    }
    results = {i: state.cls.item_model.model_validate(r.result) for i, r in recs.items()}
    try:
        state.suite.after_items(ctx, results)
    finally:
        for i, model in results.items():
            data = model.model_dump(mode="json", by_alias=True)
            if i in recs and data != recs[i].result:
                rec = recs[i].model_copy(update={"result": data})
                state.records[i] = rec
                append_record(out / ITEM_LOG, rec)


def _concurrency(state: _Run) -> Concurrency:
    """What the header records of how items ran at once and what held them back."""
    seen = limits.usage()
    endpoints = {
        key: EndpointRecord(
            cap=u.cap, requests=u.requests, throttled=u.throttled, backoff_s=round(u.backoff_s, 3)
        )
        for key, u in seen.items()
    }
    return Concurrency(
        jobs=state.jobs,
        endpoints=endpoints,
        backoff_s=round(sum(u.backoff_s for u in seen.values()), 3),
        budget_usd=state.req.budget_usd,
        spent_usd=state.spent_usd,
        not_started=state.not_started,
    )


def write_outputs(suite: type[Suite], out: Path, env: Envelope) -> dict[str, Path]:
    """results.json, report.md and report.html of `env` in `out` (a run rewritten after
    the run loop, e.g. judged or gated later, keeps its three files in step)."""
    return {
        "results": write_json(out / RESULTS, env),
        "report": write_text(out / "report.md", render_markdown(suite, env)),
        "html": write_text(out / "report.html", render_html(suite, env)),
    }


def _finish(
    state: _Run, header: Header, out: Path, stop: BaseException | None, label: str
) -> RunOutcome:
    cls = state.cls
    run_info = header.run
    elapsed = round(time.perf_counter() - state.t0, 3)
    prior = state.previous.header.run.duration_s if state.previous is not None else None
    header = header.model_copy(
        update={
            "run": run_info.model_copy(
                update={
                    "duration_s": round((prior or 0.0) + elapsed, 3),
                    "cpu_s": round(time.process_time() - state.cpu0, 3),
                }
            ),
            "concurrency": _concurrency(state),
        }
    )
    interrupted = isinstance(stop, KeyboardInterrupt)
    stop = disk_full(stop) or stop  # out of space anywhere in the run: an infra stop
    if stop is not None:
        header.errors.append(describe(stop))
    env = state.envelope(header)
    measured = {r.id for r in env.items if r.status != "infra_error"}
    env.header.complete = stop is None and all(i in measured for i in header.item_ids)
    env.header.interrupted = interrupted
    refusal: NotComparableError | None = None
    if state.baseline is not None:
        try:
            env.verdict = gate_engine.compare(
                cls, state.baseline, env, tolerance=state.req.tolerance, label=label
            )
        except NotComparableError as err:
            refusal = err
    elif state.req.threshold_gate is not None:
        env.verdict = state.req.threshold_gate(env)
    try:
        paths = write_outputs(cls, out, env)
    except OSError as err:
        full = disk_full(err)
        if full is None:
            raise
        # items.jsonl holds every finished item (results.json may be older): resume reads it.
        msg = (
            f"{full}\nwhen there is room, finish it with:\n  {resume_command(state.req.argv, out)}"
        )
        raise type(full)(msg) from err
    current_run_dir.pop("dir", None)
    if stop is not None:
        if isinstance(stop, InfrastructureError):
            resume = resume_command(state.req.argv, out)
            msg = (
                f"{stop}\nthe run stopped: {len(measured)} of {len(header.item_ids)} "
                f"{cls.item_noun}s are saved in {out}; when the backend is back, finish it with:\n"
                f"  {resume}"
            )
            outcome = RunOutcome(env, out, InfrastructureError.exit_code, paths)
            raise RunStopped(msg, outcome=outcome, cause=describe(stop), resume=resume) from stop
        if isinstance(stop, KeyboardInterrupt) and state.req.on_interrupt is not None:
            code = exit_code_for(stop)
            state.req.on_interrupt(
                RunOutcome(env, out, code, paths), resume_command(state.req.argv, out)
            )
        raise stop
    if refusal is not None:
        raise refusal
    reason = cls.unmeasured_reason(env)
    cause = None
    if reason is not None:
        cause, msg = reason, f"{reason}; the reasons are in {paths['results']}"
    elif env.header.infra_errors and len(measured) == 0:
        unmeasured = [r for r in env.items if r.status == "infra_error"]
        cause = (
            f"all {len(unmeasured)} {cls.item_noun}s hit infrastructure errors "
            f"(first: {unmeasured[0].error})"
        )
        msg = f"nothing was measured: {cause}; the reasons are in {paths['results']}"
    if cause is not None:
        outcome = RunOutcome(env, out, InfrastructureError.exit_code, paths)
        resume = resume_command(state.req.argv, out)
        raise RunStopped(msg, outcome=outcome, cause=cause, resume=resume, unmeasured=True)
    failed = env.header.item_errors > 0 or (env.verdict is not None and not env.verdict.passed)
    return RunOutcome(env, out, EXIT_GATE_FAILED if failed else EXIT_OK, paths)


__all__ = [
    "RunOutcome",
    "RunRequest",
    "RunStopped",
    "Shard",
    "append_record",
    "check_preflight",
    "clean_stale_temp",
    "drop_torn_tail",
    "load_baseline",
    "read_item_log",
    "refuse",
    "resolve_jobs",
    "resume_command",
    "run",
    "run_dir_lock",
    "strip_run_dir_flags",
    "write_outputs",
]
