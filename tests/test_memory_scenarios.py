"""Memory scenarios: the six shipped ones load and cover what the benchmark promises; a
malformed scenario is exit 2 naming file, chat, turn and field."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.memory.scenario import (
    PROBE_KINDS,
    REQUIRED_KINDS,
    load_all,
    load_scenario,
    parse_duration,
)

SHIPPED = [
    "alex_three_months_of_life",
    "chen_learns_project_quirks",
    "jordan_reminders_change",
    "maya_moves_and_changes_jobs",
    "priya_work_documents_and_forgetting",
    "sam_family_health",
]

GOOD = """\
persona: Test Person
start: 2025-01-06
chats:
  - id: c01
    at: 2025-01-06T10:00
    turns:
      - user: I live in Lisbon.
        extract:
          - {attribute: lives in, value: Lisbon}
  - id: c02
    at: +2w
    turns:
      - user: I moved to Porto. Forget my old gym, Lisbon Fit.
        calls:
          - forget: {query: Lisbon Fit}
        extract:
          - {attribute: lives in, value: Porto}
probes:
  - id: p1
    at: +3w
    kind: update
    request: Where do I live?
    must_show: [Porto]
    must_not_show: [Lisbon]
  - {id: p2, at: +3w, kind: forget, request: My gym, must_not_show: [Lisbon Fit]}
  - id: p3
    at: +3w
    kind: provenance
    request: Me
    store_must_not: [{value: Porto, source: document}]
  - {id: p4, at: +3w, kind: temporal, request: Where did I live in January, must_show: [Lisbon]}
"""


def _write(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_six_scenarios_load_span_weeks_and_cover_every_required_kind() -> None:
    scenarios = load_all()
    assert [s.id for s in scenarios] == SHIPPED
    for sc in scenarios:
        kinds = {p.spec.kind for p in sc.probes}
        assert set(REQUIRED_KINDS) <= kinds, sc.id
        assert kinds <= set(PROBE_KINDS)
        assert sc.end - sc.start >= timedelta(weeks=8), sc.id
        assert len(sc.chats) >= 9, sc.id
        # Every scenario explicitly remembers, updates or forgets at least once.
        assert any(c.op == "forget" for ch in sc.chats for t in ch.turns for c in t.calls), sc.id


def test_offsets_and_dates(tmp_path: Path) -> None:
    sc = load_scenario(_write(tmp_path, GOOD))
    assert sc.chats[1].at - sc.start == timedelta(weeks=2)
    assert sc.probes[0].at - sc.start == timedelta(weeks=3)
    assert parse_duration("+3w2d4h30m") == timedelta(weeks=3, days=2, hours=4, minutes=30)


@pytest.mark.parametrize(
    ("old", "new", "expect"),
    [
        # a bad date: names the chat and the field
        ("at: 2025-01-06T10:00", "at: 2025-13-45", ["chat c01 (chats[0])", "field 'at'", "ISO"]),
        # an offset that goes backwards
        ("at: +2w", "at: -2d", ["chat c02 (chats[1])", "field 'at'", "backwards"]),
        # a chat earlier than the one before
        ("at: +2w", "at: 2025-01-01", ["chat c02 (chats[1])", "field 'at'", "before the previous"]),
        # an unknown call, with turn and field
        (
            "- forget: {query: Lisbon Fit}",
            "- forgett: {query: Lisbon Fit}",
            ["chat c02 (chats[1]) turn 1", "field 'calls[0]'", "unknown call 'forgett'"],
        ),
        # a call with a bad argument
        (
            "- forget: {query: Lisbon Fit}",
            "- forget: {query: Lisbon Fit, value: x}",
            ["turn 1", "field 'calls[0].forget.value'"],
        ),
        # an extract with a field the format does not have
        (
            "- {attribute: lives in, value: Porto}",
            "- {attribute: lives in, valu: Porto}",
            ["chat c02 (chats[1]) turn 1", "extract[0]"],
        ),
        # a probe without checks
        (
            "    store_must_not: [{value: Porto, source: document}]\n",
            "\n",
            ["probe p3 (probes[2])", "at least one check"],
        ),
        # a label no chat mentions before the probe
        ("must_show: [Porto]", "must_show: [Madrid]", ["probe p1", "must_show[0]", "'Madrid'"]),
        # a probe kind that does not exist
        ("kind: update", "kind: updates", ["probe p1 (probes[0])", "field 'kind'"]),
        # a scenario without a temporal probe
        ("kind: temporal", "kind: recall", ["field 'probes'", "temporal"]),
    ],
)
def test_malformed_scenarios_name_file_chat_turn_and_field(
    tmp_path: Path, old: str, new: str, expect: list[str]
) -> None:
    assert old in GOOD
    path = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(InvalidInputError) as info:
        load_scenario(path)
    text = str(info.value)
    assert str(path) in text
    for part in expect:
        assert part in text, text


def test_a_malformed_scenario_given_to_the_cli_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, GOOD.replace("at: +2w", "at: -1d"))
    code = main(["memory", "--suite", "pr", "--scenarios", str(path), "--list"])
    assert code == 2
    err = capsys.readouterr().err
    assert "chat c02 (chats[1])" in err and "field 'at'" in err


def test_list_prints_every_scenario_with_probe_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memory", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == SHIPPED
    assert all("probes" in line and "checks" in line for line in out)
