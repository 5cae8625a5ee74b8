"""compare.md and compare.html, through the one report writer's blocks and pages."""

from __future__ import annotations

from gaia_eval.core.compare.models import Comparison
from gaia_eval.core.report import (
    Block,
    Bullets,
    Para,
    Section,
    Table,
    fmt,
    page_html,
    page_markdown,
)


def _p(value: float | None) -> str:
    if value is None:
        return "no power"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"


def _ci(pair: tuple[float, float] | None, digits: int = 3) -> str:
    return "–" if pair is None else f"[{pair[0]:.{digits}f}, {pair[1]:.{digits}f}]"


def _call(word: str) -> str:
    return f"**{word}**" if word in ("worse", "better") else word


def sections(cmp: Comparison) -> tuple[str, str, list[Section]]:
    title = f"Comparison — {cmp.suite} {cmp.tier}"
    intro = (
        f"Baseline `{cmp.baseline.label}` (commit {(cmp.baseline.commit or 'none')[:12]}, "
        f"started {cmp.baseline.started}) against current `{cmp.current.label}` (commit "
        f"{(cmp.current.commit or 'none')[:12]}, started {cmp.current.started}); alpha "
        f"{cmp.alpha}, {cmp.resamples} resamples, seed {cmp.seed}."
    )
    verdict = (
        f"**WORSE**: {', '.join(f'`{w}`' for w in cmp.worse)} (gated)"
        if cmp.worse
        else "No gated metric is significantly worse."
    )
    head: list[Block] = [Para(verdict)]
    if cmp.notes:
        head.append(Bullets(cmp.notes))
    out = [Section("Verdict", head)]
    changed = (
        Table(
            ["field", "baseline", "current"],
            [[c.field, f"`{c.baseline}`", f"`{c.current}`"] for c in cmp.changed],
        )
        if cmp.changed
        else Para("Nothing: both runs have the same system and settings (an A/A comparison).")
    )
    out.append(Section("What changed", [changed]))
    pct = f"{(1 - cmp.alpha) * 100:g}"
    rows = [
        [
            m.name + (" (gated)" if m.gated else ""),
            str(m.n),
            f"{fmt(m.baseline)} {_ci(m.baseline_ci)}",
            f"{fmt(m.current)} {_ci(m.current_ci)}",
            f"{m.delta:+.3f}",
            f"[{m.low:+.3f}, {m.high:+.3f}]",
            _p(m.p_value) + ("" if m.p_holm is None else f" (Holm {_p(m.p_holm)})"),
            m.test,
            fmt(m.mde),
            _call(m.call),
        ]
        for m in cmp.metrics
    ]
    out.append(
        Section(
            "Metrics",
            [
                Para(
                    f"Per metric over the paired items: each run's mean with its {pct}% "
                    f"interval, the change (current - baseline) with its {pct}% paired "
                    "bootstrap interval, the p-value, and the smallest change these items "
                    "detect with 80% power (MDE). docs/runs.md explains the calls."
                ),
                Table(
                    [
                        "metric",
                        "items",
                        "baseline",
                        "current",
                        "change",
                        f"{pct}% interval",
                        "p",
                        "test",
                        "MDE",
                        "call",
                    ],
                    rows,
                ),
            ],
        )
    )
    if cmp.latency:
        out.append(
            Section(
                "Latency",
                [
                    Para(
                        "Percentiles of every request per load level; the runs are resampled "
                        "independently (requests are not paired). A change inside 10% of the "
                        "baseline with an interval that includes 0 is no detectable change."
                    ),
                    Table(
                        [
                            "level",
                            "statistic",
                            "requests",
                            "baseline",
                            "current",
                            "change",
                            "interval",
                            "p",
                            "call",
                        ],
                        [
                            [
                                x.level,
                                x.statistic,
                                f"{x.n_baseline} / {x.n_current}",
                                f"{x.baseline:.1f} {_ci(x.baseline_ci, 1)}",
                                f"{x.current:.1f} {_ci(x.current_ci, 1)}",
                                f"{x.delta:+.1f}",
                                f"[{x.low:+.1f}, {x.high:+.1f}]",
                                _p(x.p_value),
                                _call(x.call),
                            ]
                            for x in cmp.latency
                        ],
                    ),
                ],
            )
        )
    if cmp.flips:

        def word(v: float) -> str:
            return {1.0: "pass", 0.0: "fail"}.get(v, f"{v:.2f}")

        out.append(
            Section(
                "Flipped items",
                [
                    Table(
                        [
                            "metric",
                            "item",
                            "baseline",
                            "current",
                            "baseline record",
                            "current record",
                        ],
                        [
                            [
                                f.metric,
                                f"`{f.item}`",
                                word(f.before),
                                word(f.after),
                                f"`{cmp.baseline.results}` item `{f.baseline_record}`",
                                f"`{cmp.current.results}` item `{f.current_record}`",
                            ]
                            for f in cmp.flips
                        ],
                    )
                ],
            )
        )
    if cmp.only_baseline or cmp.only_current:
        lines = [f"baseline only: `{i}`" for i in cmp.only_baseline]
        lines += [f"current only: `{i}`" for i in cmp.only_current]
        out.append(
            Section(
                "Items in one run only",
                [Para("Not paired, so not in any test above."), Bullets(lines)],
            )
        )
    return title, intro, out


def markdown(cmp: Comparison) -> str:
    return page_markdown(*sections(cmp))


def html(cmp: Comparison) -> str:
    return page_html(*sections(cmp))
