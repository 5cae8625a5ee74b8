"""The suite engine: run loop, resume, shards, merge, gate, envelope, report."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.core import runloop
from gaia_eval.core.errors import (
    GaiaEvalError,
    InfrastructureError,
    InvalidInputError,
    NotComparableError,
)
from gaia_eval.core.gate import compare
from gaia_eval.core.merge import merge
from gaia_eval.core.reach import Endpoint
from gaia_eval.core.report import render_html, render_markdown
from gaia_eval.core.results import load_envelope
from gaia_eval.core.runloop import RunRequest, Shard, read_item_log
from gaia_eval.core.stats import mean_interval, wilson
from gaia_eval.core.suite import HeaderFields, RunContext

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _items(tmp_path: Path, rows: dict[str, dict[str, object]], name: str = "items.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows))
    return path


def _ten(**over: dict[str, object]) -> dict[str, dict[str, object]]:
    rows: dict[str, dict[str, object]] = {f"q{i:02d}": {"value": i / 10} for i in range(10)}
    rows.update(over)
    return rows


def _run(items: Path, out: Path, **kw: object) -> runloop.RunOutcome:
    knob = str(kw.pop("knob", "a"))
    req = RunRequest(command="test", argv=["toy"], out=out, **kw)  # type: ignore[arg-type]
    return runloop.run(ToySuite(items, knob=knob), req)


def test_run_writes_envelope_log_and_reports(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    outcome = _run(items, tmp_path / "run")
    assert outcome.exit_code == 0
    env = load_envelope(tmp_path / "run" / "results.json", suite="toy")
    assert env.header.complete and env.header.items_total == 10
    assert [r.id for r in env.items] == [f"q{i:02d}" for i in range(10)]
    assert env.summary == {"n": 10, "mean": pytest.approx(0.45)}
    assert env.setup["prepared"] is True
    assert len(read_item_log(tmp_path / "run" / "items.jsonl")) == 10
    md = (tmp_path / "run" / "report.md").read_text()
    assert md.startswith("# Toy suite — t1") and "## Items" in md
    html = (tmp_path / "run" / "report.html").read_text()
    assert "<script" not in html and "<h2>Items</h2>" in html


def test_headline_carries_each_item_metrics_interval_and_n(tmp_path: Path) -> None:
    # 5 of 10 pass (value >= 0.5): the Wilson interval of 5/10; the values 0.0 .. 0.9 have
    # the bootstrap interval of their mean, 0.45, which must straddle it.
    _run(_items(tmp_path, _ten()), tmp_path / "run")
    md = (tmp_path / "run" / "report.md").read_text()
    low, high = wilson(5, 10)
    assert (low, high) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert f"| passed | 0.500 | [{low:.3f}, {high:.3f}] | 10 |" in md
    vlow, vhigh = mean_interval([i / 10 for i in range(10)], "continuous")
    assert vlow < 0.45 < vhigh and vhigh - vlow > 0.2
    assert f"| value | 0.450 | [{vlow:.3f}, {vhigh:.3f}] | 10 |" in md
    html = (tmp_path / "run" / "report.html").read_text()
    assert "95% interval" in html and f"[{low:.3f}, {high:.3f}]" in html


def test_crashed_item_fails_the_run_and_is_reported(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten(q03={"value": 0.3, "do": "crash"}))
    outcome = _run(items, tmp_path / "run")
    assert outcome.exit_code == 1
    env = outcome.envelope
    assert env.header.item_errors == 1 and env.header.complete
    rec = env.records()["q03"]
    assert rec.status == "error" and "toy crash on q03" in (rec.error or "")
    assert "1 item(s) crashed" in (tmp_path / "run" / "report.md").read_text()


def test_infra_error_stops_names_resume_and_resume_finishes(tmp_path: Path) -> None:
    rows = _ten(q04={"value": 0.4, "do": "infra"})
    items = _items(tmp_path, rows)
    with pytest.raises(InfrastructureError) as info:
        _run(items, tmp_path / "run")
    assert f"--resume {tmp_path / 'run'}" in str(info.value)
    env = load_envelope(tmp_path / "run")
    assert not env.header.complete and env.header.infra_errors == 1
    assert [r.id for r in env.items if r.status == "ok"] == ["q00", "q01", "q02", "q03"]
    # The backend is back: resume runs only the rest, and equals an uninterrupted run.
    _items(tmp_path, _ten())
    resumed = _run(items, None, resume=tmp_path / "run")
    straight = _run(items, tmp_path / "straight")
    assert resumed.envelope.header.complete
    assert resumed.envelope.summary == straight.envelope.summary
    assert [r.id for r in resumed.envelope.items] == [r.id for r in straight.envelope.items]


def test_resume_refuses_changed_settings(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten(q04={"value": 0.4, "do": "infra"}))
    with pytest.raises(InfrastructureError):
        _run(items, tmp_path / "run")
    with pytest.raises(NotComparableError, match=r"settings\.knob"):
        _run(items, None, resume=tmp_path / "run", knob="b")
    _items(tmp_path, _ten(q04={"value": 0.9}))  # the item's definition changed
    with pytest.raises(NotComparableError, match="definition_digest"):
        _run(items, None, resume=tmp_path / "run")


def test_out_dir_checked_before_running(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InvalidInputError, match="not a folder"):
        _run(items, blocker)
    _run(items, tmp_path / "run")
    with pytest.raises(InvalidInputError, match="not empty"):
        _run(items, tmp_path / "run")


def test_shards_partition_and_merge_equals_single_run(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    one = _run(items, tmp_path / "s1", shard=Shard(1, 2))
    two = _run(items, tmp_path / "s2", shard=Shard(2, 2))
    ids1 = {r.id for r in one.envelope.items}
    ids2 = {r.id for r in two.envelope.items}
    assert ids1 and ids2 and not ids1 & ids2 and len(ids1 | ids2) == 10
    whole = _run(items, tmp_path / "whole")
    merged, _, cls = merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "merged")
    assert merged.header.complete and merged.header.shards == ["1/2", "2/2"]
    assert merged.summary == whole.envelope.summary
    # gates at tolerance 0 both ways
    assert compare(cls, whole.envelope, merged, tolerance=0).passed
    assert compare(cls, merged, whole.envelope, tolerance=0).passed


def test_merge_refuses_missing_shard_mixed_settings_and_overlap(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    _run(items, tmp_path / "s1", shard=Shard(1, 3))
    _run(items, tmp_path / "s2", shard=Shard(2, 3))
    with pytest.raises(NotComparableError, match=r"3/3 missing"):
        merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "m1")
    _run(items, tmp_path / "s3b", shard=Shard(3, 3), knob="b")
    with pytest.raises(NotComparableError, match=r"settings\.knob"):
        merge([tmp_path / "s1", tmp_path / "s2", tmp_path / "s3b"], tmp_path / "m2")
    _run(items, tmp_path / "full")
    _run(items, tmp_path / "full2")
    with pytest.raises(NotComparableError, match="measured in both"):
        merge([tmp_path / "full", tmp_path / "full2"], tmp_path / "m3")


def test_shard_hash_is_stable() -> None:
    # Fixed expectations: a different hash would silently reshuffle every CI matrix.
    assert [Shard(1, 3).holds(f"q{i}") for i in range(6)] == [
        Shard(1, 3).holds(f"q{i}") for i in range(6)
    ]
    assert sum(Shard(i, 4).holds("some-id") for i in range(1, 5)) == 1
    with pytest.raises(InvalidInputError):
        Shard.parse("3/2")
    with pytest.raises(InvalidInputError):
        Shard.parse("x")


def test_gate_rules_flips_and_missing_items(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    base = _run(items, tmp_path / "base").envelope
    # q06 now fails its check (0.6 -> 0.4): mean drops 0.02, within max(0.02, 1.5/10).
    _items(tmp_path, _ten(q06={"value": 0.6, "now": 0.4}))
    cur = _run(items, tmp_path / "cur").envelope
    v = compare(ToySuite, base, cur)
    assert not v.passed
    assert [f.item for f in v.flips] == ["q06"]
    assert any("q06: passed passed in the baseline, fails now" in f for f in v.failures)
    assert v.metrics[0].passed and v.metrics[0].rule == "max(0.02, 1.5/10) = 0.1500"
    # A baseline item not run now fails.
    cur.items = [r for r in cur.items if r.id != "q09"]
    cur.header.item_ids = [i for i in cur.header.item_ids if i != "q09"] + ["q09"]
    v = compare(ToySuite, base, cur)
    assert v.missing_items == ["q09"]


def test_gate_refuses_unlike_and_bad_baselines(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    base = _run(items, tmp_path / "base").envelope
    other = _run(items, tmp_path / "other", knob="b").envelope
    with pytest.raises(NotComparableError, match=r"settings\.knob"):
        compare(ToySuite, base, other)
    incomplete = base.model_copy(deep=True)
    incomplete.header.complete = False
    with pytest.raises(InvalidInputError, match="did not complete"):
        compare(ToySuite, incomplete, other)
    empty = base.model_copy(deep=True)
    empty.items = []
    with pytest.raises(InvalidInputError, match="measured nothing"):
        compare(ToySuite, empty, base)
    with pytest.raises(InvalidInputError, match="finite"):
        compare(ToySuite, base, base, tolerance=float("nan"))


def _without_knob(header: Any) -> dict[str, Any]:
    fields = ToySuite.comparable_fields(header)
    fields.pop("settings.knob", None)
    return fields


class _UngatedKnobToy(ToySuite):
    """The knob changes only ungated numbers: the gate ignores it, resume still refuses."""

    gate = dataclasses.replace(ToySuite.gate, comparable=_without_knob)


def test_gate_comparable_fields_narrow_the_gate_but_not_resume(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten(q04={"value": 0.4, "do": "infra"}))
    base = _run(_items(tmp_path, _ten(), "all.json"), tmp_path / "base").envelope
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / "b", baseline=tmp_path / "base")
    gated = runloop.run(_UngatedKnobToy(tmp_path / "all.json", knob="b"), req)
    assert gated.exit_code == 0 and gated.envelope.verdict is not None
    assert compare(_UngatedKnobToy, base, gated.envelope).passed
    with pytest.raises(NotComparableError, match=r"settings\.knob"):
        compare(ToySuite, base, gated.envelope)
    with pytest.raises(InfrastructureError):
        first = RunRequest(command="test", argv=["toy"], out=tmp_path / "r")
        runloop.run(_UngatedKnobToy(items), first)
    again = RunRequest(command="test", argv=["toy"], out=None, resume=tmp_path / "r")
    with pytest.raises(NotComparableError, match=r"settings\.knob"):
        runloop.run(_UngatedKnobToy(items, knob="b"), again)


def test_bad_baseline_refused_before_the_run(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    bad = tmp_path / "bad.json"
    bad.write_text('{"tasks": [], "harness": "replay"}')
    with pytest.raises(InvalidInputError, match="a tasks scorecard"):
        _run(items, tmp_path / "run", baseline=bad)
    assert not (tmp_path / "run" / "results.json").exists()
    truncated = tmp_path / "trunc.json"
    truncated.write_text('{"schema": 1, "kind": "gaia-eval/res')
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        _run(items, tmp_path / "run2", baseline=truncated)


def test_gated_run_stores_verdict_in_results(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    _run(items, tmp_path / "base")
    out = _run(items, tmp_path / "cur", baseline=tmp_path / "base" / "results.json")
    assert out.exit_code == 0
    env = load_envelope(tmp_path / "cur")
    assert env.verdict is not None and env.verdict.passed
    assert "Gate **PASSED**" in (tmp_path / "cur" / "report.md").read_text()


def _toy_process(items: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with (out.parent / "toy-stderr.txt").open("wb") as err:
        return subprocess.Popen(
            [
                sys.executable,
                str(HERE / "engine_toy_process.py"),
                str(items),
                "--out",
                str(out),
                *extra,
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def _wait_for_items(out: Path, n: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(read_item_log(out / "items.jsonl")) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} items logged in {out}")


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["retrieval", "--suite", "pr", "--out", "my runs/a"],
         "finish it with `gaia-eval retrieval --resume 'my runs/a'`."),
        (["memory", "--out=x"], "finish it with `gaia-eval memory --resume x`."),
        (["tasks", "run"],
         "finish it with `gaia-eval tasks --resume DIR` (DIR: this run's folder)."),
    ],
)  # fmt: skip
def test_an_interrupted_report_says_how_far_and_the_resume_command(
    tmp_path: Path, argv: list[str], hint: str
) -> None:
    out = _run(_items(tmp_path, _ten()), tmp_path / "run")
    env = out.envelope
    env.items = env.items[:4]
    env.header.interrupted, env.header.complete = True, False
    env.header.run.argv = argv
    text = render_markdown(ToySuite, env)
    assert f"**Interrupted after 4 of 10 {ToySuite.item_noun}s**; {hint}" in text


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_killed_run_keeps_finished_items_and_resumes(tmp_path: Path, sig: int) -> None:
    rows = {f"q{i:02d}": {"value": i / 10, "do": "sleep", "seconds": 0.4} for i in range(8)}
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    proc = _toy_process(items, out)
    _wait_for_items(out, 2)
    proc.send_signal(sig)
    proc.wait(timeout=30)
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        env = load_envelope(out)
        assert env.header.interrupted and not env.header.complete
        assert "Interrupted after" in (out / "report.md").read_text()
    done = read_item_log(out / "items.jsonl")
    assert len(done) >= 2
    for v in rows.values():
        v["seconds"] = 0.0
    items.write_text(json.dumps(rows))
    resumed = _run(items, None, resume=out)
    straight = _run(items, tmp_path / "straight")
    assert resumed.envelope.header.complete
    assert resumed.envelope.summary == straight.envelope.summary
    assert {r.id for r in resumed.envelope.items} == set(rows)
    # the first part's records were kept, not re-run
    first = {r.id: r.ran_at for r in done}
    assert all(resumed.envelope.records()[i].ran_at == t for i, t in first.items())


def test_stale_temp_folders_of_dead_runs_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    # A temp folder of the test's own: in the shared one, a run on another test worker can
    # sweep the stale folder first, and then it is not in this call's list.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    stale = Path(tempfile.gettempdir()) / f"gaia-eval-run-{pid}-abc"
    stale.mkdir(exist_ok=True)
    live = Path(tempfile.gettempdir()) / f"gaia-eval-run-{os.getpid()}-live"
    live.mkdir(exist_ok=True)
    try:
        removed = runloop.clean_stale_temp()
        assert stale in removed and not stale.exists() and live.exists()
    finally:
        live.rmdir()


def test_torn_last_log_line_is_dropped(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    _run(items, tmp_path / "run")
    log = tmp_path / "run" / "items.jsonl"
    log.write_bytes(log.read_bytes() + b'{"id": "q10", "sta')
    assert len(read_item_log(log)) == 10
    lines = log.read_bytes().split(b"\n")
    lines[2] = b"garbage"
    log.write_bytes(b"\n".join(lines))
    with pytest.raises(InvalidInputError, match="line 3"):
        read_item_log(log)


def test_reports_render_for_interrupted_and_gated_runs(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten(q02={"value": 0.2, "do": "infra"}))
    with pytest.raises(InfrastructureError):
        _run(items, tmp_path / "run")
    env = load_envelope(tmp_path / "run")
    md = render_markdown(ToySuite, env)
    assert md.index("## Infrastructure and unmeasured") < md.index("## Headline")
    assert "1 item(s) unmeasured" in md
    assert "<svg" not in md
    assert render_html(ToySuite, env).startswith("<!DOCTYPE html>")


def test_filtered_run_is_labelled_and_unasked_items_are_notes_or_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gaia_eval.core.gate import GateRules

    items = _items(tmp_path, _ten())
    base = _run(items, tmp_path / "base").envelope
    cur = _run(items, tmp_path / "cur", only=["q01", "q02"]).envelope
    assert cur.header.filtered and cur.header.item_ids == ["q01", "q02"]
    v = compare(ToySuite, base, cur)
    assert not v.missing_items
    assert any("8 baseline item(s) not asked for by this filtered run" in n for n in v.notes)
    strict = GateRules(metrics=(), checks=(), unasked_fail=True)
    monkeypatch.setattr(ToySuite, "gate", strict)
    v = compare(ToySuite, base, cur)
    assert not v.passed and len(v.missing_items) == 8


def test_load_system_checks_the_protocol(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typing import Protocol, runtime_checkable

    from gaia_eval.core.plugins import load_system

    @runtime_checkable
    class Greeter(Protocol):
        def greet(self) -> str: ...

    (tmp_path / "plug.py").write_text(
        "class Good:\n    def greet(self):\n        return 'hi'\n"
        "def good():\n    return Good()\n"
        "def bad():\n    return object()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_system("plug:good", Greeter).greet() == "hi"
    with pytest.raises(InvalidInputError, match="not a Greeter \\(lacks greet\\)"):
        load_system("plug:bad", Greeter)
    with pytest.raises(InvalidInputError, match="expected 'module:factory'"):
        load_system("plug", Greeter)


class _BatchToy(ToySuite):
    """A suite with a pass over all finished items (as a batched judge): each result's
    `passed` becomes "at least the batch mean"; optionally an outage after the update."""

    def __init__(self, items_file: Path, *, outage: bool = False) -> None:
        super().__init__(items_file)
        self.outage = outage
        self.seen: list[list[str]] = []

    def after_items(self, ctx: runloop.RunContext, results: dict[str, Any]) -> None:
        self.seen.append(sorted(results))
        mean = sum(r.value for r in results.values()) / len(results)
        for key, res in results.items():
            results[key] = res.model_copy(update={"passed": res.value >= mean})
        if self.outage:
            raise InfrastructureError("judge http://127.0.0.1:9/v1 unreachable")


def test_after_items_pass_is_saved_and_an_outage_in_it_resumes(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    out = tmp_path / "run"
    suite = _BatchToy(items, outage=True)
    with pytest.raises(InfrastructureError, match="--resume"):
        runloop.run(suite, RunRequest(command="test", argv=["toy"], out=out))
    env = load_envelope(out)
    assert not env.header.complete and suite.seen == [[f"q{i:02d}" for i in range(10)]]
    # The changed results were saved before the outage stopped the run, log and snapshot.
    want = {f"q{i:02d}": i >= 5 for i in range(10)}  # mean 0.45
    assert {r.id: r.result["passed"] for r in env.items} == want
    assert {r.id: r.result["passed"] for r in read_item_log(out / "items.jsonl")} == want
    again = _BatchToy(items)
    done = runloop.run(again, RunRequest(command="test", argv=["toy"], resume=out))
    assert done.envelope.header.complete and done.exit_code == 0
    assert again.seen == [[f"q{i:02d}" for i in range(10)]]  # nothing re-ran, the pass did


def test_terminal_summary_names_the_cause_of_unmeasured_items(tmp_path: Path) -> None:
    from gaia_eval.core.report import terminal_summary

    items = _items(tmp_path, _ten(q04={"value": 0.4, "do": "infra"}))
    with pytest.raises(InfrastructureError):
        _run(items, tmp_path / "run")
    lines = terminal_summary(ToySuite, load_envelope(tmp_path / "run"))
    assert "  1 unmeasured (infrastructure); the cause:" in lines
    assert any("q04: backend http://127.0.0.1:9/v1 refused" in x for x in lines)


class _LearningToy(ToySuite):
    """Learns its embedder in setup (as a plug-in system reports it once built)."""

    def __init__(self, items_file: Path, learned: str, marker: Path) -> None:
        super().__init__(items_file)
        self.learned = learned
        self.marker = marker

    def header_fields(self) -> HeaderFields:
        fields = super().header_fields()
        fields.pending = ("embedder",)
        return fields

    def setup(self, ctx: RunContext, items: object) -> None:
        ctx.setup["built"] = True
        ctx.learn_header(embedder=self.learned)
        self.marker.write_text("the expensive part of setup ran")


def _learning_run(items: Path, out: Path, learned: str, **kw: object) -> runloop.RunOutcome:
    req = RunRequest(command="test", argv=["toy"], out=out, **kw)  # type: ignore[arg-type]
    return runloop.run(_LearningToy(items, learned, out.parent / f"{out.name}.marker"), req)


def test_learned_header_fields_are_checked_at_once_and_pending_ones_skipped(
    tmp_path: Path,
) -> None:
    items = _items(tmp_path, _ten())
    base = _learning_run(items, tmp_path / "base", "emb-a")
    assert base.envelope.header.embedder == "emb-a"
    # Pending before setup (the embedder is unknown yet): not refused; learned equal: gated.
    same = _learning_run(items, tmp_path / "same", "emb-a", baseline=tmp_path / "base")
    assert same.exit_code == 0 and same.envelope.verdict is not None
    # Learned different: refused by learn_header, before the rest of setup ran.
    with pytest.raises(NotComparableError, match="embedder is 'emb-a' in the baseline"):
        _learning_run(items, tmp_path / "other", "emb-b", baseline=tmp_path / "base")
    assert not (tmp_path / "other.marker").exists()
    env = load_envelope(tmp_path / "other")
    assert env.header.errors[0].startswith("not comparable with")
    assert env.setup["built"] is True  # what setup recorded before it stopped is kept


def test_resume_keeps_learned_fields_when_nothing_is_left_to_set_up(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    _learning_run(items, tmp_path / "run", "emb-a")
    again = _learning_run(items, tmp_path / "run", "emb-a", resume=tmp_path / "run")
    assert again.envelope.header.embedder == "emb-a"


def test_keep_temp_records_the_folder(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    kept = _run(items, tmp_path / "run", keep_temp=True).envelope.setup["_temp"]
    try:
        assert Path(kept).is_dir()
    finally:
        import shutil

        shutil.rmtree(kept, ignore_errors=True)
    assert "_temp" not in _run(items, tmp_path / "run2").envelope.setup


def test_merge_keeps_every_shards_setup(tmp_path: Path) -> None:
    items = _items(tmp_path, _ten())
    _run(items, tmp_path / "s1", shard=Shard(1, 2))
    _run(items, tmp_path / "s2", shard=Shard(2, 2))
    for name, key in (("s1", "index/a"), ("s2", "index/b")):
        path = tmp_path / name / "results.json"
        data = json.loads(path.read_text())
        data["setup"][key] = name
        path.write_text(json.dumps(data))
    merged, _, _ = merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "m")
    assert merged.setup["index/a"] == "s1" and merged.setup["index/b"] == "s2"


def test_a_legacy_converter_names_what_is_wrong_with_its_file(tmp_path: Path) -> None:
    def convert(data: dict[str, object]) -> dict[str, object] | None:
        if data.get("old") is None:
            return None
        raise InvalidInputError("field 'old' is broken; regenerate the file")

    path = tmp_path / "old.json"
    path.write_text('{"old": 1}')
    with pytest.raises(InvalidInputError, match=r"old\.json: field 'old' is broken"):
        load_envelope(path, suite="toy", legacy={"toy": convert})
    path.write_text('{"other": 1}')
    with pytest.raises(InvalidInputError, match=r"not a toy results\.json"):
        load_envelope(path, suite="toy", legacy={"toy": convert})


def test_pages_of_sections_outside_a_run() -> None:
    """report.page_markdown / page_html: the report writer for pages over several runs (a
    comparison), the same blocks as a run's report."""
    from gaia_eval.core.report import Para, Section, Table, page_html, page_markdown

    secs = [Section("Runs", [Para("Two runs."), Table(["run", "solved"], [["`a`", "3/4"]])])]
    md = page_markdown("Compared", "", secs)
    assert md.startswith("# Compared\n\n## Runs\n\nTwo runs.\n")
    assert "| `a` | 3/4 |" in md
    html = page_html("Compared", "intro `x`", secs)
    assert "<h1>Compared</h1><p>intro <code>x</code></p>" in html.replace("\n", "")
    assert "<script" not in html and "<td><code>a</code></td>" in html


def _run_from_cli(suite: ToySuite, items: Path, out: Path) -> int:
    """Run `suite` as a CLI command does: the shared flags, the summary printed."""
    import argparse

    from gaia_eval.core.launch import run_suite
    from gaia_eval.core.options import RUN

    parser = argparse.ArgumentParser()
    RUN.add_to(parser)
    args = parser.parse_args(["--out", str(out)])
    return run_suite(suite, args, argv=["toy", str(items), "--out", str(out)])


def test_an_outage_stop_says_the_url_the_cause_and_the_resume_command_on_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path, _ten(q04={"value": 0.4, "do": "infra"}))
    out = tmp_path / "run"
    with pytest.raises(runloop.RunStopped) as info:
        _run_from_cli(ToySuite(items), items, out)
    assert info.value.exit_code == 3 and info.value.outcome.out_dir == out
    stdout = capsys.readouterr().out.splitlines()
    assert "Toy suite (t1): 4/10 items measured" in stdout
    assert f"  results: {out / 'results.json'}" in stdout
    assert (
        "stopped at the first outage: backend http://127.0.0.1:9/v1 refused the connection"
        in stdout
    )
    assert stdout[-1] == f"  gaia-eval toy {items} --resume {out}"
    # The printed command finishes the run (the backend is back).
    _items(tmp_path, _ten())
    done = _run(items, None, resume=out)
    assert done.envelope.header.complete and done.exit_code == 0


class _GoesOnToy(ToySuite):
    stop_on_infra = False


def test_a_run_that_measured_nothing_prints_its_summary_and_the_resume_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _items(tmp_path, {f"q{i}": {"value": 0.1, "do": "infra"} for i in range(3)})
    out = tmp_path / "run"
    with pytest.raises(runloop.RunStopped) as info:
        _run_from_cli(_GoesOnToy(items), items, out)
    assert info.value.exit_code == 3 and info.value.unmeasured
    assert str(info.value).startswith("nothing was measured: all 3 items hit infrastructure")
    stdout = capsys.readouterr().out.splitlines()
    assert "Toy suite (t1): 0/3 items measured" in stdout
    assert f"  report: {out / 'report.md'}" in stdout
    assert stdout[-3].startswith("nothing was measured: all 3 items hit infrastructure errors")
    assert stdout[-1] == f"  gaia-eval toy {items} --resume {out}"


class _NeedyToy(ToySuite):
    def preflight(self) -> list[str]:
        return ["the toy SDK: pip install toy", "a TOY_KEY: set TOY_KEY"]


def test_preflight_problems_stop_the_run_before_anything_with_all_of_them(
    tmp_path: Path,
) -> None:
    items = _items(tmp_path, _ten())
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / "run")
    with pytest.raises(InvalidInputError) as info:
        runloop.run(_NeedyToy(items), req)
    assert info.value.exit_code == 2
    assert str(info.value) == (
        "the run cannot start; missing:\n"
        "  - the toy SDK: pip install toy\n"
        "  - a TOY_KEY: set TOY_KEY"
    )
    assert not (tmp_path / "run").exists()  # no folder, no lock, no item ran


class _DeadServerToy(ToySuite):
    """A toy whose backend (and judge, on the same dead port) and a live server."""

    def __init__(self, items: Any, dead: str, live: str, needy: bool = False) -> None:
        super().__init__(items)
        self.dead, self.live, self.needy = dead, live, needy

    def preflight(self) -> list[str]:
        return ["a TOY_KEY: set TOY_KEY"] if self.needy else []

    def endpoints(self) -> list[Endpoint]:
        return [
            Endpoint("--model toy", self.dead),
            Endpoint("--judge toy", self.dead),
            Endpoint("--embedder toy", self.live),
        ]


@pytest.mark.parametrize("needy", [False, True])
def test_a_dead_server_stops_the_run_before_anything_in_the_same_message(
    tmp_path: Path, needy: bool
) -> None:
    import socket

    from tasks_fakes import closed_port_url

    dead = closed_port_url()
    items = _items(tmp_path, _ten())
    req = RunRequest(command="test", argv=["toy"], out=tmp_path / "run")
    with socket.create_server(("127.0.0.1", 0)) as live:
        live_url = f"http://127.0.0.1:{live.getsockname()[1]}"
        with pytest.raises(GaiaEvalError) as info:
            runloop.run(_DeadServerToy(items, dead, live_url, needy), req)
    text = str(info.value)
    # Missing things are exit 2 (fix the install); only a dead server is an outage, 3.
    assert info.value.exit_code == (2 if needy else 3)
    assert ("a TOY_KEY" in text) is needy
    # One line for the shared dead server naming both roles; the live one is not named.
    assert f"--model toy and --judge toy: nothing answers at {dead}" in text
    assert "Connection refused" in text and live_url not in text
    assert not (tmp_path / "run").exists()
