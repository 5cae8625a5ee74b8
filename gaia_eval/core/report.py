"""The one report writer: report.md and a self-contained report.html for every suite.

The standard header comes first in both, in the order a reader needs it: what makes the
numbers untrustworthy (run errors, infrastructure errors and unmeasured items, an
interrupted run, mixed commits, the suite's own `warnings`), then the gate's verdict with
every flipped item, then the suite's headline numbers. Suites add sections made of blocks
(paragraphs, tables, charts); the same blocks render to markdown and to HTML. The HTML has
no scripts and loads nothing: charts are inline SVG, so the file reads offline and in any
browser.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gaia_eval.core.results import Envelope, Header, Verdict
from gaia_eval.core.results_io import scrub_text

if TYPE_CHECKING:
    from gaia_eval.core.suite import Suite


@dataclass(frozen=True)
class Para:
    """A paragraph of markdown-light text (`code` spans and **bold** are kept)."""

    text: str


@dataclass(frozen=True)
class Bullets:
    items: Sequence[str]


@dataclass(frozen=True)
class Table:
    headers: Sequence[str]
    rows: Sequence[Sequence[str]]
    caption: str | None = None


@dataclass(frozen=True)
class Chart:
    """An inline SVG picture (HTML only); markdown shows `alt` instead."""

    svg: str
    alt: str


Block = Para | Bullets | Table | Chart


@dataclass
class Section:
    title: str
    blocks: list[Block] = field(default_factory=list)


def _nothing(env: Envelope) -> list[Any]:
    return []


@dataclass(frozen=True)
class Report:
    """A suite's report, as pure functions of an envelope; a suite declares it as
    `report = ...`. The standard parts (model, trust, gate, run line) are the engine's."""

    headline: Callable[[Envelope], Sequence[tuple[str, str]]] = _nothing
    """The few numbers a person reads first: (label, value) pairs."""
    sections: Callable[[Envelope], Sequence[Section]] = _nothing
    """The suite's own report sections, after the standard header."""
    warnings: Callable[[Envelope], Sequence[str]] = _nothing
    """Suite-specific reasons to distrust the numbers (a document that did not index),
    listed first in the report with the run's errors and unmeasured items."""


NOTHING_MEASURED = "– (nothing measured)"
"""What a headline says for a metric over no items: never `0.000`, which reads as a score."""


def fmt(value: float | None, digits: int = 3) -> str:
    """A number for a table cell; missing is an en dash."""
    return "–" if value is None else f"{value:.{digits}f}"


# ---- the standard header -----------------------------------------------------------------


def _out_arg(argv: Sequence[str]) -> str | None:
    out: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--out" and i + 1 < len(argv):
            out = argv[i + 1]
        elif arg.startswith("--out="):
            out = arg.split("=", 1)[1]
    return out


def run_folder(argv: Sequence[str]) -> str:
    """The run's folder as its recorded command line gave it (`--out`), shell-quoted for a
    hint to copy; `DIR` when the run was not given one."""
    import shlex

    out = _out_arg(argv)
    return "DIR" if out is None else shlex.quote(out)


def _resume_hint(argv: Sequence[str]) -> str:
    """The command that finishes a stopped run, from its recorded command line: `gaia-eval
    CMD --resume DIR` re-runs the rest (DIR named when the run was given `--out`)."""
    import shlex

    out = _out_arg(argv)
    cmd = argv[0] if argv and not argv[0].startswith("-") else "CMD"
    if out is None:
        return f"`gaia-eval {cmd} --resume DIR` (DIR: this run's folder)"
    return f"`gaia-eval {cmd} --resume {shlex.quote(out)}`"


def _trust_section(env: Envelope, noun: str, warnings: Sequence[str] = ()) -> Section | None:
    head = env.header
    lines: list[str] = []
    done = sum(1 for r in env.items if r.status != "infra_error")
    asked = len(head.item_ids) or head.items_total
    if head.interrupted:
        lines.append(
            f"**Interrupted after {done} of {asked} {noun}s**; finish it with "
            f"{_resume_hint(head.run.argv)}."
        )
    elif not head.complete:
        lines.append(f"**The run did not complete**: {done} of {asked} {noun}s measured.")
    for err in head.errors:
        lines.append(f"run error: {err}")
    conc = head.concurrency
    if conc is not None and conc.not_started:
        lines.append(
            f"**{conc.not_started} {noun}(s) not started**: the budget of "
            f"${conc.budget_usd:.2f} was spent (${conc.spent_usd or 0:.2f}); raise "
            "--budget-usd and --resume to run them."
        )
    unmeasured = [r for r in env.items if r.status == "infra_error"]
    if unmeasured:
        lines.append(
            f"**{len(unmeasured)} {noun}(s) unmeasured** (infrastructure, never scored): "
            + "; ".join(f"`{r.id}`: {r.error}" for r in unmeasured[:10])
        )
    crashed = [r for r in env.items if r.status == "error"]
    if crashed:
        lines.append(
            f"**{len(crashed)} {noun}(s) crashed** in the system under test: "
            + "; ".join(f"`{r.id}`: {r.error}" for r in crashed[:10])
        )
    if head.mixed_commits:
        lines.append(
            "**Mixed commits**: items were measured by " + ", ".join(c[:12] for c in head.commits)
        )
    lines += warnings
    if head.shard:
        lines.append(f"This is shard {head.shard}; `gaia-eval merge` joins the shards.")
    if not lines:
        return None
    return Section("Infrastructure and unmeasured", [Bullets(lines)])


def verdict_section(verdict: Verdict, noun: str = "item") -> Section:
    """The gate's decision, what it compared, every failure and every flip."""
    state = "**PASSED**" if verdict.passed else "**FAILED**"
    against = f"`{verdict.baseline}`"
    if verdict.baseline_commit:
        against += f" (commit {verdict.baseline_commit[:12]}, started {verdict.baseline_started})"
    blocks: list[Block] = [Para(f"Gate {state} against {against}.")]
    if verdict.failures:
        blocks.append(Bullets(verdict.failures))
    if verdict.metrics:
        rows = [
            [
                m.name,
                fmt(m.baseline, 4),
                fmt(m.current, 4),
                m.rule,
                "pass" if m.passed else "**FAIL**",
            ]
            for m in verdict.metrics
        ]
        blocks.append(Table(["metric", "baseline", "now", "allowed change", "result"], rows))
    if verdict.flips:

        def word(v: bool | None) -> str:
            return "absent" if v is None else ("pass" if v else "fail")

        rows = [
            [f"`{f.item}`", f.check, word(f.before), word(f.after), "yes" if f.gated else "no"]
            for f in verdict.flips
        ]
        blocks.append(
            Table([noun, "check", "baseline", "now", "gated"], rows, caption="Flipped checks")
        )
    if verdict.notes:
        blocks.append(Bullets(verdict.notes))
    return Section("Gate", blocks)


def _headline(suite: type[Suite], env: Envelope) -> Section | None:
    """The suite's headline numbers, then every per-item metric its gate declares for
    `gaia-eval compare` as a mean over its units with the 95% interval (Wilson for
    pass/fail, bootstrap for means) and n, so no number is read without its uncertainty."""
    from gaia_eval.core.compare.metrics import estimates

    pairs = suite.report.headline(env)
    found = estimates(suite.gate, env)
    blocks: list[Block] = []
    if pairs:
        blocks.append(Table(["", "value"], [[k, v] for k, v in pairs]))
    if found:
        rows = [[e.name, f"{e.mean:.3f}", f"[{e.low:.3f}, {e.high:.3f}]", str(e.n)] for e in found]
        caption = "Per-item means, 95% intervals (Wilson for pass/fail, bootstrap for means)"
        blocks.append(Table(["metric", "mean", "95% interval", "n"], rows, caption=caption))
    return Section("Headline", blocks) if blocks else None


def _run_line(env: Envelope) -> str:
    head, run = env.header, env.header.run
    specs = [
        f"{k} `{v}`"
        for k, v in (
            ("system", head.system),
            ("embedder", head.embedder),
            ("model", head.model),
            ("judge", head.judge),
        )
        if v
    ]
    commit = (run.commit or "none")[:12] + (" (dirty)" if run.dirty else "")
    dur = f"{run.duration_s:.1f} s" if run.duration_s is not None else "–"
    m = run.machine
    return (
        "; ".join(specs)
        + ("; " if specs else "")
        + f"started {run.started}, {dur}{_concurrency_text(head)}; "
        + f"gaia-eval {run.package_version}, commit {commit}; "
        + f"{m.cpu}, {m.logical_cpus} CPUs, {m.ram_gb} GiB, {m.os}"
    )


def _concurrency_text(head: Header) -> str:
    """`, --jobs 4 (127.0.0.1:8000 cap 4, 3 throttled, 2.1 s backoff)`: the wall time
    means something only with the concurrency known."""
    conc = head.concurrency
    if conc is None:
        return ""
    parts = [
        f"{key.split('://', 1)[-1]} cap {e.cap}"
        + (f", {e.throttled} throttled, {e.backoff_s:.1f} s backoff" if e.throttled else "")
        for key, e in conc.endpoints.items()
    ]
    return f", --jobs {conc.jobs}" + (f" ({'; '.join(parts)})" if parts else "")


def model_note(env: Envelope) -> str | None:
    """The note a run's model asked every result to carry: the embedded local model's
    (recorded in the setup under gaia_eval.llm.local_server.RECORD_KEY) says its numbers
    are plumbing checks, not quality."""
    info = env.setup.get("local_model")
    note = info.get("note") if isinstance(info, dict) else None
    return str(note) if note else None


def sections(suite: type[Suite], env: Envelope) -> tuple[str, str, list[Section]]:
    """(title, run line, sections in order) of the whole report."""
    title = f"{suite.title} — {env.header.tier}"
    out: list[Section] = []
    note = model_note(env)
    if note is not None:  # before any number
        out.append(Section("Model", [Para(note)]))
    trust = _trust_section(env, suite.item_noun, suite.report.warnings(env))
    if trust is not None:
        out.append(trust)
    if env.verdict is not None:
        out.append(verdict_section(env.verdict, suite.item_noun))
    head = _headline(suite, env)
    if head is not None:
        out.append(head)
    out.extend(suite.report.sections(env))
    return title, _run_line(env), out


# ---- markdown -------------------------------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_block(block: Block) -> list[str]:
    if isinstance(block, Para):
        return [block.text, ""]
    if isinstance(block, Bullets):
        return [f"- {b}" for b in block.items] + [""]
    if isinstance(block, Table):
        out = [f"**{block.caption}**", ""] if block.caption else []
        out.append("| " + " | ".join(_md_cell(h) or " " for h in block.headers) + " |")
        out.append("|" + "---|" * len(block.headers))
        out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in block.rows]
        return [*out, ""]
    return [f"_{block.alt} (chart in report.html)_", ""]


def section_markdown(sec: Section) -> str:
    """One section as markdown (a `## title` and its blocks)."""
    lines = [f"## {sec.title}", ""]
    for block in sec.blocks:
        lines += _md_block(block)
    return "\n".join(lines).rstrip() + "\n"


def render_markdown(suite: type[Suite], env: Envelope) -> str:
    return page_markdown(*sections(suite, env))


def page_markdown(title: str, intro: str, secs: Sequence[Section]) -> str:
    """A markdown page of sections (a run's report, or a page over several runs)."""
    parts = [f"# {title}\n\n{intro}\n" if intro else f"# {title}\n"]
    parts += [section_markdown(sec) for sec in secs]
    return "\n".join(parts).rstrip() + "\n"


# ---- HTML -----------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.2em}td,th{border:1px solid #ccc;padding:.25em .6em;
text-align:left;vertical-align:top}th{background:#f2f2f2}code{background:#f5f5f5;padding:0 .2em}
.fail{color:#b00020;font-weight:bold}.pass{color:#0a7d32}figure{margin:1em 0}figcaption{color:#555}
caption{caption-side:top;text-align:left;font-weight:bold;padding:.2em 0}
"""

# A verdict cell or word in colour and with a symbol, so it reads without the colour too.
_VERDICT_WORDS = {
    "pass": ("pass", "\u2713"),
    "passed": ("pass", "\u2713"),
    "fail": ("fail", "\u2717"),
    "failed": ("fail", "\u2717"),
}


def _esc(text: str) -> str:
    """Scrub, then HTML-escape: escaping rewrites a quote around a password as `&quot;`
    and a `&` inside it as `&amp;`, so the text is scrubbed as it reads before (the page
    is scrubbed again as a whole when it is written)."""
    return html.escape(scrub_text(text))


def _inline(text: str) -> str:
    """Escape, then render `code` and **bold** (the markdown our blocks use)."""
    out = _esc(text)
    parts = out.split("`")
    out = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
    parts = out.split("**")
    return "".join(f"<strong>{p}</strong>" if i % 2 else p for i, p in enumerate(parts))


def _verdict_html(text: str) -> str | None:
    """`pass` / `**FAIL**` / `PASSED` as a coloured word with ✓ or ✗, None for other text."""
    word = text.strip().strip("*").strip()
    found = _VERDICT_WORDS.get(word.lower())
    if found is None:
        return None
    cls, mark = found
    return f'<span class="{cls}">{mark} {html.escape(word)}</span>'


def _cell(text: str) -> str:
    return _verdict_html(text) or _inline(text)


def _para_html(text: str) -> str:
    """A paragraph; its bold verdict words (the gate's **PASSED**) get colour and symbol."""
    out = _inline(text)
    for word in ("PASSED", "FAILED"):
        out = out.replace(f"<strong>{word}</strong>", f"<strong>{_verdict_html(word)}</strong>")
    return out


def _html_block(block: Block) -> str:
    if isinstance(block, Para):
        return f"<p>{_para_html(block.text)}</p>"
    if isinstance(block, Bullets):
        return "<ul>" + "".join(f"<li>{_inline(b)}</li>" for b in block.items) + "</ul>"
    if isinstance(block, Table):
        cap = f"<caption>{_inline(block.caption)}</caption>" if block.caption else ""
        head = "".join(f"<th>{_inline(h)}</th>" for h in block.headers)
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>" for row in block.rows
        )
        return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    return f"<figure>{block.svg}<figcaption>{_esc(block.alt)}</figcaption></figure>"


def render_html(suite: type[Suite], env: Envelope) -> str:
    return page_html(*sections(suite, env))


def page_html(title: str, intro: str, secs: Sequence[Section]) -> str:
    """The self-contained HTML page of `page_markdown`'s sections."""
    # Headings render their `code` spans as code, never as literal backticks.
    body = [f"<h1>{_inline(title)}</h1>"] + ([f"<p>{_inline(intro)}</p>"] if intro else [])
    for sec in secs:
        body.append(f"<h2>{_inline(sec.title)}</h2>")
        body += [_html_block(b) for b in sec.blocks]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_esc(title.replace('`', ''))}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


# ---- terminal --------------------------------------------------------------------------------


def terminal_summary(suite: type[Suite], env: Envelope) -> list[str]:
    """A few plain lines for the terminal (not markdown)."""
    head = env.header
    done = sum(1 for r in env.items if r.status != "infra_error")
    asked = len(head.item_ids) or head.items_total
    lines = [f"{suite.title} ({head.tier}): {done}/{asked} {suite.item_noun}s measured"]
    if head.shard and not head.item_ids:  # 5 items in 3 shards can leave one empty
        lines[0] = f"{suite.title} ({head.tier}): shard {head.shard} holds no {suite.item_noun}s"
    note = model_note(env)
    if note is not None:
        lines.append(f"  {note}")
    if head.interrupted:
        lines.append("  interrupted; finish it with --resume")
    if head.concurrency is not None and head.concurrency.not_started:
        lines.append(f"  {head.concurrency.not_started} not started: the budget was spent")
    if head.infra_errors:
        lines.append(f"  {head.infra_errors} unmeasured (infrastructure); the cause:")
        unmeasured = [r for r in env.items if r.status == "infra_error"]
        lines += [f"    - {r.id}: {r.error}" for r in unmeasured[:3]]
    if head.item_errors:
        lines.append(f"  {head.item_errors} crashed in the system under test")
    for label, value in suite.report.headline(env):
        lines.append(f"  {label}: {value}")
    if env.verdict is not None:
        state = "passed" if env.verdict.passed else "FAILED"
        lines.append(f"  gate {state} against {env.verdict.baseline}")
        lines += [f"    - {f}" for f in env.verdict.failures[:10]]
    return lines
