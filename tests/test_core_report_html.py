"""report.html is self-contained and opens in a real browser with no console errors.

The browser is Debian's `chromium`, headless. `.ci/run` installs it and sets
GAIA_EVAL_REQUIRE_CHROMIUM=1, so in CI a missing browser fails instead of skipping.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gaia_eval.core import charts
from gaia_eval.core.report import Chart, Report, Section, render_html

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite

from gaia_eval.core.results import Envelope, Header, ItemRecord, RunInfo
from gaia_eval.core.runmeta import machine


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("GAIA_EVAL_REQUIRE_CHROMIUM") == "1":
        pytest.fail("GAIA_EVAL_REQUIRE_CHROMIUM=1 but no chromium on PATH (apt install chromium)")
    pytest.skip("no chromium on PATH (Debian: apt install chromium)")


def console_messages(page: Path) -> list[str]:
    """Every console message the page produced when loaded headless (errors included)."""
    # A profile of its own: parallel test workers never share (or lock) one.
    with tempfile.TemporaryDirectory(prefix="gaia-eval-test-chromium-") as profile:
        proc = subprocess.run(
            [_browser(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--dump-dom",
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert "<body" in proc.stdout, proc.stderr[-2000:]
    return [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]


def _envelope() -> Envelope:
    head = Header(
        suite="toy",
        tier="t1",
        definition_digest="0" * 64,
        items_total=3,
        item_ids=["a", "b", "c"],
        complete=False,
        infra_errors=1,
        run=RunInfo(package_version="0", commit=None, dirty=None, started="now", machine=machine()),
    )
    items = [
        ItemRecord(id="a", status="ok", result={"value": 0.9, "passed": True}, ran_at="t"),
        ItemRecord(id="b", status="ok", result={"value": 0.2, "passed": False}, ran_at="t"),
        ItemRecord(id="c", status="infra_error", error="<script>alert(1)</script>", ran_at="t"),
    ]
    env = Envelope(header=head, items=items)
    env.summary = ToySuite.summarise(env).model_dump()
    return env


def test_report_html_is_self_contained_and_opens_without_console_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def sections(env: Envelope) -> list[Section]:
        pictures = [
            Chart(charts.bars(["a", "b"], [0.9, 0.2]), "values per item"),
            Chart(charts.histogram([1, 2, 2, 3, 8, 9], unit=" ms"), "latency"),
            Chart(
                charts.lines(
                    {"p50": [(1, 2.0), (2, 3.5)], "p99": [(1, 4.0), (2, 9.0)]},
                    x_label="concurrency",
                    y_label="ms",
                ),
                "latency vs load",
            ),
        ]
        return [Section("Pictures", list(pictures))]

    monkeypatch.setattr(ToySuite, "report", Report(sections=sections))
    html = render_html(ToySuite, _envelope())
    # Nothing to fetch and nothing to run: no scripts, no external references.
    assert "<script" not in html
    assert not re.search(r'(src|href)\s*=\s*"', html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # an item's error is escaped
    assert html.count("<svg") == 3
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    assert console_messages(page) == []


def test_the_console_check_sees_errors(tmp_path: Path) -> None:
    """The check above can fail: a page that throws is caught."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><body><script>undefined_fn()</script></body>")
    messages = console_messages(page)
    assert any("undefined_fn is not defined" in m for m in messages)


def _numbers(svg: str, anchor: str) -> list[float]:
    """The numeric labels of an SVG with the given text-anchor (y ticks are end-anchored)."""
    found = re.findall(
        rf'<text x="[\d.]+" y="[\d.]+" text-anchor="{anchor}">([-\d.e+]+)</text>', svg
    )
    return [float(v) for v in found]


def test_line_chart_has_round_y_ticks_and_a_legend_beside_the_plot() -> None:
    svg = charts.lines(
        {"sdk": [(1, 0.16), (5, 0.47), (20, 0.67)], "agent": [(1, 0.53), (5, 0.78)]},
        x_label="k",
        y_label="recall@k",
    )
    assert _numbers(svg, "end") == [0.0, 0.2, 0.4, 0.6, 0.8]  # covers the top value 0.78
    # Every point sits left of the legend's column, so a legend never covers a line.
    xs = [float(x) for x in re.findall(r'<circle cx="([\d.]+)"', svg)]
    legend = [float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+" fill=', svg)]
    assert len(legend) == 2 and max(xs) < min(legend) - 20


def test_histogram_has_a_y_axis_of_counts() -> None:
    svg = charts.histogram([1, 2, 2, 3, 8, 9] * 3, bins=4, unit=" ms")
    ticks = _numbers(svg, "end")
    assert ticks[0] == 0 and ticks[-1] >= 9 and all(t == int(t) for t in ticks)
    assert "count (n=18)" in svg


def test_ticks_are_round_and_cover_the_range() -> None:
    for hi in (0.07, 0.7818, 1.0, 3, 16.1, 52, 1234, 9.99e6):
        ticks = charts.nice_ticks(0, hi)
        assert ticks[0] == 0 and ticks[-1] >= hi and 2 <= len(ticks) <= 7
        steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
        assert len(steps) == 1


def test_verdicts_have_colour_and_a_symbol_and_headings_no_backticks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gaia_eval.core.report import Para, Table

    def sections(env: Envelope) -> list[Section]:
        table = Table(["case", "status"], [["a", "pass"], ["b", "**FAIL**"]], caption="Cases")
        return [Section("Dataset `repo_docs`", [Para("Gate **PASSED** against `x`."), table])]

    monkeypatch.setattr(ToySuite, "report", Report(sections=sections))
    html = render_html(ToySuite, _envelope())
    assert '<td><span class="pass">\u2713 pass</span></td>' in html
    assert '<td><span class="fail">\u2717 FAIL</span></td>' in html
    assert '<strong><span class="pass">\u2713 PASSED</span></strong>' in html
    assert "<h2>Dataset <code>repo_docs</code></h2>" in html
    assert not re.search(r"<h[12]>[^<]*`", html)
    assert "caption{caption-side:top;text-align:left" in html  # flush with its table
