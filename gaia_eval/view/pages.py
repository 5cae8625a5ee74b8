"""The view's pages as HTML strings: Now, History (per suite), Compare, Flaky.

Self-contained: styles and the one small filter script are inline, nothing is fetched.
Links are relative, so the same pages work served (`server`) and as files (`site`). Every
value is HTML-escaped; the values themselves come scrubbed from results I/O.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from gaia_eval.view.catalog import Catalog, Flaky
from gaia_eval.view.chart import Point, history_svg
from gaia_eval.view.digest import RunRow
from gaia_eval.view.index import IndexedRun

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222}
nav{background:#24292f;padding:8px 16px}nav a{color:#fff;margin-right:16px;text-decoration:none}
main{padding:8px 16px}table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.pass{color:#1a7f37;font-weight:600}.fail{color:#cf222e;font-weight:600}
.incomplete,.errors,.unreadable{color:#9a6700;font-weight:600}pre{white-space:pre-wrap;margin:0;
max-height:24em;overflow:auto;font-size:12px}.side{display:grid;grid-template-columns:1fr 1fr;
gap:8px}.muted{color:#666}
"""

# Hides the History page's points and rows of other configurations (no redraw needed).
_FILTER_SCRIPT = """
document.getElementById('filter').addEventListener('change', function (ev) {
  var want = ev.target.value;
  document.querySelectorAll('[data-config]').forEach(function (el) {
    el.style.display = (want === '' || el.dataset.config === want) ? '' : 'none';
  });
});
"""


def e(value: object) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def layout(title: str, body: str, script: str = "") -> str:
    tail = f"<script>{script}</script>" if script else ""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)} · gaia-eval view</title><style>{_STYLE}</style></head><body>"
        '<nav><a href="index.html">Now</a><a href="flaky.html">Flaky items</a></nav>'
        f"<main><h1>{e(title)}</h1>{body}</main>{tail}</body></html>"
    )


def slug(suite: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", suite)


def history_href(suite: str) -> str:
    return f"history-{slug(suite)}.html"


def compare_href(a: IndexedRun, b: IndexedRun) -> str:
    return f"compare-{a.key}-{b.key}.html"


def report_href(run: IndexedRun) -> str:
    return f"runs/{run.key}/report.html"


def metric_text(row: RunRow) -> str:
    if row.metric is None or row.low is None or row.high is None:
        return "–"
    return f"{row.metric:.3f} [{row.low:.3f}, {row.high:.3f}] ({row.passed}/{row.measured})"


def age(started: str, now: datetime) -> str:
    try:
        then = datetime.fromisoformat(started)
    except ValueError:
        return "–"
    if then.tzinfo is None:
        then = then.astimezone()
    secs = max(0, int((now - then).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if secs >= size:
            return f"{secs // size} {unit}"
    return f"{secs} s"


def _verdict(row: RunRow) -> str:
    title = f' title="{e(row.failures or row.error)}"' if (row.failures or row.error) else ""
    cls = row.verdict.replace(" ", "-")
    return f'<span class="{cls}"{title}>{e(row.verdict)}</span>'


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], attrs: Sequence[str] = ()) -> str:
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    body = "".join(
        f"<tr{attrs[i] if i < len(attrs) else ''}>{''.join(f'<td>{c}</td>' for c in r)}</tr>"
        for i, r in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _short(commit: str | None) -> str:
    return commit[:10] if commit else "–"


def has_report(run: IndexedRun) -> bool:
    return (run.folder / "report.html").is_file()


# ---- Now ------------------------------------------------------------------------------


def now_page(catalog: Catalog, now: datetime | None = None) -> str:
    now = now or datetime.now().astimezone()
    latest: dict[tuple[str, str, str, str], IndexedRun] = {}
    broken: list[IndexedRun] = []
    for run in catalog.runs():  # oldest first: the last one per key wins
        row = run.row
        if row.verdict == "unreadable":
            broken.append(run)
            continue
        latest[(row.suite, row.tier, row.system or "", row.model or "")] = run
    rows = []
    for (suite, tier, system, model), run in sorted(latest.items()):
        row = run.row
        link = f'<a href="{e(report_href(run))}">report</a>' if has_report(run) else "–"
        rows.append(
            [
                f'<a href="{e(history_href(suite))}">{e(suite)}</a>',
                e(tier),
                e(system or "–"),
                e(model or "–"),
                e(row.started),
                _verdict(row),
                e(row.headline or "–"),
                e(metric_text(row)),
                e(age(row.started, now)),
                link,
            ]
        )
    body = _table(
        ["suite", "tier", "system", "model", "last run", "verdict", "headline",
         "items passed [95% Wilson]", "age", "report"],
        rows,
    )  # fmt: skip
    if broken:
        body += "<h2>Unreadable run folders</h2>" + _table(
            ["folder", "why"], [[e(r.path), f"<pre>{e(r.row.error)}</pre>"] for r in broken]
        )
    if not rows and not broken:
        body = "<p>No runs under these results folders yet.</p>"
    return layout("Now", body)


# ---- History --------------------------------------------------------------------------


def config_label(row: RunRow) -> str:
    parts = [f"{k}={v}" for k, v in (("system", row.system), ("model", row.model),
             ("embedder", row.embedder)) if v]  # fmt: skip
    return ", ".join(parts) or "(default)"


def previous_of(runs: Sequence[IndexedRun]) -> dict[str, IndexedRun]:
    """run key -> the run before it of the same configuration."""
    last: dict[str, IndexedRun] = {}
    out: dict[str, IndexedRun] = {}
    for run in runs:
        if run.row.config in last:
            out[run.key] = last[run.row.config]
        last[run.row.config] = run
    return out


def history_page(catalog: Catalog, suite: str, *, live: bool = False) -> str:
    runs = [r for r in catalog.runs(suite) if r.row.verdict != "unreadable"]
    prev = previous_of(runs)
    points = [
        Point(
            label=_short(r.row.commit) if r.row.commit else r.row.started[5:16],
            value=r.row.metric,
            low=r.row.low,
            high=r.row.high,
            failed=r.row.verdict == "fail",
            config=config_label(r.row),
            title=f"{r.row.started} {_short(r.row.commit)} {r.row.verdict} {metric_text(r.row)}",
        )
        for r in runs
    ]
    baselines = [r.row.baseline_metric for r in runs if r.row.baseline_metric is not None]
    configs = sorted({p.config for p in points})
    options = "".join(f'<option value="{e(c)}">{e(c)}</option>' for c in configs)
    body = (
        f'<p><label>system / model / embedder: <select id="filter"><option value="">all</option>'
        f"{options}</select></label></p>"
        + history_svg(points, baselines[-1] if baselines else None)
    )
    rows, attrs = [], []
    for r in reversed(runs):
        before = prev.get(r.key)
        link = f'<a href="{e(compare_href(before, r))}">with previous</a>' if before else "–"
        report = f'<a href="{e(report_href(r))}">report</a>' if has_report(r) else "–"
        rows.append(
            [e(r.row.started), e(_short(r.row.commit)), e(r.row.tier), e(config_label(r.row)),
             _verdict(r.row), e(metric_text(r.row)), e(r.row.headline or "–"), report, link]
        )  # fmt: skip
        attrs.append(f' data-config="{e(config_label(r.row))}"')
    body += _table(
        ["started", "commit", "tier", "configuration", "verdict", "items passed", "headline",
         "report", "compare"],
        rows,
        attrs,
    )  # fmt: skip
    if live and len(runs) > 1:
        choices = "".join(
            f'<option value="{r.key}">{e(r.row.started)} {e(_short(r.row.commit))} '
            f"{e(config_label(r.row))}</option>"
            for r in reversed(runs)
        )
        body += (
            '<form action="compare" method="get"><h2>Compare any two runs</h2>'
            f'<label>baseline <select name="a">{choices}</select></label> '
            f'<label>current <select name="b">{choices}</select></label> '
            '<button type="submit">compare</button></form>'
        )
    return layout(f"History: {suite}", body, _FILTER_SCRIPT)


# ---- Flaky ----------------------------------------------------------------------------


def flaky_page(catalog: Catalog) -> str:
    found: list[Flaky] = catalog.flaky()
    if not found:
        return layout(
            "Flaky items", "<p>No item changed outcome between runs of one configuration.</p>"
        )
    rows = [
        [e(f.suite), e(_config_text(f.config)), e(f.item), e(f.flips), e(" → ".join(f.outcomes))]
        for f in found
    ]
    note = (
        "<p class=muted>Items whose outcome changed between runs of the same configuration "
        "(unmeasured runs skipped): the items a gate should not trust.</p>"
    )
    return layout("Flaky items", note + _table(["suite", "configuration", "item", "flips",
                  "outcomes, oldest first"], rows))  # fmt: skip


def _config_text(config: str) -> str:
    try:
        fields: dict[str, Any] = json.loads(config)
    except ValueError:
        return config
    keep = {k: v for k, v in fields.items() if v is not None and k != "definition_digest"}
    return ", ".join(f"{k}={v}" for k, v in keep.items())


# ---- Compare --------------------------------------------------------------------------

Comparer = Callable[[IndexedRun, IndexedRun], Any]


def _record_text(record: Any) -> str:
    if record is None:
        return "(absent)"
    data = record.model_dump(mode="json")
    return json.dumps(data, indent=1, ensure_ascii=False)[:20000]


def compare_page(catalog: Catalog, a: IndexedRun, b: IndexedRun, comparer: Comparer | None) -> str:
    from gaia_eval.view.digest import envelope

    head = _table(
        ["", "started", "commit", "configuration", "verdict", "items passed", "headline"],
        [
            [label, e(r.row.started), e(_short(r.row.commit)), e(_config_text(r.row.config)),
             _verdict(r.row), e(metric_text(r.row)), e(r.row.headline or "–")]
            for label, r in (("baseline", a), ("current", b))
        ],
    )  # fmt: skip
    body = head
    if comparer is not None:
        body += _comparison(a, b, comparer)
    else:
        body += "<p class=muted>No calls: this install has no comparison engine (core.compare).</p>"
    before = {i.id: i for i in catalog.items(a)}
    after = {i.id: i for i in catalog.items(b)}
    flipped = [
        (item_id, before[item_id].outcome, after[item_id].outcome)
        for item_id in after
        if item_id in before and before[item_id].outcome != after[item_id].outcome
    ]
    body += f"<h2>Flipped items ({len(flipped)})</h2>"
    if not flipped:
        body += "<p>No item changed outcome.</p>"
    else:
        env_a, env_b = envelope(a.folder), envelope(b.folder)
        rec_a, rec_b = env_a.records(), env_b.records()
        for item_id, was, now in flipped:
            body += (
                f'<h3 class="flip">{e(item_id)}: <span class="{e(was)}">{e(was)}</span> → '
                f'<span class="{e(now)}">{e(now)}</span></h3><div class="side">'
                f"<pre>{e(_record_text(rec_a.get(item_id)))}</pre>"
                f"<pre>{e(_record_text(rec_b.get(item_id)))}</pre></div>"
            )
    return layout(f"Compare: {a.row.suite}", body)


def _comparison(a: IndexedRun, b: IndexedRun, comparer: Comparer) -> str:
    """The comparison engine's calls and intervals (core.compare), or why there are none."""
    from gaia_eval.core.errors import InvalidInputError, NotComparableError

    try:
        cmp = comparer(a, b)
    except (NotComparableError, InvalidInputError) as err:
        return f"<p><b>Not compared:</b> {e(err)}</p>"
    rows = [
        [e(m.name), e(f"{m.baseline:.3f}"), e(f"{m.current:.3f}"), e(f"{m.delta:+.3f}"),
         e(f"[{m.low:+.3f}, {m.high:+.3f}]"), e(m.n), f'<b>{e(m.call)}</b>']
        for m in cmp.metrics
    ]  # fmt: skip
    out = "<h2>Calls</h2>" + _table(
        ["metric", "baseline", "current", "delta", "interval of delta", "items", "call"], rows
    )
    if cmp.notes:
        out += "<ul>" + "".join(f"<li>{e(n)}</li>" for n in cmp.notes) + "</ul>"
    return out
