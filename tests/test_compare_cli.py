"""`gaia-eval compare` on real runs: the toy engine suite and the memory pr suite."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.cli.main import main
from gaia_eval.core import runloop
from gaia_eval.core.runloop import RunRequest

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite
from test_core_report_html import console_messages


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _toy(tmp_path: Path, name: str, rows: dict[str, dict[str, object]], **kw: Any) -> Path:
    items = tmp_path / f"{name}.items.json"
    items.write_text(json.dumps(rows))
    out = tmp_path / name
    tier = str(kw.pop("tier", "t1"))
    knob = str(kw.pop("knob", "a"))
    req = RunRequest(command="test", argv=["toy"], out=out)
    outcome = runloop.run(ToySuite(items, tier=tier, knob=knob), req)
    assert outcome.exit_code == 0
    return out


def _rows(n: int = 40) -> dict[str, dict[str, object]]:
    # values spread over [0.5, 1): every item passes
    return {f"q{i:02d}": {"value": 0.5 + (i % 10) / 20} for i in range(n)}


def _compare(
    base: Path | str, cur: Path | str, out: Path, *extra: str
) -> tuple[int, dict[str, Any]]:
    code = main(["compare", str(base), str(cur), "--out", str(out), "--resamples", "2000", *extra])
    data = json.loads((out / "compare.json").read_text()) if (out / "compare.json").exists() else {}
    return code, data


def _metric(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in data["metrics"] if m["name"] == name)


def test_planted_worse_items_are_called_worse_and_exit_1(tmp_path: Path) -> None:
    base = _toy(tmp_path, "base", _rows(), knob="a")
    worse_rows = _rows()
    for i in range(0, 40, 3):  # 14 of 40 items now fail (the definitions are unchanged)
        worse_rows[f"q{i:02d}"]["now"] = 0.1
    cur = _toy(tmp_path, "cur", worse_rows, knob="b")
    code, data = _compare(base, cur, tmp_path / "cmp")
    assert code == 1
    passed = _metric(data, "passed")
    assert passed["call"] == "worse" and passed["p_value"] < 0.05 and passed["gated"]
    assert passed["delta"] == pytest.approx(-14 / 40) and passed["high"] < 0
    assert passed["test"].startswith("exact McNemar")
    value = _metric(data, "value")
    assert value["call"] == "worse" and value["test"] == "sign-flip permutation"
    assert data["worse"] == ["passed"]
    assert {"field": "settings.knob", "baseline": "a", "current": "b"} in data["changed"]
    assert len([f for f in data["flips"] if f["metric"] == "passed"]) == 14
    assert data["alpha"] == 0.05 and data["resamples"] == 2000 and data["seed"] == 0
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "**worse**" in md and "settings.knob" in md and "`q00`" in md


def test_a_better_run_exits_0_and_is_called_better(tmp_path: Path) -> None:
    worse_rows = _rows()
    for i in range(0, 40, 3):
        worse_rows[f"q{i:02d}"]["now"] = 0.1
    base = _toy(tmp_path, "base", worse_rows)
    cur = _toy(tmp_path, "cur", _rows())
    code, data = _compare(base, cur, tmp_path / "cmp")
    assert code == 0
    assert _metric(data, "passed")["call"] == "better" and data["worse"] == []


def test_a_run_against_itself_is_no_detectable_change(tmp_path: Path) -> None:
    base = _toy(tmp_path, "base", _rows())
    again = _toy(tmp_path, "again", _rows())
    code, data = _compare(base, again, tmp_path / "cmp")
    assert code == 0
    assert data["changed"] == [] and data["worse"] == [] and data["flips"] == []
    for m in data["metrics"]:
        assert m["call"] == "no detectable change", m
        assert m["delta"] == 0 and m["p_value"] == 1.0


def test_fewer_than_ten_items_say_the_test_has_no_power(tmp_path: Path) -> None:
    rows = _rows(6)
    base = _toy(tmp_path, "base", rows)
    for r in rows.values():
        r["now"] = 0.1
    cur = _toy(tmp_path, "cur", rows)
    code, data = _compare(base, cur, tmp_path / "cmp")
    passed = _metric(data, "passed")
    assert passed["p_value"] is None and passed["call"] == "inconclusive"
    assert "no power" in passed["test"]
    assert code == 0
    assert "no power" in (tmp_path / "cmp" / "compare.md").read_text()


def test_unlike_runs_exit_3_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = _toy(tmp_path, "base", _rows())
    other_tier = _toy(tmp_path, "tier", _rows(), tier="t2")
    assert main(["compare", str(base), str(other_tier)]) == 3
    assert "tier is 't1' in the baseline and 't2'" in capsys.readouterr().err
    changed_items = _rows()
    changed_items["q01"]["value"] = 0.99  # an item's definition changed
    redefined = _toy(tmp_path, "redefined", changed_items)
    assert main(["compare", str(base), str(redefined)]) == 3
    assert "definition_digest" in capsys.readouterr().err


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = _toy(tmp_path, "base", _rows(12))
    assert main(["compare", str(base), str(tmp_path / "nowhere")]) == 2
    assert "nowhere" in capsys.readouterr().err
    for flag, value in (("--alpha", "2"), ("--resamples", "0"), ("--seed", "-1")):
        with pytest.raises(SystemExit) as exc:
            main(["compare", str(base), str(base), flag, value])
        assert exc.value.code == 2
        assert flag in capsys.readouterr().err
    assert main(["compare", str(base), str(base), "--resamples", "99999999"]) == 2
    assert "--resamples must be at most" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["compare", str(base), str(empty)]) == 2
    assert "no results.json" in capsys.readouterr().err


def test_compare_html_opens_without_console_errors(tmp_path: Path) -> None:
    base = _toy(tmp_path, "base", _rows())
    rows = _rows()
    rows["q05"]["now"] = 0.1
    cur = _toy(tmp_path, "cur", rows)
    _compare(base, cur, tmp_path / "cmp")
    page = tmp_path / "cmp" / "compare.html"
    text = page.read_text()
    assert "<script" not in text and "<h2>Metrics</h2>" in text
    assert console_messages(page) == []


# ---- the memory pr suite ------------------------------------------------------------------


def _memory(tmp_path: Path, name: str, *extra: str) -> Path:
    out = tmp_path / name
    assert main(["memory", "--suite", "pr", "--out", str(out), *extra]) in (0, 1)
    return out


def test_memory_reference_against_its_builtin_baseline_is_not_worse(tmp_path: Path) -> None:
    run = _memory(tmp_path, "ref")
    code, data = _compare("builtin:memory/pr", run, tmp_path / "cmp")
    assert code == 0, data
    pooled = _metric(data, "checks passed")
    assert pooled["gated"] and pooled["n"] >= 10 and pooled["call"] != "worse"
    assert data["baseline"]["results"] == "gaia_eval/baselines/memory/pr.json"


def test_memory_system_showing_superseded_facts_is_called_worse(tmp_path: Path) -> None:
    ref = _memory(tmp_path, "ref")
    control = "gaia_eval.memory.controls:never_supersedes"  # keeps showing replaced facts
    broken = _memory(tmp_path, "broken", "--system", control)
    code, data = _compare(ref, broken, tmp_path / "cmp")
    assert code == 1
    pooled = _metric(data, "checks passed")
    assert pooled["call"] == "worse" and pooled["p_value"] < 0.05 and pooled["p_holm"] < 0.05
    assert _metric(data, "update checks passed")["call"] == "worse"
    assert _metric(data, "provenance checks passed")["call"] == "no detectable change"
    assert {"field": "system", "baseline": "reference", "current": control} in data["changed"]
    flip = next(f for f in data["flips"] if f["before"] == 1.0 and f["after"] == 0.0)
    assert flip["baseline_record"] == flip["item"].split("/", 1)[0]
    assert data["worse"] == ["checks passed"]


def test_memory_items_in_one_run_only_are_listed(tmp_path: Path) -> None:
    ref = _memory(tmp_path, "ref")
    part = _memory(tmp_path, "part", "--scenarios", "maya_moves_and_changes_jobs")
    code, data = _compare(ref, part, tmp_path / "cmp")
    assert code == 0
    assert "maya_moves_and_changes_jobs" not in data["only_baseline"]
    assert len(data["only_baseline"]) == 5 and data["only_current"] == []
    assert "baseline only: `" in (tmp_path / "cmp" / "compare.md").read_text()


# ---- the benchmark: latency percentiles per load level ------------------------------------


def test_benchmark_slower_server_is_worse_per_level(tmp_path: Path) -> None:
    from gaia_eval.throughput.stub import stub_process

    def bench(name: str, ttft: int) -> Path:
        out = tmp_path / name
        model = f"openai:{url}/v1#custom:ttft_ms={ttft},gap_ms=2,chunks=4"
        argv = ["benchmark", "--model", model, "--concurrency", "1,2", "--requests", "24",
                "--warmup", "1", "--out", str(out)]  # fmt: skip
        assert main(argv) == 0
        return out

    with stub_process() as url:
        fast, slow = bench("fast", 20), bench("slow", 120)
    code, data = _compare(fast, slow, tmp_path / "cmp")
    assert code == 0  # latency is reported, not gated
    assert any(c["field"] == "model" for c in data["changed"])
    rows = {(x["level"], x["statistic"]): x for x in data["latency"]}
    for level in ("c1", "c2"):
        # the medians are 100 ms apart by construction; a loaded CI machine can stretch
        # the fast server's tail, so p95 is only required not to look better
        row = rows[(level, "ttft_ms p50")]
        assert row["call"] == "worse" and row["p_value"] < 0.05, row
        assert row["low"] > 0 and row["n_baseline"] == 24
        assert rows[(level, "ttft_ms p95")]["call"] != "better"
    assert "## Latency" in (tmp_path / "cmp" / "compare.md").read_text()


# ---- the agent suite: judged pass/fail per scenario ---------------------------------------


def test_agent_judged_failures_are_called_worse(tmp_path: Path) -> None:
    from agent_fakes import FAIL, World, serve
    from agent_helpers import run, scenario, write

    scen = write(tmp_path / "sc", [scenario(f"s{i:02d}") for i in range(12)])
    world = World()
    with serve(world) as url:
        assert run(url, scen, tmp_path / "good") == 0
        for i in range(8):  # the judge now fails 8 of 12 scenarios
            world.judge[f"s{i:02d}"] = [FAIL]
        assert run(url, scen, tmp_path / "bad") == 0
    code, data = _compare(tmp_path / "good", tmp_path / "bad", tmp_path / "cmp")
    assert code == 1
    passed = _metric(data, "pass")
    assert passed["n"] == 12 and passed["gated"]
    assert passed["call"] == "worse" and passed["p_value"] == pytest.approx(2 / 2**8)
    code, data = _compare(tmp_path / "good", tmp_path / "good", tmp_path / "aa")
    assert code == 0 and _metric(data, "pass")["call"] == "no detectable change"


def test_short_baseline_names_resolve_against_the_current_runs_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _memory(tmp_path, "ref")
    code, data = _compare("pr", run, tmp_path / "cmp")
    assert code == 0 and data["baseline"]["results"] == "gaia_eval/baselines/memory/pr.json"
    assert main(["compare", "nothing-here", "also-nothing"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
