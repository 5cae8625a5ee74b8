"""report.html is self-contained and opens in a real browser with no console errors.

The browser is Debian's `chromium`, headless. `.ci/run` installs it and sets
GAIA_EVAL_REQUIRE_CHROMIUM=1, so in CI a missing browser fails instead of skipping.
"""

from __future__ import annotations

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
