"""`gaia-eval agent --compare`: exit 0 / 2 / 3, the buckets, --require-complete, the
meta.json model rule, filtered runs; and `--repeats` with pass^k and flip rates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from agent_fakes import AGENT, FAIL, PASS, World, serve
from agent_helpers import argv, card, run, scenario, write

from gaia_eval.agent.scorecard import pass_hat_k
from gaia_eval.cli.main import main


def _compare(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["agent", "--compare", *[str(a) for a in args]])
    return code, capsys.readouterr().out


def test_compare_exit_codes_and_buckets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    three = write(
        tmp_path / "three", [scenario("s1"), scenario("s2"), scenario("s3", messages=["q3"])]
    )
    two = write(tmp_path / "two", [scenario("s1"), scenario("s2")])
    base, bad, gap, miss, filt, other = (
        tmp_path / n for n in ("b", "bad", "gap", "miss", "f", "o")
    )
    world = World()
    with serve(world) as url:
        assert run(url, three, base) == 0
        world.judge["s2"] = [FAIL]
        world.agent["q3"] = {"model": "someone-else", "text": "x"}
        assert run(url, three, bad, "--agent-model", AGENT) == 0
        world.judge["s2"] = [PASS]
        assert run(url, three, gap, "--agent-model", AGENT) == 0
        del world.agent["q3"]
        assert run(url, two, miss) == 0
        assert run(url, three, filt, "--scenarios", "s1") == 0
        other_argv = argv(url, two, other)
        other_argv[other_argv.index("--model") + 1] = f"openai:{url}#another-agent"
        assert main(other_argv) == 0

    code, out = _compare(capsys, base, base)
    assert code == 0 and "unchanged: s1, s2, s3" in out and "no regression" in out

    code, out = _compare(capsys, base, bad)
    assert code == 2
    assert "regressed: s2" in out and "unmeasured: s3" in out

    # an unmeasured scenario: a warning, or with --require-complete a failure
    code, out = _compare(capsys, base, gap)
    assert code == 0 and out.startswith("WARNINGS") and "s3: unmeasured now (INFRA_ERROR)" in out
    code, out = _compare(capsys, base, gap, "--require-complete")
    assert code == 2 and "--require-complete" in out

    # a missing scenario: the same
    code, out = _compare(capsys, base, miss)
    assert code == 0 and "only_in_baseline: s3" in out and "missing from the current run" in out
    assert _compare(capsys, base, miss, "--require-complete")[0] == 2

    # a filtered run lists the rest as not run; --require-complete fails on them all the
    # same (a scenario missing for any reason), with the documented exit 2
    code, out = _compare(capsys, base, filt)
    assert code == 0 and "not_run: s2, s3" in out and "filtered" in out
    code, out = _compare(capsys, base, filt, "--require-complete")
    assert code == 2 and "not_run: s2, s3" in out
    assert "s2: not run (filtered current run) (--require-complete)" in out

    # another agent model: not comparable, from the scorecard or from a meta.json beside it
    assert _compare(capsys, base, other)[0] == 3
    pinned = tmp_path / "pinned"
    shutil.copytree(base, pinned)
    (pinned / "meta.json").write_text(json.dumps({"agent_model": "Qwen3.6-35B-A3B-GGUF"}))
    code = main(["agent", "--compare", str(pinned), str(base)])
    assert code == 3
    assert main(["agent", "--compare", str(tmp_path / "nope"), str(base)]) == 2


def test_repeats_pass_hat_k_and_flips(tmp_path: Path) -> None:
    scen = write(tmp_path / "sc", [scenario("s_flip"), scenario("s_stable")])
    world = World(judge={"s_flip": [PASS, FAIL, PASS]})
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out", "--repeats", "3") == 0
    c = card(tmp_path / "out")
    ids = [r["id"] for r in c["scenarios"]]
    assert ids == ["s_flip@1", "s_flip@2", "s_flip@3", "s_stable@1", "s_stable@2", "s_stable@3"]
    reps = {r["scenario_id"]: r for r in c["repeats"]}
    assert reps["s_flip"]["pass_hat_k"] == {"1": 0.6667, "2": 0.3333, "3": 0.0}
    assert reps["s_flip"]["flip_rate"] == 1.0
    assert reps["s_stable"]["pass_hat_k"] == {"1": 1.0, "2": 1.0, "3": 1.0}
    assert reps["s_stable"]["flip_rate"] == 0.0
    assert c["pass_hat_k"] == {"1": 0.8333, "2": 0.6667, "3": 0.5}
    assert c["flipping_scenarios"] == 1
    assert "pass^k" in (tmp_path / "out" / "report.md").read_text()


def test_pass_hat_k_formula() -> None:
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 2, 1) == 0.5
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 1, 2) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)


def test_engine_gate_fails_a_scenario_that_stopped_passing(tmp_path: Path) -> None:
    scen = write(tmp_path / "sc", [scenario("g1"), scenario("g2")])
    world = World()
    with serve(world) as url:
        assert run(url, scen, tmp_path / "base") == 0
        assert run(url, scen, tmp_path / "same", "--gate", str(tmp_path / "base")) == 0
        world.judge["g2"] = [FAIL]
        assert run(url, scen, tmp_path / "worse", "--gate", str(tmp_path / "base")) == 1
    env = json.loads((tmp_path / "worse" / "results.json").read_text())
    assert env["verdict"]["passed"] is False
    assert any(f["item"] == "g2" and f["gated"] for f in env["verdict"]["flips"])
