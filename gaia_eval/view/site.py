"""The view's pages by name: what the server answers and what `--static` writes."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

from gaia_eval.core.results_io import write_text
from gaia_eval.view import pages
from gaia_eval.view.catalog import Catalog
from gaia_eval.view.comparing import comparer

_COMPARE = re.compile(r"compare-([0-9a-f]{12})-([0-9a-f]{12})\.html")
_HISTORY = re.compile(r"history-([A-Za-z0-9_.-]+)\.html")
_REPORT = re.compile(r"runs/([0-9a-f]{12})/report\.html")


def page(catalog: Catalog, name: str, *, live: bool = False) -> str | None:
    """The HTML of the page `name` (a relative URL path), or None when there is none."""
    if name in ("", "index.html"):
        return pages.now_page(catalog)
    if name == "flaky.html":
        return pages.flaky_page(catalog)
    if m := _HISTORY.fullmatch(name):
        suite = next((s for s in catalog.suites() if pages.slug(s) == m.group(1)), None)
        return None if suite is None else pages.history_page(catalog, suite, live=live)
    if m := _COMPARE.fullmatch(name):
        return compare(catalog, m.group(1), m.group(2))
    return None


def compare(catalog: Catalog, a_key: str, b_key: str) -> str | None:
    a, b = catalog.by_key(a_key), catalog.by_key(b_key)
    if a is None or b is None:
        return None
    return pages.compare_page(catalog, a, b, comparer())


def report_file(catalog: Catalog, name: str) -> Path | None:
    """The run's own report.html a `runs/<key>/report.html` link names."""
    if m := _REPORT.fullmatch(name):
        run = catalog.by_key(m.group(1))
        if run is not None and pages.has_report(run):
            return run.folder / "report.html"
    return None


def static_pages(catalog: Catalog) -> Iterator[tuple[str, str]]:
    """Every page of the static site: Now, Flaky, one History per suite, and a Compare of
    each run with the run before it of the same configuration."""
    yield "index.html", pages.now_page(catalog)
    yield "flaky.html", pages.flaky_page(catalog)
    for suite in catalog.suites():
        yield pages.history_href(suite), pages.history_page(catalog, suite)
        runs = [r for r in catalog.runs(suite) if r.row.verdict != "unreadable"]
        cmp = comparer()
        for key, before in pages.previous_of(runs).items():
            run = catalog.by_key(key)
            if run is not None:
                yield pages.compare_href(before, run), pages.compare_page(catalog, before, run, cmp)


def write_static(catalog: Catalog, out: Path) -> list[Path]:
    """Write the site into `out` (its runs' report.html copied beside it); the pages."""
    out.mkdir(parents=True, exist_ok=True)
    written = [write_text(out / name, html) for name, html in static_pages(catalog)]
    for run in catalog.runs():
        if pages.has_report(run):
            dest = out / pages.report_href(run)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(run.folder / "report.html", dest)
    return written
