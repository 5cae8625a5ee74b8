"""The agent suite's headline and report sections, read from the scorecard alone."""

from __future__ import annotations

from gaia_eval.agent.models import CheckResult
from gaia_eval.agent.scorecard import Scorecard
from gaia_eval.core.report import (
    NOTHING_MEASURED,
    Bullets,
    Para,
    Report,
    Section,
    Table,
    fmt,
    share_ci,
)
from gaia_eval.core.results import Envelope


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def _state_rows(env: Envelope) -> list[tuple[str, str, bool | None, list[CheckResult]]]:
    """(item id, judge status, state verdict, checks) of every scenario run that declares
    state checks, read from the items (the scorecard is the judge's)."""
    out = []
    for rec in env.items:
        res = rec.result or {}
        found = [
            CheckResult.model_validate(c) for t in res.get("turns", []) for c in t.get("checks", [])
        ]
        if found:
            out.append((rec.id, str(res.get("status", "")), res.get("state_passed"), found))
    return out


def _state_word(v: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "unverified"}[v]


def _disagree(status: str, state: bool | None) -> bool:
    return state is not None and (status == "PASS") != state


def headline(env: Envelope) -> list[tuple[str, str]]:
    card = Scorecard.model_validate(env.summary)
    s = card.summary
    # Scenarios with an outcome of the agent's: none (stopped first, every one an outage
    # or not run) leaves a 0 % pass rate that would read as a score.
    measured = s.total_scenarios - s.infra_error - s.not_run - s.skipped
    rate = f"{_pct(s.pass_rate)} ({s.passed}/{s.total_scenarios})"
    out = [
        ("pass rate", rate if measured > 0 else NOTHING_MEASURED),
        (
            "judged pass rate",
            _pct(s.judged_pass_rate)
            + share_ci(s.passed, s.passed + s.failed + s.blocked, percent=True),
        ),
        ("average score (FAIL capped at 5.99)", fmt(s.avg_score, 2)),
        (
            "unmeasured",
            f"{s.infra_error} infra/setup error, {s.not_run} not run, {s.errored} errored",
        ),
    ]
    if s.failed_driver_blamed:
        out.append(("failures blamed on the driver (not the agent)", str(s.failed_driver_blamed)))
    rows = _state_rows(env)
    if rows:
        checks = [c for *_, cs in rows for c in cs]
        ok = sum(c.passed is True for c in checks)
        unverified = sum(c.passed is None for c in checks)
        split = sum(_disagree(st, v) for _, st, v, _ in rows)
        out.append(
            (
                "state checks",
                f"{ok}/{len(checks)} passed, {unverified} unverified; judge and state "
                f"disagree on {split} scenario run(s)",
            )
        )
    if card.pass_hat_k:
        out.append(("pass^k", ", ".join(f"k={k}: {v:.3f}" for k, v in card.pass_hat_k.items())))
    if env.header.filtered:
        out.append(("filtered run", f"{len(env.header.item_ids)} of {env.header.items_total}"))
    return out


def _counts_row(name: str, c: object) -> list[str]:
    from gaia_eval.agent.scorecard import Counts

    assert isinstance(c, Counts)
    return [
        name,
        str(c.total_scenarios),
        str(c.passed),
        str(c.failed),
        str(c.failed_driver_blamed),
        str(c.blocked),
        str(c.timeout + c.budget_exceeded),
        str(c.infra_error),
        str(c.errored),
        str(c.skipped + c.not_run),
        _pct(c.judged_pass_rate),
        fmt(c.avg_score, 2),
    ]


def sections(env: Envelope) -> list[Section]:
    card = Scorecard.model_validate(env.summary)
    head = ["", "runs", "pass", "fail", "fail (driver)", "blocked", "timeout/budget"]
    head += ["infra", "errored", "skipped/not run", "judged pass", "avg score"]
    out: list[Section] = []
    blocks: list[object] = [
        Table(
            head,
            [_counts_row("all", card.summary)]
            + [_counts_row(k, v) for k, v in card.by_category.items()],
        )
    ]
    if env.header.filtered:
        flt = card.config.get("scenario_filter")
        blocks.insert(0, Para(f"**Filtered run** ({flt}): only the selected scenarios ran."))
    out.append(Section("Scorecard", blocks))  # type: ignore[arg-type]
    order = {"FAIL": 0, "BLOCKED": 1, "ERRORED": 2, "TIMEOUT": 3, "BUDGET_EXCEEDED": 4}
    rows = sorted(card.scenarios, key=lambda r: (order.get(r.status, 9), r.id))
    agent_rows = [r for r in rows if not (r.status == "FAIL" and r.blame == "driver")]
    out.append(
        Section(
            "Scenarios",
            [
                Table(
                    ["scenario", "category", "status", "score", "blame", "why", "commit", "ran at"],
                    [
                        [
                            f"`{r.id}`",
                            r.category,
                            r.status,
                            fmt(r.overall_score, 2),
                            r.blame or "",
                            r.reason[:160],
                            (r.commit or "")[:10],
                            r.ran_at or "",
                        ]
                        for r in agent_rows
                    ],
                )
            ],
        )
    )
    driver = [r for r in rows if r.status == "FAIL" and r.blame == "driver"]
    if driver:
        out.append(
            Section(
                "Failures blamed on the driver",
                [
                    Para(
                        "The judge found the simulated user at fault (broke persona, invented "
                        "facts, ended early). These are not agent failures."
                    ),
                    Bullets([f"`{r.id}`: {r.reason}" for r in driver]),
                ],
            )
        )
    state = _state_rows(env)
    if state:
        out.append(
            Section(
                "State checks",
                [
                    Para(
                        "What the turns left behind, verified by gaia_eval itself (tool calls, "
                        "memories, files), beside the judge's status. The status and the gate "
                        "follow the judge; a disagreement means the judge or the check missed "
                        "something."
                    ),
                    Table(
                        ["scenario", "judge", "state", "disagree", "checks that did not pass"],
                        [
                            [
                                f"`{iid}`",
                                st,
                                _state_word(v),
                                "yes" if _disagree(st, v) else "",
                                "; ".join(
                                    f"turn {c.turn}: {c.expect} ({_state_word(c.passed)}: "
                                    f"{c.evidence[:120]})"
                                    for c in cs
                                    if c.passed is not True
                                )[:400],
                            ]
                            for iid, st, v, cs in state
                        ],
                    ),
                ],
            )
        )
    p = card.performance

    def counted(n: int) -> str:
        return str(n) if p.scenarios_with_data else "–"

    out.append(
        Section(
            "Performance",
            [
                Table(
                    ["", "value"],
                    [
                        ["avg tokens/s", fmt(p.avg_tokens_per_second, 2)],
                        ["avg time to first token (s)", fmt(p.avg_time_to_first_token, 3)],
                        # No scenario with data: a 0 would read as a measured count.
                        ["agent input tokens", counted(p.total_input_tokens)],
                        ["agent output tokens", counted(p.total_output_tokens)],
                        ["scenarios with data", str(p.scenarios_with_data)],
                        ["flags", ", ".join(f"{k} x{v}" for k, v in p.flags.items()) or "none"],
                    ],
                )
            ],
        )
    )
    c = card.cost
    d = c.driver
    cost = "unknown" if c.estimated_total_usd is None else f"${c.estimated_total_usd:.4f}"
    if not c.scenarios_counted:  # no scenario run finished: no zero totals to show
        what = f"{NOTHING_MEASURED}: none of the {c.scenarios_missing} scenario runs finished."
        out.append(Section("What the driver spent", [Para(what)]))
    else:
        out.append(
            Section(
                "What the driver spent",
                [
                    Para(
                        "One driver model plays the user and judges every turn, so its usage "
                        f"covers both. Counted over {c.scenarios_counted} scenario runs; "
                        f"**{c.scenarios_missing} are missing** from these totals (not run, "
                        f"unmeasured or killed on timeout)."
                    ),
                    Table(
                        [
                            "",
                            "input",
                            "output",
                            "cache read",
                            "cache write",
                            "calls",
                            "cost",
                            "source",
                        ],
                        [
                            [
                                "all",
                                str(d.input_tokens),
                                str(d.output_tokens),
                                "–" if d.cache_read_tokens is None else str(d.cache_read_tokens),
                                "–" if d.cache_write_tokens is None else str(d.cache_write_tokens),
                                str(d.calls),
                                cost,
                                d.cost_source or "–",
                            ]
                        ]
                        + [
                            [
                                k,
                                str(u.input_tokens),
                                str(u.output_tokens),
                                "–" if u.cache_read_tokens is None else str(u.cache_read_tokens),
                                "–" if u.cache_write_tokens is None else str(u.cache_write_tokens),
                                str(u.calls),
                                "unknown" if u.cost_usd is None else f"${u.cost_usd:.4f}",
                                u.cost_source or "–",
                            ]
                            for k, u in c.by_category.items()
                        ],
                    ),
                ],
            )
        )
    if card.repeats:
        ks = sorted({k for r in card.repeats for k in r.pass_hat_k}, key=int)
        out.append(
            Section(
                "Repeats: pass^k and flips",
                [
                    Para(
                        f"pass^k = C(c,k)/C(n,k) over n judged repeats with c passes; "
                        f"{card.flipping_scenarios} scenario(s) flip between repeats."
                    ),
                    Table(
                        ["scenario", "n", "c", *[f"pass^{k}" for k in ks], "flip rate"],
                        [
                            [
                                f"`{r.scenario_id}`",
                                str(r.n),
                                str(r.c),
                                *[fmt(r.pass_hat_k.get(k), 3) for k in ks],
                                fmt(r.flip_rate, 3),
                            ]
                            for r in card.repeats
                        ],
                    ),
                ],
            )
        )
    return out


def warnings(env: Envelope) -> list[str]:
    return [str(w) for w in env.summary.get("warnings", [])]


REPORT = Report(headline=headline, sections=sections, warnings=warnings)
