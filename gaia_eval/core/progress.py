"""Progress bars for loops a person waits on; plain lines when stderr is not a terminal.

On a terminal, one line on stderr, redrawn at most every 0.1 s and cleared when the loop ends: the
description (scrubbed: it can name a user's file), a bar, `done/total` units, the elapsed
time and an ETA from the rate so far. Work inside one step moves the bar too: a loop run
inside a tracked step (the code index's embedding batches inside an item), or a long call
reporting `sub_progress` (the onnx embedder, per chunk, inside one document), draws no bar
of its own but fills the current step by its fraction and shows its count, so a large
document moves the bar chunk by chunk instead of jumping once at its end.

Off a terminal (a CI log, `| tee`) nothing is redrawn: one plain line (no bar, no escape
codes) each time the loop passes another 10% of its total, or 30 s after the last line,
and one when it ends. A loop that is over within its first 5 s prints nothing, so quick
loops do not fill a log.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from dataclasses import dataclass, field
from typing import TextIO, TypeVar

T = TypeVar("T")

_REDRAW_S = 0.1
_PLAIN_EVERY_S = 30.0
"""Off a terminal: a line at least this often, whatever the fraction."""
_PLAIN_QUIET_S = 5.0
"""Off a terminal: a loop done within this long prints nothing."""
_WIDTH = 24
_BLOCKS = " ▏▎▍▌▋▊▉█"


def _clock_text(seconds: float) -> str:
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def _plural(noun: str) -> str:
    if noun.endswith("s"):
        return noun
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "o", "u"):
        return noun[:-1] + "ies"
    return noun + "s"


@dataclass
class Bar:
    """The state and the rendering of one progress line (a clock can be injected)."""

    description: str
    total: int | None
    unit: str = "item"
    clock: Callable[[], float] = time.monotonic
    done: int = 0
    """Steps finished."""
    sub_done: int = 0
    sub_total: int = 0
    sub_what: str = ""
    """Work inside the current step: `sub_done` of `sub_total` `sub_what`."""
    started: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def advance(self) -> None:
        self.done += 1
        self.sub_done = self.sub_total = 0
        self.sub_what = ""

    def inside(self, done: int, total: int, what: str) -> None:
        self.sub_done, self.sub_total, self.sub_what = done, total, what

    @property
    def fraction_done(self) -> float:
        """Steps done, counting the current step's finished share."""
        part = self.sub_done / self.sub_total if self.sub_total > 0 else 0.0
        return self.done + min(part, 1.0)

    def eta(self) -> float | None:
        """Seconds left at the rate so far; None before anything finished or without a total."""
        done = self.fraction_done
        if self.total is None or done <= 0:
            return None
        elapsed = self.clock() - self.started
        return elapsed * max(self.total - done, 0.0) / done

    def _facts(self) -> tuple[str, str, str, str]:
        """(elapsed, plural unit, inner progress, ETA): what both kinds of line say."""
        elapsed = _clock_text(self.clock() - self.started)
        inner = f" · {self.sub_what} {self.sub_done}/{self.sub_total}" if self.sub_total else ""
        eta = self.eta()
        return elapsed, _plural(self.unit), inner, "–" if eta is None else _clock_text(eta)

    def line(self) -> str:
        elapsed, plural, inner, left = self._facts()
        if self.total is None or self.total <= 0:
            return f"{self.description}  {self.done} {plural}{inner} · {elapsed}"
        frac = min(self.fraction_done / self.total, 1.0)
        eighths = round(frac * _WIDTH * 8)
        full, part = divmod(eighths, 8)
        bar = "█" * full + (_BLOCKS[part] if part else "")
        bar = bar.ljust(_WIDTH)
        return (
            f"{self.description} |{bar}| {self.done}/{self.total} {plural}{inner}"
            f" · {elapsed} elapsed · ETA {left}"
        )

    def plain_line(self) -> str:
        """The line for a log: the same facts, no bar."""
        elapsed, plural, inner, left = self._facts()
        if self.total is None or self.total <= 0:
            return f"{self.description}: {self.done} {plural}{inner} · {elapsed} elapsed"
        pct = round(100 * min(self.fraction_done / self.total, 1.0))
        return (
            f"{self.description}: {self.done}/{self.total} {plural} ({pct}%){inner}"
            f" · {elapsed} elapsed · ETA {left}"
        )

    def decile(self) -> int:
        """How many tenths of the total are done (0 without a total)."""
        if self.total is None or self.total <= 0:
            return 0
        return int(10 * min(self.fraction_done / self.total, 1.0))


@dataclass
class _Active:
    bar: Bar
    stream: TextIO
    thread: int
    drawn: float = -1.0
    plain: bool = False
    """Off a terminal: lines appended at 10% steps and every 30 s, never redrawn."""
    said_decile: int = 0
    said: bool = False

    def draw(self, *, force: bool = False) -> None:
        now = self.bar.clock()
        if self.plain:
            self._plain(now)
            return
        if not force and self.drawn >= 0 and now - self.drawn < _REDRAW_S:
            return
        self.drawn = now
        self.stream.write("\r" + self.bar.line() + "\x1b[K")
        self.stream.flush()

    def _plain(self, now: float, *, last: bool = False) -> None:
        if now - self.bar.started < _PLAIN_QUIET_S:
            return
        since = now - (self.drawn if self.drawn >= 0 else self.bar.started)
        decile = self.bar.decile()
        if last or decile > self.said_decile or since >= _PLAIN_EVERY_S:
            self.drawn, self.said_decile, self.said = now, decile, True
            self.stream.write(self.bar.plain_line() + "\n")
            self.stream.flush()

    def clear(self) -> None:
        if self.plain:
            return
        self.stream.write("\r\x1b[K")
        self.stream.flush()

    def finish(self) -> None:
        """The end of the loop: a terminal's line is cleared; a log gets its last line
        (unless that line already said 100%)."""
        if not self.plain:
            self.clear()
        elif self.said_decile < 10 or not self.said:
            self._plain(self.bar.clock(), last=True)


_active: list[_Active] = []


def _current() -> _Active | None:
    if _active and _active[-1].thread == threading.get_ident():
        return _active[-1]
    return None


def sub_progress(done: int, total: int, what: str) -> None:
    """Report `done` of `total` `what` finished inside the current tracked step (a no-op
    when no bar is drawn in this thread)."""
    active = _current()
    if active is not None:
        active.bar.inside(done, total, what)
        active.draw()


def track(
    items: Iterable[T],
    description: str,
    total: int | None = None,
    *,
    unit: str = "item",
    stream: TextIO | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[T]:
    """Yield `items`, drawing a progress line on a terminal and plain lines otherwise
    (the module says when). Inside a step of another tracked loop (same thread) it draws
    nothing itself: it reports its count to that loop's line (`sub_progress`)."""
    if total is None and isinstance(items, Sized):
        total = len(items)
    parent = _current()
    if parent is not None:
        for n, item in enumerate(items):
            yield item
            sub_progress(n + 1, total or 0, description)
        return
    out = sys.stderr if stream is None else stream
    bar = Bar(scrubbed(description), total, unit, clock)
    active = _Active(bar, out, threading.get_ident(), plain=not out.isatty())
    _active.append(active)
    try:
        active.draw(force=True)
        for item in items:
            yield item
            active.bar.advance()
            active.draw()
    finally:
        _active.remove(active)
        active.finish()


LONG_RUN_S = 60.0
"""A run estimated to take at least this long says so before it starts."""


def duration_text(seconds: float) -> str:
    """`2 h 05 min`, `12 min`, `40 s`: a rough figure, never more precise than a minute."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    h, m = divmod(round(s / 60), 60)
    return f"{h} h {m:02d} min" if h else f"{m} min"


def estimate_line(
    what: str, noun: str, seconds: Sequence[float | None], jobs: int = 1
) -> str | None:
    """What a run says before its first item when each item's time is estimated: None
    when any is unknown or the whole is short. With `jobs` items in flight (--jobs) the
    wall time is the sum over N, at best."""
    if not seconds or any(s is None for s in seconds):
        return None
    known = [s for s in seconds if s is not None]
    total = sum(known) / max(jobs, 1)
    if total < LONG_RUN_S:
        return None
    at_once = f", {jobs} at a time" if jobs > 1 else ""
    return (
        f"{what}: {len(known)} {_plural(noun) if len(known) != 1 else noun} at about "
        f"{duration_text(sum(known) / len(known))} each{at_once}: expect about "
        f"{duration_text(total)} "
        "(estimated from an earlier run of this configuration); Ctrl-C keeps what finished "
        "and --resume DIR goes on"
    )


def note(message: str) -> None:
    """A one-line status message on stderr (kept off stdout, which carries results); a
    progress line being drawn is cleared first and drawn again below it."""
    active = _current()
    if active is not None:
        active.clear()
    print(scrubbed(message), file=sys.stderr, flush=True)
    if active is not None:
        active.draw(force=True)


def scrubbed(message: str) -> str:
    """`message` with secrets redacted, for stderr: an error can quote the user's input
    (a label, a URL with its password), and terminals end up in logs and screenshots."""
    from gaia_eval.core.errors import GaiaEvalError
    from gaia_eval.core.results_io import scrub_text

    try:
        return scrub_text(message)
    except GaiaEvalError as err:  # a secret survived redaction: say so, show nothing
        return f"(message withheld: {err})"
    except ImportError:  # pragma: no cover - a checkout without the native core built
        return "(message withheld: the native scrubber is not built; run `nox -s native`)"


@dataclass
class LiveBar:
    """The progress of items run N at a time: in flight, done and left, with an ETA from
    the measured per-item time and N, and any backoff the backends asked for."""

    description: str
    total: int
    unit: str = "item"
    jobs: int = 1
    waiting: Callable[[], float] | None = None
    """Seconds of backoff still running (core.limits.waiting)."""
    stream: TextIO | None = None
    clock: Callable[[], float] = time.monotonic
    in_flight: int = 0
    done: int = 0
    item_seconds: float = 0.0
    """Seconds of all finished items, summed (their mean is the per-item time)."""
    started_at: float = field(default=0.0)
    drawn: float = -1.0

    def __post_init__(self) -> None:
        self.started_at = self.clock()
        self._lock = threading.Lock()

    def started(self) -> None:
        with self._lock:
            self.in_flight += 1
        self.draw()

    def finished(self, seconds: float) -> None:
        with self._lock:
            self.in_flight = max(0, self.in_flight - 1)
            self.done += 1
            self.item_seconds += seconds
        self.draw()

    def eta(self) -> float | None:
        """Seconds left: the items not started plus half of those in flight, at the mean
        measured item time, N at a time; None before anything finished."""
        if self.done == 0:
            return None
        per_item = self.item_seconds / self.done
        waiting = max(self.total - self.done - self.in_flight, 0) + self.in_flight / 2
        return per_item * waiting / max(self.jobs, 1)

    def line(self) -> str:
        plural = _plural(self.unit)
        left = max(self.total - self.done - self.in_flight, 0)
        eta = self.eta()
        elapsed = _clock_text(self.clock() - self.started_at)
        text = (
            f"{self.description} · {self.in_flight} in flight · {self.done}/{self.total} "
            f"{plural} done · {left} left · jobs {self.jobs} · {elapsed} elapsed · "
            f"ETA {'–' if eta is None else _clock_text(eta)}"
        )
        wait = self.waiting() if self.waiting is not None else 0.0
        if wait > 0:
            text += f" · backing off {wait:.0f} s"
        return text

    def draw(self, *, force: bool = False) -> None:
        if self.stream is None:
            return
        now = self.clock()
        if not force and self.drawn >= 0 and now - self.drawn < _REDRAW_S:
            return
        self.drawn = now
        self.stream.write("\r" + self.line() + "\x1b[K")
        self.stream.flush()

    def note(self, message: str) -> None:
        """A status line on stderr below the bar (drawn or not)."""
        if self.stream is not None:
            self.stream.write("\r\x1b[K")
        print(scrubbed(message), file=sys.stderr, flush=True)
        self.draw(force=True)


class _LiveContext:
    def __init__(self, bar: LiveBar) -> None:
        self.bar = bar

    def __enter__(self) -> LiveBar:
        self.bar.draw(force=True)
        return self.bar

    def __exit__(self, *exc: object) -> None:
        if self.bar.stream is not None:
            self.bar.stream.write("\r\x1b[K")
            self.bar.stream.flush()


def live(
    description: str,
    total: int,
    *,
    unit: str = "item",
    jobs: int = 1,
    waiting: Callable[[], float] | None = None,
    stream: TextIO | None = None,
) -> _LiveContext:
    """A LiveBar drawn on a terminal (stderr by default), silent otherwise."""
    out = sys.stderr if stream is None else stream
    shown = out if out.isatty() else None
    bar = LiveBar(scrubbed(description), total, unit, jobs, waiting, shown)
    return _LiveContext(bar)
