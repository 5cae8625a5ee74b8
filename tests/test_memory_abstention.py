"""Abstention and multi-session aggregation probes, and the ranks (recall@k, MRR) of what
was shown: loading rules, the checks on the reference system, and checks that fail when a
system invents an answer or leaves a part out."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.core.errors import InvalidInputError
from gaia_eval.embed import from_spec
from gaia_eval.memory.checks import abstains, rank_of
from gaia_eval.memory.extractors import ScriptedExtractor
from gaia_eval.memory.models import CheckResult
from gaia_eval.memory.replay import Replay
from gaia_eval.memory.scenario import Scenario, load_scenario
from gaia_eval.memory.summary import ranks_of
from gaia_eval.systems.memory import ReferenceMemory
from gaia_eval.systems.memory.protocol import MemoryTools, Shown
from tests.test_memory_scenarios import GOOD

# The loader tests' scenario, with a third chat and one probe of each new kind.
BASE = (
    GOOD.replace(
        "probes:\n",
        """\
  - id: c03
    at: +2w1d
    turns:
      - user: I go climbing on Tuesday evenings now.
        extract:
          - {kind: preference, attribute: climbing, value: climbing on Tuesday evenings}
probes:
""",
        1,
    )
    + """\
  - {id: p5, at: +3w, kind: abstention, request: "What's my sister's name?", unknown: [sister]}
  - id: p6
    at: +3w
    kind: aggregation
    request: Which evenings do I go climbing, and in which city do I live?
    parts: [climbing, Porto]
"""
)


def _load(tmp_path: Path, text: str = BASE) -> Scenario:
    path = tmp_path / "case.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def _run(sc: Scenario, tmp_path: Path, factory: Any = ReferenceMemory, **kw: Any) -> dict[str, Any]:
    tools = MemoryTools(ScriptedExtractor(sc), from_spec("hash"))
    result = Replay(sc, factory, tools, tmp_path / "m.db", **kw).run()
    return {c.id.split("/", 1)[1]: c for p in result.probes for c in p.checks}


def test_both_kinds_load_and_the_reference_passes_them(tmp_path: Path) -> None:
    checks = _run(_load(tmp_path), tmp_path)
    assert checks["p5/abstain/0"].passed and checks["p5/abstain_store/0"].passed
    assert checks["p6/aggregate/0"].passed, checks["p6/aggregate/0"].detail
    assert checks["p1/must_show/0"].rank is not None


@pytest.mark.parametrize(
    ("old", "new", "expect"),
    [
        # an abstention probe about something that was said
        (
            "unknown: [sister]",
            "unknown: [lives in]",
            ["probe p5", "unknown[0]", "stated in chat c01"],
        ),
        # an abstention probe without unknown
        ("unknown: [sister]", "must_not_show: [Lisbon]", ["probe p5", "field 'unknown'"]),
        # unknown on another kind
        (
            "kind: update\n    request: Where do I live?",
            "kind: update\n    unknown: [x]\n    request: Where do I live?",
            ["probe p1", "field 'unknown'"],
        ),
        # parts all from one chat
        (
            "parts: [climbing, Porto]",
            "parts: [climbing, evenings]",
            ["probe p6", "parts", "one chat"],
        ),
        # a part no chat mentions
        (
            "parts: [climbing, Porto]",
            "parts: [climbing, yoga]",
            ["probe p6", "parts[1]", "'yoga'"],
        ),
    ],
)
def test_malformed_probes_name_the_field(
    tmp_path: Path, old: str, new: str, expect: list[str]
) -> None:
    assert old in BASE
    with pytest.raises(InvalidInputError) as info:
        _load(tmp_path, BASE.replace(old, new, 1))
    for part in expect:
        assert part in str(info.value), str(info.value)


class _Invents(ReferenceMemory):
    """Offers an answer it was never given, and stores it: what abstention catches."""

    def shown(self, request: str, now: datetime) -> Shown:
        real = super().shown(request, now)
        return Shown(real.system_section, real.turn_context + "\n- sister: Ana")


class _Forgetful(ReferenceMemory):
    """Loses the climbing line: a part of the aggregate is missing."""

    def shown(self, request: str, now: datetime) -> Shown:
        real = super().shown(request, now)
        lines = [ln for ln in real.turn_context.splitlines() if "climbing" not in ln]
        system = [ln for ln in real.system_section.splitlines() if "climbing" not in ln]
        return Shown("\n".join(system), "\n".join(lines))


def test_an_invented_answer_fails_abstention(tmp_path: Path) -> None:
    checks = _run(_load(tmp_path), tmp_path, factory=_Invents)
    bad = checks["p5/abstain/0"]
    assert not bad.passed and "sister: Ana" in bad.detail


def test_a_lost_part_fails_aggregation(tmp_path: Path) -> None:
    checks = _run(_load(tmp_path), tmp_path, factory=_Forgetful)
    bad = checks["p6/aggregate/0"]
    assert not bad.passed and "climbing" in bad.detail and "Porto" not in bad.detail


def test_full_answers_must_abstain(tmp_path: Path) -> None:
    sc = _load(tmp_path)
    said = _run(sc, tmp_path / "a", answerer=lambda shown, req: "I don't know; you never said.")
    assert said["p5/abstain_answer/0"].passed
    guessed = _run(sc, tmp_path / "b", answerer=lambda shown, req: "Your sister is Ana.")
    assert not guessed["p5/abstain_answer/0"].passed
    assert abstains("I don\u2019t have that in my memory") and not abstains("It's Ana.")


def test_rank_counts_memory_lines_not_headings() -> None:
    text = "## What you know\n- lives in: Porto\n## Relevant memories\n- pottery: Thursday"
    assert rank_of("pottery", text) == 2 and rank_of("Porto", text) == 1
    assert rank_of("yoga", text) is None


def _must_show(rank: int | None) -> CheckResult:
    return CheckResult(
        id="s/p/must_show/0", probe="p", kind="recall", check="must_show", label="x",
        passed=rank is not None, rank=rank,
    )  # fmt: skip


def test_recall_at_k_and_mrr() -> None:
    ranks = ranks_of([_must_show(1), _must_show(4), _must_show(None), _must_show(12)])
    dumped = ranks.model_dump()
    assert dumped["n"] == 4 and dumped["recall@1"] == 0.25 and dumped["recall@3"] == 0.25
    assert dumped["recall@5"] == 0.5 and dumped["recall@10"] == 0.5
    assert ranks.mrr == round((1 + 1 / 4 + 1 / 12) / 4, 4)
    assert ranks_of([]).mrr is None
