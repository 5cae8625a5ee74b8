"""The outage stop (that scenario INFRA_ERROR, later ones NOT_RUN, exit 3 with the backend,
the reset time and the resume command), `--resume` (the merged scorecard equals an
uninterrupted run's), credential outages, and the `--agent-model` discard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agent_fakes import AGENT, FAIL, World, serve
from agent_helpers import card, run, scenario, statuses, write

from gaia_eval.cli.main import main


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The model client retries outages with 1 s and 2 s of backoff; not in these tests."""
    from gaia_eval.llm.openai_compat import OpenAIChat

    kw = OpenAIChat.__init__.__kwdefaults__
    assert kw is not None
    monkeypatch.setitem(kw, "backoff_s", 0.0)


def _scenarios(tmp_path: Path) -> Path:
    return write(
        tmp_path / "sc",
        [
            scenario("s1"),
            scenario("s2", category="honesty", messages=["q2 a", "q2 b"]),
            scenario("s3"),
            scenario("s4", category="honesty"),
        ],
    )


def _world() -> World:
    return World(judge={"s3": [FAIL]})


def _stable(c: dict[str, Any]) -> dict[str, Any]:
    """The scorecard without what differs between any two runs (times, commits)."""
    rows = [
        {k: v for k, v in r.items() if k not in ("ran_at", "commit", "elapsed_s")}
        for r in c["scenarios"]
    ]
    perf = {k: v for k, v in c["performance"].items() if k not in ("avg_time_to_first_token",)}
    perf.pop("avg_tokens_per_second", None)
    return {**c, "scenarios": rows, "performance": perf}


def test_outage_stops_and_resume_merges(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scen = _scenarios(tmp_path)
    out = tmp_path / "run"
    world = _world()
    world.outage["s2"] = (429, "usage limit reached; your limit resets at 14:00 UTC.")
    with serve(world) as url:
        code = run(url, scen, out, "--jobs", "1")  # serial: later scenarios NOT_RUN
        err = capsys.readouterr().err
        assert code == 3
        assert f"driver openai:{url}#driver-m" in err  # the backend
        assert "limit resets at 14:00 UTC" in err  # the reset time
        assert f"--resume {out}" in err  # the exact command
        assert statuses(out) == {
            "s1": "PASS",
            "s2": "INFRA_ERROR",
            "s3": "NOT_RUN",
            "s4": "NOT_RUN",
        }
        c = card(out)
        assert c["summary"]["not_run"] == 2 and c["summary"]["infra_error"] == 1
        assert c["cost"]["scenarios_missing"] == 3
        assert any("unmeasured" in w for w in c["warnings"])
        world.outage.clear()
        assert main(["agent", "--resume", str(out)]) == 0
        resumed = card(out)
        fresh = tmp_path / "fresh"
        assert run(url, scen, fresh) == 0
    assert statuses(out) == {"s1": "PASS", "s2": "PASS", "s3": "FAIL", "s4": "PASS"}
    assert _stable(resumed) == _stable(card(fresh))
    # every scenario records the commit and time it ran at
    assert all(r["ran_at"] for r in resumed["scenarios"])
    env = json.loads((out / "results.json").read_text())
    assert env["header"]["complete"] is True


def test_credential_rejected_by_a_400_is_an_outage(tmp_path: Path) -> None:
    scen = write(tmp_path / "sc", [scenario("c1"), scenario("c2")])
    world = World(judge={"c1": [{"status": 400, "body": "invalid x-api-key"}]})
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out", "--jobs", "1") == 3
    assert statuses(tmp_path / "out") == {"c1": "INFRA_ERROR", "c2": "NOT_RUN"}


def _driven_by(scen: Path, agent_url: str, driver_url: str, out: Path) -> int:
    return main(
        [
            "agent", "--tier", "custom", "--scenarios-dir", str(scen),
            "--model", f"openai:{agent_url}#{AGENT}",
            "--driver-model", f"openai:{driver_url}#driver-m",
            "--out", str(out),
        ]
    )  # fmt: skip


def test_unreachable_driver_is_refused_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tasks_fakes import closed_port_url

    dead = f"{closed_port_url()}/v1"
    scen = write(tmp_path / "sc", [scenario("u1")])
    with serve(World()) as url:
        assert _driven_by(scen, url, dead, tmp_path / "out") == 3
    err = capsys.readouterr().err
    assert f"--driver-model 'openai:{dead}#driver-m': nothing answers at {dead}" in err
    assert not (tmp_path / "out").exists()


def test_a_driver_that_hangs_up_is_an_outage(tmp_path: Path) -> None:
    from tasks_fakes import hang_up

    scen = write(tmp_path / "sc", [scenario("u1")])
    with serve(World()) as url, hang_up() as dead:
        assert _driven_by(scen, url, f"{dead}/v1", tmp_path / "out") == 3
    assert statuses(tmp_path / "out") == {"u1": "INFRA_ERROR"}


def test_agent_model_mismatch_is_discarded(tmp_path: Path) -> None:
    scen = write(tmp_path / "sc", [scenario("m1"), scenario("m2", messages=["q other model"])])
    world = World(agent={"q other model": {"model": "someone-else", "text": "hi"}})
    with serve(world) as url:
        assert run(url, scen, tmp_path / "out", "--agent-model", AGENT) == 0
        # pinning a model nothing ran discards every scenario: nothing measured, exit 3
        assert run(url, scen, tmp_path / "none", "--agent-model", "pinned-x") == 3
    st = statuses(tmp_path / "out")
    assert st == {"m1": "PASS", "m2": "INFRA_ERROR"}
    row = next(r for r in card(tmp_path / "out")["scenarios"] if r["id"] == "m2")
    assert "someone-else" in row["reason"] and "discarded" in row["reason"]
    assert set(statuses(tmp_path / "none").values()) == {"INFRA_ERROR"}


def test_jobs_4_equals_jobs_1_scenario_for_scenario(tmp_path: Path) -> None:
    scen = _scenarios(tmp_path)
    cards, results = {}, {}
    with serve(_world()) as url:
        for jobs in ("1", "4"):
            out = tmp_path / f"run{jobs}"
            assert run(url, scen, out, "--jobs", jobs) == 0
            cards[jobs] = _stable(card(out))
            results[jobs] = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert cards["4"] == cards["1"]
    ids = [r["id"] for r in results["1"]["items"]]
    assert [r["id"] for r in results["4"]["items"]] == ids and len(ids) == 4
    assert [r["status"] for r in results["4"]["items"]] == [
        r["status"] for r in results["1"]["items"]
    ]
    assert results["4"]["header"]["concurrency"]["jobs"] == 4
