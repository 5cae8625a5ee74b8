"""The release scorecard: every agent run writes SCORECARD.md (aggregate, urgent_recall, the
context size, the spread over repeats), and `agent --scorecard-gate` gates one against a
baseline card (a file or a git ref): pass, each failing bar, the k x stdev band, context
sizes that differ (exit 3) or are missing, first adoption, and bad input (exit 2)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_fakes import FAIL, PASS, World, serve
from agent_helpers import run, scenario, write

from gaia_eval.agent.models import ReleaseCard
from gaia_eval.agent.release import parse_card, read_card, render
from gaia_eval.cli.main import main

SEVERITY = {"u1": "critical", "u2": "high", "m1": "medium", "m2": "medium"}


def _scenarios(tmp_path: Path) -> Path:
    rows = []
    for sid, sev in SEVERITY.items():
        sc = scenario(sid)
        sc["severity"] = sev
        rows.append(sc)
    return write(tmp_path / "sc", rows)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """base: 3 repeats, m1 flips (11/12 judged pass); worse: m2 fails every repeat (8/12);
    urgent: u1 fails (8/12, urgent recall 0.5)."""
    tmp = tmp_path_factory.mktemp("release")
    scen = _scenarios(tmp)
    out = {name: tmp / name for name in ("base", "worse", "urgent")}
    world = World(judge={"m1": [PASS, FAIL, PASS]})
    with serve(world) as url:
        for name, judge in (("base", {}), ("worse", {"m2": [FAIL]}), ("urgent", {"u1": [FAIL]})):
            world.judge = {"m1": [PASS, FAIL, PASS], **judge}
            world.calls.clear()
            assert run(url, scen, out[name], "--repeats", "3", "--jobs", "1") == 0
    return out


def _gate(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["agent", "--scorecard-gate", *[str(a) for a in args]])
    said = capsys.readouterr()
    return code, said.out + said.err


def _stamp(run_dir: Path, ctx: int | None, dest: Path, **change: Any) -> Path:
    """A copy of the run's card with another context size (and fields)."""
    card = read_card(run_dir)
    card.recipe.environment.ctx_size = ctx
    card = card.model_copy(update=change)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(render(card), encoding="utf-8")
    return dest


def test_every_run_writes_its_release_card(runs: dict[str, Path]) -> None:
    card = read_card(runs["base"])
    assert card.aggregate.value == pytest.approx(100 * 11 / 12, abs=0.01)
    assert card.aggregate.n == 12
    low, high = card.aggregate.interval or (0, 0)
    assert low < card.aggregate.value < high <= 100
    assert [(m.name, m.value, m.n) for m in card.results.metrics] == [("urgent_recall", 1.0, 6)]
    spread = card.recipe.config.acceptance_variance["judged_pass_rate"]
    # per repeat 4/4, 3/4, 4/4
    assert (spread.n, spread.mean, spread.stdev) == (3, 0.916667, 0.144338)
    assert card.recipe.config.acceptance_variance["urgent_recall"].stdev == 0.0
    assert card.scenarios["m1"] == [1, 0, 1] and card.scenarios["u1"] == [1, 1, 1]
    assert card.recipe.environment.ctx_size is None  # an openai: agent says no size
    assert read_card(runs["urgent"]).results.metrics[0].value == 0.5
    text = (runs["base"] / "SCORECARD.md").read_text()
    assert text.startswith("---\n") and "# Release scorecard" in text


def test_pass_bars_and_first_adoption(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    base = runs["base"] / "SCORECARD.md"
    code, out = _gate(capsys, base, "--min-aggregate", "80", "--min-urgent-recall", "0.7")
    assert code == 0 and "first adoption" in out and "PASSED" in out
    # the bars apply with no baseline too
    code, out = _gate(capsys, base, "--min-aggregate", "95")
    assert code == 1 and "aggregate is 91.67, outside >= 95" in out
    code, out = _gate(capsys, runs["urgent"], "--min-urgent-recall", "0.7")
    assert code == 1 and "urgent_recall is 0.5, outside >= 0.7" in out
    # a card without urgent_recall (no critical or high scenario judged) fails that bar
    card = read_card(runs["base"])
    card.results.metrics[0].value = None
    bare = runs["base"].parent / "bare" / "SCORECARD.md"
    bare.parent.mkdir(exist_ok=True)
    bare.write_text(render(card))
    code, out = _gate(capsys, bare, "--min-urgent-recall", "0.1")
    assert code == 1 and "urgent_recall is none" in out


def test_regression_band_over_repeats(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = _stamp(runs["base"], 4096, tmp_path / "b" / "SCORECARD.md")
    worse = _stamp(runs["worse"], 4096, tmp_path / "w" / "SCORECARD.md")
    code, out = _gate(capsys, base, "--baseline-file", base)
    assert code == 0 and "PASSED" in out
    # 66.67 is below 91.67 - 1 x 14.43 = 77.24
    code, out = _gate(capsys, worse, "--baseline-file", base)
    assert code == 1 and "regression: aggregate against the baseline is 66.67" in out
    assert "77.24" in out
    assert "paired over 4 scenario(s)" in out and "no power" in out
    # k = 2 widens the band to 62.80
    assert _gate(capsys, worse, "--baseline-file", base, "--regression-k", "2")[0] == 0
    code, out = _gate(capsys, worse, "--baseline-file", base, "--allow-regression")
    assert code == 0 and "WARNING: regression" in out
    # with no recorded stdev the comparison is strict
    card = read_card(base)
    card.recipe.config.acceptance_variance.clear()
    strict = tmp_path / "s" / "SCORECARD.md"
    strict.parent.mkdir()
    strict.write_text(render(card))
    code, out = _gate(capsys, worse, "--baseline-file", strict, "--regression-k", "2")
    assert code == 1 and "no recorded stdev: strict" in out


def test_context_sizes(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = _stamp(runs["base"], 4096, tmp_path / "b" / "SCORECARD.md")
    wide = _stamp(runs["worse"], 8192, tmp_path / "w" / "SCORECARD.md")
    code, out = _gate(capsys, wide, "--baseline-file", base)
    assert code == 3 and "context size differs" in out
    code, out = _gate(capsys, wide, "--baseline-file", base, "--allow-ctx-mismatch")
    assert code == 1 and "context size 4096 -> 8192" in out and "regression" in out
    # unstamped on either side: the regression check is skipped with a warning
    code, out = _gate(capsys, runs["worse"], "--baseline-file", base)
    assert code == 0 and "the candidate records no context size" in out
    code, out = _gate(capsys, runs["worse"], "--baseline-file", base, "--require-ctx-match")
    assert code == 1 and "--require-ctx-match" in out
    # --release-card re-stamps a finished run
    assert main(["agent", "--release-card", str(runs["worse"]), "--ctx-size", "4096"]) == 0
    assert read_card(runs["worse"]).recipe.environment.ctx_size == 4096
    assert _gate(capsys, runs["worse"], "--baseline-file", base)[0] == 1
    assert main(["agent", "--release-card", str(runs["worse"])]) == 0
    assert read_card(runs["worse"]).recipe.environment.ctx_size is None


def test_cards_of_other_measurements_are_not_comparable(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    base = _stamp(runs["base"], 4096, tmp_path / "b" / "SCORECARD.md")
    for field, value in (("tier", "full"), ("judge", "openai:other"), ("definition_digest", "x")):
        other = _stamp(runs["base"], 4096, tmp_path / field / "SCORECARD.md", **{field: value})
        capsys.readouterr()
        assert main(["agent", "--scorecard-gate", str(other), "--baseline-file", str(base)]) == 3
        assert field in capsys.readouterr().err


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
    )


def test_baseline_from_a_git_ref(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "README").write_text("x")
    _git(repo, "add", "README")
    _git(repo, "commit", "-qm", "before the card")
    card = _stamp(runs["base"], 4096, repo / "agents" / "mine" / "SCORECARD.md")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "release 1")
    _git(repo, "tag", "v1")
    _stamp(runs["worse"], 4096, card)  # the candidate, not committed
    code, out = _gate(capsys, card, "--baseline-ref", "v1")
    assert code == 1 and "regression" in out
    code, out = _gate(capsys, card, "--baseline-ref", "v1~1")
    assert code == 0 and "first adoption" in out
    for bad in ("--output=x", "no-such-tag", "a..b"):
        code, out = _gate(capsys, card, f"--baseline-ref={bad}")
        assert code == 2 and "--baseline-ref" in out


def test_bad_cards_and_flags_are_exit_2(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert _gate(capsys, tmp_path / "nope")[0] == 2
    bad = tmp_path / "SCORECARD.md"
    for text, says in (
        ("# no front matter\n", "no front matter"),
        ("---\ntier: [\n---\n", "not YAML"),
        ("---\ntier: smoke\n---\n", "field definition_digest"),
        ("---\n- 1\n---\n", "must be a mapping"),
        ("---\naggregate: {value: .nan}\n---\n", "field aggregate.value is nan"),
    ):
        bad.write_text(text)
        code, out = _gate(capsys, bad)
        assert code == 2 and says in out
    with pytest.raises(Exception, match="closing"):
        parse_card("---\ntier: x\n", "x")
    base = runs["base"] / "SCORECARD.md"
    capsys.readouterr()
    assert main(["agent", "--min-aggregate", "80"]) == 2
    assert "--scorecard-gate" in capsys.readouterr().err
    assert main(["agent", "--release-card", str(tmp_path)]) == 2
    assert isinstance(parse_card(base.read_text(), "x"), ReleaseCard)


def test_the_shipped_smoke_baseline_stamps_the_local_models_context() -> None:
    from gaia_eval.agent.release import build_card
    from gaia_eval.core.results import load_envelope

    shipped = Path(__file__).parents[1] / "gaia_eval" / "baselines" / "agent" / "smoke.json"
    card = build_card(load_envelope(shipped, suite="agent"))
    assert card.recipe.environment.ctx_size == 2048  # the local model's slot
    assert card.aggregate.n == 30 and card.aggregate.value == 13.33  # 4 of the 30 smoke scenarios
    # recorded before runs kept severities: no urgent_recall, so that bar fails on it
    assert card.results.metrics[0].value is None
    assert (
        build_card(load_envelope(shipped, suite="agent"), ctx_size=8192).recipe.environment.ctx_size
        == 8192
    )
