"""The sessions report (pure): headline, warnings and sections of a results.json."""

from __future__ import annotations

from gaia_eval.core.report import (
    NOTHING_MEASURED,
    Bullets,
    Para,
    Report,
    Section,
    Table,
    fmt,
    mean_ci,
    share_ci,
)
from gaia_eval.core.results import Envelope
from gaia_eval.sessions.results import MATCH_SCORE, PASS_SCORE, CaseResult, Scorecard


def warnings(env: Envelope) -> list[str]:
    s = Scorecard.model_validate(env.summary)
    out = []
    if s.errors:
        out.append(f"{s.errors} result(s) have no score (judge error or crash): unmeasured")
    if s.no_repo:
        out.append(
            f"{s.no_repo} case(s) ran without the session's repository (no_repo): "
            "the agent could not look at the code the reference saw"
        )
    return out


def headline(env: Envelope) -> list[tuple[str, str]]:
    s = Scorecard.model_validate(env.summary)
    if not s.scored:  # nothing scored (stopped first, or every judge call failed)
        return [("mean score (0-5)", NOTHING_MEASURED), ("errors", str(s.errors))]
    rate = (
        "–"
        if s.pass_rate is None
        else f"{s.pass_rate}%{share_ci(s.passed, s.scored, percent=True)}"
    )
    scores = [
        float(r.result["score"])
        for r in env.items
        if r.result and isinstance(r.result.get("score"), int | float)
    ]
    return [
        (
            "mean score (0-5)",
            fmt(s.mean_score, 2) + (mean_ci(scores) if s.mean_score is not None else ""),
        ),
        ("median", fmt(s.median_score, 1)),
        ("passed (>= 3.5)", f"{s.passed}/{s.scored} ({rate})"),
        ("matched or exceeded (>= 4.5)", str(s.matched_or_exceeded)),
        ("dishonest (0)", str(s.dishonest)),
        ("errors", str(s.errors)),
    ]


def sections(env: Envelope) -> list[Section]:
    s = Scorecard.model_validate(env.summary)
    results = [CaseResult.model_validate(r.result) for r in env.items if r.result is not None]
    # Worst first: the failures are the part worth reading; unscored ones lead.
    worst = sorted(results, key=lambda r: (r.score is not None, r.score or 0.0, r.case))
    rows = [
        [
            r.case if r.repeat == 1 else f"{r.case}#r{r.repeat}",
            "error" if r.score is None else fmt(r.score, 1),
            ", ".join(r.tags) or "other",
            r.workspace,
            _cell(r.verdict or (r.judge_error or "")),
            _cell(r.rationale),
        ]
        for r in worst
    ]
    tags = [
        [t, str(v.cases), str(v.scored), fmt(v.mean_score, 2), str(v.passed) if v.scored else "–"]
        for t, v in s.per_tag.items()
    ]
    sections = [
        Section(
            "Cases, worst first",
            [Table(["case", "score", "tags", "workspace", "verdict", "rationale"], rows)],
        ),
        Section("By tag", [Table(["tag", "cases", "scored", "mean", "passed"], tags)]),
    ]
    if s.spread:
        spread = [
            [c, " ".join(fmt(x, 1) for x in v.scores), fmt(v.stdev, 2)]
            for c, v in sorted(s.spread.items(), key=lambda kv: -kv[1].stdev)
        ]
        sections.append(
            Section("Judge spread over repeats", [Table(["case", "scores", "stdev"], spread)])
        )
    sections.append(
        Section(
            "Reading this",
            [
                Para(
                    "The judge scores substance against what Claude Code answered on the "
                    "same request: 5 matches or exceeds it, 3 is broadly right but thinner, "
                    "0 refuses or claims work it did not do."
                ),
                Bullets([f"pass: score >= {PASS_SCORE}", f"matched: score >= {MATCH_SCORE}"]),
            ],
        )
    )
    return sections


def _cell(text: str, n: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


REPORT = Report(headline=headline, sections=sections, warnings=warnings)
