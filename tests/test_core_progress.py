"""Progress lines: the ETA from the rate so far, movement inside a step (chunks within a
document), one line redrawn on a terminal, nothing when stderr is not a terminal."""

from __future__ import annotations

import io

from gaia_eval.core import progress
from gaia_eval.core.progress import Bar, sub_progress, track


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_line_shows_done_elapsed_and_an_eta_from_the_rate_so_far() -> None:
    clock = _Clock()
    bar = Bar("indexing toy", 10, "document", clock)
    assert bar.line() == (
        "indexing toy |                        | 0/10 documents · 0:00 elapsed · ETA –"
    )
    clock.now += 10
    bar.advance()
    bar.advance()
    # 2 of 10 in 10 s: 8 more at 5 s each.
    assert bar.eta() == 40.0
    assert bar.line().endswith("| 2/10 documents · 0:10 elapsed · ETA 0:40")
    assert "|████▊" in bar.line()  # 2/10 of 24 cells: 4.8


def test_work_inside_a_step_moves_the_bar_and_the_eta() -> None:
    clock = _Clock()
    bar = Bar("indexing toy", 4, "document", clock)
    clock.now += 30
    bar.inside(60, 120, "chunks embedded")  # half of the first (large) document
    assert bar.fraction_done == 0.5
    assert bar.eta() == 30 * 3.5 / 0.5
    line = bar.line()
    assert "0/4 documents · chunks embedded 60/120 · 0:30 elapsed · ETA 3:30" in line
    assert "|███" in line  # 0.5/4 of 24 cells: 3
    bar.advance()  # the next step starts with no inner progress
    assert bar.fraction_done == 1.0 and "chunks" not in bar.line()


def test_hours_and_an_unknown_total() -> None:
    clock = _Clock()
    bar = Bar("replay", None, "commit", clock)
    clock.now += 3725
    bar.advance()
    assert bar.eta() is None
    assert bar.line() == "replay  1 commits · 1:02:05"


def test_track_draws_one_line_on_a_terminal_throttled_then_clears_it() -> None:
    clock = _Clock()
    tty = _Tty()
    seen = []
    for n in track(range(3), "indexing toy", unit="document", stream=tty, clock=clock):
        seen.append(n)
        clock.now += 0.5  # slower than the redraw interval: drawn
        for k in range(1, 4):
            sub_progress(k, 3, "chunks embedded")  # the same instant: throttled
        clock.now += 0.5
    assert seen == [0, 1, 2]
    text = tty.getvalue()
    frames = [f for f in text.split("\r") if f]
    assert frames[0].startswith("indexing toy |") and "0/3 documents" in frames[0]
    assert any("1/3 documents" in f and "ETA 0:02" in f for f in frames)
    assert sum("chunks embedded" in f for f in frames) == 3  # one per step, not per call
    assert text.endswith("\r\x1b[K")  # the line is cleared at the end
    assert "\n" not in text  # redrawn in place
    assert not progress._active


def test_a_loop_inside_a_tracked_step_reports_to_that_line() -> None:
    clock = _Clock()
    tty = _Tty()
    for _ in track(range(2), "quality", unit="query", stream=tty, clock=clock):
        for _batch in track(range(4), "embedding 256 chunks", stream=tty, clock=clock):
            clock.now += 0.5
    frames = [f for f in tty.getvalue().split("\r") if f]
    assert any("0/2 queries" in f and "embedding 256 chunks 2/4" in f for f in frames)
    assert all(not f.startswith("embedding") for f in frames)


def test_a_quick_loop_off_a_terminal_prints_nothing() -> None:
    plain = io.StringIO()
    assert list(track(range(3), "indexing", stream=plain)) == [0, 1, 2]
    sub_progress(1, 2, "chunks embedded")  # no bar: a no-op
    assert plain.getvalue() == ""


def test_off_a_terminal_a_plain_line_every_tenth_or_thirty_seconds() -> None:
    """A CI log or `| tee`: no bar, no escape codes, lines appended, never redrawn."""
    clock = _Clock()
    log = io.StringIO()
    for n in track(range(20), "suite toy", unit="question", stream=log, clock=clock):
        clock.now += 60 if n == 5 else 1  # one slow item: 30 s without a tenth passing
        if n == 5:
            sub_progress(1, 2, "chunks embedded")
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines() == [
        # nothing in the first 5 s; then the first line, whatever the tenth
        "suite toy: 5/20 questions (25%) · 0:05 elapsed · ETA 0:15",
        # the slow item: 30 s and more since the last line, with its inner progress
        "suite toy: 5/20 questions (28%) · chunks embedded 1/2 · 1:05 elapsed · ETA 2:51",
        # then one line per tenth passed, the last one at 100%
        "suite toy: 6/20 questions (30%) · 1:05 elapsed · ETA 2:32",
        "suite toy: 8/20 questions (40%) · 1:07 elapsed · ETA 1:40",
        "suite toy: 10/20 questions (50%) · 1:09 elapsed · ETA 1:09",
        "suite toy: 12/20 questions (60%) · 1:11 elapsed · ETA 0:47",
        "suite toy: 14/20 questions (70%) · 1:13 elapsed · ETA 0:31",
        "suite toy: 16/20 questions (80%) · 1:15 elapsed · ETA 0:19",
        "suite toy: 18/20 questions (90%) · 1:17 elapsed · ETA 0:09",
        "suite toy: 20/20 questions (100%) · 1:19 elapsed · ETA 0:00",
    ]
    assert not progress._active


def test_the_description_is_scrubbed() -> None:
    tty = _Tty()
    secret = "indexing https://user:hunter2secret@example.com/docs"
    list(track(range(1), secret, stream=tty, clock=_Clock()))
    assert "hunter2secret" not in tty.getvalue()
