"""compare.md and compare.html link each flipped item to its record in both runs (copies
under records/ beside the comparison) and to each run's report.html; the page opens in
headless Chromium with no console errors and its links resolve."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core import runloop
from gaia_eval.core.compare.records import record_name
from gaia_eval.core.report import Para, Section, page_html
from gaia_eval.core.runloop import RunRequest

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite
from test_core_report_html import console_messages


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _toy(tmp_path: Path, name: str, rows: dict[str, dict[str, object]]) -> Path:
    items = tmp_path / f"{name}.items.json"
    items.write_text(json.dumps(rows))
    out = tmp_path / name
    assert (
        runloop.run(ToySuite(items), RunRequest(command="t", argv=["toy"], out=out)).exit_code == 0
    )
    return out


def _rows() -> dict[str, dict[str, object]]:
    return {f"q{i:02d}": {"value": 0.5 + (i % 10) / 20} for i in range(12)}


def test_flipped_items_link_to_both_records_and_reports(tmp_path: Path) -> None:
    base = _toy(tmp_path, "base", _rows())
    rows = _rows()
    rows["q05"]["now"] = 0.1  # q05 fails now
    cur = _toy(tmp_path, "cur", rows)
    out = tmp_path / "cmp"
    assert main(["compare", str(base), str(cur), "--out", str(out), "--resamples", "2000"]) == 0
    data = json.loads((out / "compare.json").read_text())
    flip = next(f for f in data["flips"] if f["metric"] == "passed")
    assert flip["item"] == "q05"
    assert flip["baseline_link"] == f"records/baseline/{record_name('q05')}"
    assert flip["current_link"] == f"records/current/{record_name('q05')}"
    before = json.loads((out / flip["baseline_link"]).read_text())
    after = json.loads((out / flip["current_link"]).read_text())
    assert (before["id"], before["result"]["passed"]) == ("q05", True)
    assert (after["id"], after["result"]["passed"]) == ("q05", False)
    assert data["baseline"]["report"] == "../base/report.html"
    assert data["current"]["report"] == "../cur/report.html"
    md = (out / "compare.md").read_text()
    assert f"[q05](records/baseline/{record_name('q05')})" in md
    assert "([report](../cur/report.html))" in md
    page = out / "compare.html"
    text = page.read_text()
    hrefs = re.findall(r'<a href="([^"]+)">', text)
    assert f"records/current/{record_name('q05')}" in hrefs and "../base/report.html" in hrefs
    for href in hrefs:  # every link resolves from the page's folder
        assert (out / href).is_file(), href
    assert console_messages(page) == []


def test_a_shipped_baseline_links_its_record_copy_and_no_report(tmp_path: Path) -> None:
    out = tmp_path / "m"
    assert main(["memory", "--suite", "pr", "--out", str(out), "--system",
                 "gaia_eval.memory.controls:never_supersedes"]) in (0, 1)  # fmt: skip
    cmp = tmp_path / "cmp"
    assert (
        main(["compare", "builtin:memory/pr", str(out), "--out", str(cmp), "--resamples", "500"])
        == 1
    )
    data = json.loads((cmp / "compare.json").read_text())
    assert data["baseline"]["report"] is None and data["current"]["report"] == "../m/report.html"
    assert data["flips"] and all((cmp / f["baseline_link"]).is_file() for f in data["flips"])


def test_record_names_are_safe_and_distinct() -> None:
    names = {record_name(i) for i in ("a/b", "a_b", "../x", "é", "a b", "")}
    assert len(names) == 6
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+\.json", n) and not n.startswith(".") for n in names)


def test_only_relative_links_become_anchors(tmp_path: Path) -> None:
    page = page_html(
        "t",
        "",
        [
            Section(
                "s", [Para("[ok](records/a.json) [bad](javascript:alert(1)) [x](https://e.org)")]
            )
        ],
    )
    assert '<a href="records/a.json">ok</a>' in page
    assert (
        "javascript:alert" in page and 'href="javascript' not in page and 'href="https' not in page
    )
