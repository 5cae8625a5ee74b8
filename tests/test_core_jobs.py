"""`--jobs N` in the engine: items in flight, item order, resume after a kill, the shared
backoff of one limiter per backend, budgets, and what the header records."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gaia_eval.bench._model_server import delayed_model, reply_text
from gaia_eval.core import limits, runloop
from gaia_eval.core.errors import InvalidInputError
from gaia_eval.core.results import load_envelope
from gaia_eval.core.runloop import RunRequest, read_item_log

sys.path.insert(0, str(Path(__file__).parent))
from engine_toy import ToySuite
from engine_toy_jobs import BenchToySuite, JobsToySuite, SerialToySuite
from test_core_engine import _items, _toy_process, _wait_for_items


@pytest.fixture(autouse=True)
def _no_lock(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GAIA_EVAL_LOCK_DIR", str(tmp_path / "lock"))


def _run(items: Path, out: Path | None, suite: type[ToySuite] = JobsToySuite, **kw: Any) -> Any:
    req = RunRequest(command="test", argv=["toy"], out=out, **kw)
    return runloop.run(suite(items), req)


def _stable(env: Any) -> list[tuple[str, str, Any]]:
    """Item by item, without what differs between any two runs (times)."""
    return [(r.id, r.status, r.result) for r in env.items]


def _sleepy(n: int) -> dict[str, dict[str, Any]]:
    # Later items finish first with 4 in flight: completion order != item order.
    return {
        f"q{i:02d}": {"value": i / n, "do": "sleep", "seconds": 0.05 * ((n - i) % 5)}
        for i in range(n)
    }


def test_jobs_4_equals_jobs_1_item_for_item_in_item_order(tmp_path: Path) -> None:
    items = _items(tmp_path, _sleepy(12))
    one = _run(items, tmp_path / "one", jobs=1)
    four = _run(items, tmp_path / "four", jobs=4)
    assert _stable(four.envelope) == _stable(one.envelope)
    assert [r.id for r in four.envelope.items] == [f"q{i:02d}" for i in range(12)]
    assert four.envelope.summary == one.envelope.summary
    # results.json on disk in item order too; the log is whole lines in completion order
    on_disk = load_envelope(tmp_path / "four")
    assert [r.id for r in on_disk.items] == [r.id for r in one.envelope.items]
    log_text = (tmp_path / "four" / "items.jsonl").read_text()
    logged = [json.loads(line)["id"] for line in log_text.splitlines()]
    assert sorted(logged) == sorted(r.id for r in one.envelope.items)
    assert logged != sorted(logged)  # they finished out of order
    assert four.envelope.header.concurrency is not None
    assert four.envelope.header.concurrency.jobs == 4
    assert one.envelope.header.concurrency is not None
    assert one.envelope.header.concurrency.jobs == 1
    assert "--jobs 4" in (tmp_path / "four" / "report.md").read_text()


def test_items_really_overlap_with_jobs(tmp_path: Path) -> None:
    rows = {f"q{i}": {"value": 0.9, "do": "chat", "url": "", "seconds": 0} for i in range(8)}
    with delayed_model(0.3) as (url, log):
        for row in rows.values():
            row["url"] = url
        out = _run(_items(tmp_path, rows), tmp_path / "run", jobs=4)
    assert log.most_in_flight == 4  # never more than --jobs, and really 4 at once
    assert [r.result["reply"] for r in out.envelope.items] == [reply_text(i) for i in rows]


def test_a_suite_that_did_not_opt_in_refuses_jobs_naming_itself(tmp_path: Path) -> None:
    items = _items(tmp_path, _sleepy(3))
    with pytest.raises(InvalidInputError, match="the toy-serial suite runs its items one at a"):
        _run(items, tmp_path / "a", SerialToySuite, jobs=2)
    assert not (tmp_path / "a").exists()  # refused before anything
    assert _run(items, tmp_path / "b", SerialToySuite, jobs=1).exit_code == 0
    with pytest.raises(InvalidInputError, match="the toy-bench suite does not take --jobs"):
        _run(items, tmp_path / "c", BenchToySuite, jobs=1)


def test_the_cli_refuses_jobs_for_the_benchmark_with_exit_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gaia_eval.cli.main import main

    code = main(["benchmark", "--model", "openai:http://127.0.0.1:9/v1#m", "--jobs", "2"])
    assert code == 2
    assert "does not take --jobs" in capsys.readouterr().err


def test_shared_backoff_on_429_retry_after(tmp_path: Path) -> None:
    """Every third request is a 429 with Retry-After: 1. All workers wait it out (no
    request reaches the server while a backoff runs), every item is measured, none fails,
    and the number of requests stays bounded (each throttle costs one more)."""
    n = 12
    rows = {f"q{i:02d}": {"value": 0.9, "do": "chat", "url": ""} for i in range(n)}
    with delayed_model(0.05, throttle_every=3, retry_after="1") as (url, log):
        for row in rows.values():
            row["url"] = url
        out = _run(_items(tmp_path, rows), tmp_path / "run", jobs=4)
    env = out.envelope
    assert out.exit_code == 0 and env.header.complete
    assert all(r.status == "ok" for r in env.items) and len(env.items) == n
    assert [r.result["reply"] for r in env.items] == [reply_text(i) for i in rows]
    throttles = log.throttles()
    assert throttles
    # n answered requests, each 3rd of all requests a 429: about n/2 extra, never a storm
    assert n + len(throttles) == log.requests <= n + n // 2 + 1
    for t in throttles:  # nobody sent while the backoff ran (0.2 s margin for replies in flight)
        assert not [a for a, _ in log.arrivals if t + 0.2 < a < t + 0.95]
    conc = env.header.concurrency
    assert conc is not None
    (record,) = conc.endpoints.values()
    assert record.throttled == len(throttles) and record.cap == 4
    assert record.requests == log.requests
    # each throttle waits 1-1.25 s; overlapping ones (two replies in flight) count once
    assert 1.0 <= conc.backoff_s <= 1.25 * len(throttles)


def test_limiter_caps_requests_in_flight_across_threads() -> None:
    import threading

    lim = limits.Limiter("http://x:1", 2)
    now = {"in": 0, "most": 0}
    guard = threading.Lock()

    def one() -> None:
        with lim.slot():
            with guard:
                now["in"] += 1
                now["most"] = max(now["most"], now["in"])
            time.sleep(0.05)
            with guard:
                now["in"] -= 1

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert now["most"] == 2 and lim.usage.requests == 8


def test_limiter_backoff_grows_without_retry_after_and_resets_on_success() -> None:
    import random

    lim = limits.Limiter("http://x:1", 1, rng=random.Random(1))
    first = lim.throttled(None, base_s=0.01)
    second = lim.throttled(None, base_s=0.01)
    assert 0.01 <= first <= 0.0125 and 0.02 <= second <= 0.025
    lim.ok()
    assert lim.throttled(None, base_s=0.01) <= 0.0125
    assert limits.retry_after_s("2") == 2.0 and limits.retry_after_s("Wed, 21 Oct") is None
    assert limits.endpoint_key("https://u:secret@api.example.com/v1") == (
        "https://api.example.com:443"
    )


def test_budget_stops_starting_items_and_the_report_says_how_many(tmp_path: Path) -> None:
    rows = {f"q{i}": {"value": 0.9, "cost": 0.1} for i in range(10)}
    items = _items(tmp_path, rows)
    out = _run(items, tmp_path / "one", jobs=1, budget_usd=0.25)
    conc = out.envelope.header.concurrency
    assert conc is not None and conc.not_started == 7 and len(out.envelope.items) == 3
    assert not out.envelope.header.complete
    assert "7 items(s) not started" in (tmp_path / "one" / "report.md").read_text().replace(
        "item(s)", "items(s)"
    )
    four = _run(items, tmp_path / "four", jobs=4, budget_usd=0.25)
    c4 = four.envelope.header.concurrency
    assert c4 is not None and c4.not_started > 0
    assert len(four.envelope.items) + c4.not_started == 10
    assert c4.spent_usd is not None and c4.spent_usd >= 0.25


def test_kill_with_items_in_flight_then_resume_equals_an_uninterrupted_run(
    tmp_path: Path,
) -> None:
    rows = {f"q{i:02d}": {"value": i / 12, "do": "sleep", "seconds": 0.6} for i in range(12)}
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    proc = _toy_process(items, out, "--jobs", "4")
    _wait_for_items(out, 4)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    done = {r.id: r.ran_at for r in read_item_log(out / "items.jsonl")}
    assert 4 <= len(done) < 12
    for v in rows.values():
        v["seconds"] = 0.0
    items.write_text(json.dumps(rows))
    resumed = _run(items, None, resume=out, jobs=4)
    straight = _run(items, tmp_path / "straight", jobs=1)
    assert resumed.envelope.header.complete
    assert _stable(resumed.envelope) == _stable(straight.envelope)
    records = resumed.envelope.records()
    assert all(records[i].ran_at == t for i, t in done.items())  # kept, not re-run
    # exactly the unfinished ones ran again: one line each after the killed part
    lines = (out / "items.jsonl").read_text().splitlines()
    again = [json.loads(line)["id"] for line in lines[len(done) :] if line.strip()]
    assert sorted(again) == sorted(set(rows) - set(done))


def test_sigterm_lets_items_in_flight_finish_and_saves_them(tmp_path: Path) -> None:
    rows = {f"q{i:02d}": {"value": 0.9, "do": "sleep", "seconds": 1.0} for i in range(12)}
    items = _items(tmp_path, rows)
    out = tmp_path / "run"
    proc = _toy_process(items, out, "--jobs", "4")
    _wait_for_items(out, 4)
    time.sleep(0.3)  # the second four are in flight
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=runloop.CANCEL_GRACE_S + 15)
    assert proc.returncode == 128 + signal.SIGTERM
    env = load_envelope(out)
    assert env.header.interrupted and not env.header.complete
    assert len(env.items) == 8  # those in flight finished and were saved; none started after
    assert "Interrupted after 8 of 12" in (out / "report.md").read_text()


def test_progress_counts_in_flight_done_left_with_an_eta_from_item_time_and_n() -> None:
    import io

    from gaia_eval.core.progress import LiveBar

    now = [0.0]
    wait = [0.0]
    bar = LiveBar(
        "toy t1", 10, "item", jobs=4, waiting=lambda: wait[0], stream=io.StringIO(),
        clock=lambda: now[0],
    )  # fmt: skip
    assert bar.eta() is None
    for _ in range(4):
        bar.started()
    now[0] = 2.0
    bar.finished(2.0)
    bar.finished(2.0)  # 2 done, 2 in flight, 6 left; 2 s per item, 4 at a time
    assert bar.eta() == 2.0 * (6 + 2 / 2) / 4
    line = bar.line()
    assert "2 in flight · 2/10 items done · 6 left · jobs 4" in line and "ETA 0:04" in line
    wait[0] = 3.2
    assert bar.line().endswith("backing off 3 s")


def test_a_version_1_envelope_still_loads_without_concurrency(tmp_path: Path) -> None:
    out = _run(_items(tmp_path, _sleepy(2)), tmp_path / "run", jobs=1)
    raw = json.loads((tmp_path / "run" / "results.json").read_text())
    assert raw["schema"] == 2 and raw["header"]["concurrency"]["jobs"] == 1
    raw["schema"] = 1
    del raw["header"]["concurrency"]
    old = tmp_path / "v1.json"
    old.write_text(json.dumps(raw))
    env = load_envelope(old)
    assert env.header.concurrency is None
    assert [r.id for r in env.items] == [r.id for r in out.envelope.items]
