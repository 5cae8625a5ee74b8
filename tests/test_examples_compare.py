"""The committed examples of `gaia-eval compare` (docs/examples/sensitivity/, docs/examples/aa/)
still parse as today's models and still say what their READMEs claim, so they cannot rot
silently when the comparison's format or wording moves on."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from gaia_eval.core.compare.models import Comparison

EXAMPLES = Path(__file__).parents[1] / "docs" / "examples"
SENSITIVITY = EXAMPLES / "sensitivity"

# folder -> the gated metrics (or `level statistic` latency rows) its compare calls worse;
# empty: the compare could not tell the systems apart (the README says why)
WORSE: dict[str, tuple[str, ...]] = {
    "rag-pr": ("sdk rr",),
    "code-bench": ("checks passed", "solved_plus (replay)"),
    "memory-pr": ("checks passed",),
    "code-retrieval-offline": (
        "semantic file recall@5",
        "semantic file rr",
        "semantic symbol recall@5",
    ),
    "code-retrieval-offline-embedder": ("semantic file rr",),
    "agent-smoke": (),
}
# folder -> ungated per-item metrics its compare calls worse (the agent's judge score: the
# embedded model passes too few scenarios for the gated pass/fail to tell, see the README)
WORSE_UNGATED: dict[str, tuple[str, ...]] = {"agent-smoke": ("overall_score",)}
# folder -> the latency rows called worse (the benchmark gates no metric; its folders are
# pairs of runs of a one-thread and a two-thread server, see the README), and whether the
# runs recorded the threads (pairs 1 and 2 predate settings.local_threads)
WORSE_LATENCY: dict[str, tuple[tuple[str, ...], bool]] = {
    "benchmark-pair-1": ((), False),
    "benchmark-pair-2": (("c1 e2e_ms p50", "c1 ttft_ms p50"), False),
    "benchmark-pair-3": ((), True),
    "benchmark-pair-4": ((), True),  # the load fell during the one-thread run
    "benchmark-pair-5": (
        ("c1 e2e_ms p50", "c1 e2e_ms p95", "c1 ttft_ms p50", "c1 ttft_ms p95"),
        True,
    ),
    "benchmark-pair-6": ((), True),
}


def _load(folder: str) -> Comparison:
    return Comparison.model_validate_json((SENSITIVITY / folder / "compare.json").read_text())


def test_every_example_folder_is_checked_and_linked_from_the_readme() -> None:
    folders = {p.parent.name for p in SENSITIVITY.glob("*/compare.json")}
    assert folders == set(WORSE) | set(WORSE_LATENCY)
    readme = (SENSITIVITY / "README.md").read_text()
    for folder in folders:
        assert f"]({folder}/compare.md)" in readme, folder
        assert (SENSITIVITY / folder / "compare.md").is_file()
    assert "../aa/aa_table.md" in readme


@pytest.mark.parametrize("folder", sorted(WORSE))
def test_the_worse_system_is_called_worse_on_its_gated_metrics(folder: str) -> None:
    data = _load(folder)
    assert data.changed, "a sensitivity example compares two different systems"
    assert data.worse == list(WORSE[folder])
    by_name = {m.name: m for m in data.metrics}
    for name in WORSE[folder]:
        m = by_name[name]
        assert m.gated and m.call == "worse" and m.delta < 0 < m.n
        assert m.p_holm is not None and m.p_holm < data.alpha
    for name in WORSE_UNGATED.get(folder, ()):
        m = by_name[name]
        assert not m.gated and m.call == "worse" and m.delta < 0
        assert m.p_value is not None and m.p_value < data.alpha
    if not WORSE[folder]:
        # not told apart: and never the wrong way round either
        assert all(m.call != "better" for m in data.metrics if m.gated)
    md = (SENSITIVITY / folder / "compare.md").read_text()
    assert ("**WORSE**" in md) == bool(WORSE[folder])


@pytest.mark.parametrize("folder", sorted(WORSE_LATENCY))
def test_the_one_thread_server_is_called_worse_where_the_readme_says(folder: str) -> None:
    data = _load(folder)
    worse, recorded = WORSE_LATENCY[folder]
    assert data.suite == "benchmark" and data.latency and data.worse == []
    threads = [c for c in data.changed if c.field == "settings.local_threads"]
    assert [(c.baseline, c.current) for c in threads] == ([("2", "1")] if recorded else [])
    rows = {f"{r.level} {r.statistic}": r for r in data.latency}
    assert sorted(k for k, r in rows.items() if r.call == "worse") == sorted(worse)
    for key in worse:
        row = rows[key]
        assert row.p_value < data.alpha and row.low > 0, row


def test_the_aa_table_calls_worse_at_most_at_the_alpha_rate() -> None:
    """Each row of the 200-split A/A table: `worse` within 2.33 binomial standard errors
    of alpha (a one-sided 1% bound), so a regenerated table that is honest still passes."""
    text = (EXAMPLES / "aa" / "aa_table.md").read_text()
    alpha = float(re.search(r"alpha (0\.\d+)", text).group(1))  # type: ignore[union-attr]
    splits = int(re.search(r"## (\d+) seeded resampled A/A splits", text).group(1))  # type: ignore[union-attr]
    bound = splits * alpha + 2.33 * math.sqrt(splits * alpha * (1 - alpha))
    section = text.split("A/A splits per suite", 1)[1]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")]
    head, body = rows[0], rows[1:]
    worse = head.index(" worse ")
    assert len(body) >= 2, "the A/A table has no rows"
    for row in body:
        assert int(row[worse]) <= bound, row
