"""`--meter fireworks` against a loopback fake of the billing API (its wire format as
gaia_eval.agents.meter assumes it): one fixed window start, the lag waited out, the
account lock, the metered cost in the reports; cost labels in every cell."""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from loopback import running, url_of
from tasks_run_helpers import envelope

from gaia_eval.agents import meter as meters
from gaia_eval.cli.main import main
from gaia_eval.core.errors import InfrastructureError
from gaia_eval.tasks.models import TasksSummary
from gaia_eval.tasks.report import money

KEY = "fw_billingkey0123456789abcdef"


class Billing:
    """The account's spend grows by `step` USD per reading; every request is recorded."""

    def __init__(self, start: float, step: float, status: int = 200) -> None:
        self.usd = start
        self.step = step
        self.status = status
        self.requests: list[tuple[float, str, dict[str, str], str]] = []


@contextmanager
def fake_billing(billing: Billing) -> Iterator[str]:
    class H(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            parts = urllib.parse.urlsplit(self.path)
            query = {k: v[0] for k, v in urllib.parse.parse_qs(parts.query).items()}
            auth = self.headers.get("Authorization", "")
            billing.requests.append((time.monotonic(), parts.path, query, auth))
            if billing.status != 200:
                body = json.dumps({"error": "nope"}).encode()
                self.send_response(billing.status)
            else:
                # Daily buckets from the window start; the last one grows as calls land.
                buckets = [
                    {"startTime": query["startTime"], "costUsd": "1.0"},
                    {"startTime": "later", "costUsd": round(billing.usd - 1.0, 6)},
                ]
                body = json.dumps({"buckets": buckets}).encode()
                billing.usd += billing.step
                self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with running(H) as server:
        yield url_of(server)


def _replay(tmp_path: Path) -> Path:
    path = tmp_path / "replay.json"
    path.write_text(json.dumps({"21-qa": [{"answer": "x"}], "02-bugfix": [{"answer": "y"}]}))
    return path


def _argv(tmp_path: Path, out: str = "run") -> list[str]:
    return [
        "tasks", "run", "--tasks", "21-qa", "--no-judge", "--harness", "replay",
        "--replay", str(_replay(tmp_path)), "--meter", "fireworks",
        "--out", str(tmp_path / out), "--work-root", str(tmp_path / "w"),
    ]  # fmt: skip


@pytest.fixture
def metered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIREWORKS_ACCOUNT_ID", "acct-1")
    monkeypatch.setenv("FIREWORKS_API_KEY", KEY)
    monkeypatch.setenv(meters.LAG_ENV, "0.4")


def test_metered_run_waits_out_the_lag_from_one_window_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metered: None
) -> None:
    billing = Billing(start=1.25, step=0.0731)
    with fake_billing(billing) as url:
        monkeypatch.setenv(meters.BILLING_URL_ENV, url)
        assert main(_argv(tmp_path)) == 0
    (t1, path1, q1, auth1), (t2, _, q2, _) = billing.requests
    assert path1 == "/v1/accounts/acct-1/billing/usage" and auth1 == f"Bearer {KEY}"
    # One fixed window start for both snapshots (a sliding window made deltas negative).
    assert q1["startTime"] == q2["startTime"] and q1["startTime"].endswith("T00:00:00Z")
    assert q2["endTime"] >= q1["endTime"]
    assert t2 - t1 >= 0.4  # the closing snapshot waited out the meter's lag
    env = envelope(tmp_path / "run")
    rec = meters.MeterRecord.model_validate(env.setup["meter"])
    assert rec.before.usd == 1.25 and rec.after is not None and rec.after.usd == 1.3231
    assert rec.usd() == pytest.approx(0.0731) and rec.lag_s == 0.4
    summary = TasksSummary.model_validate(env.summary)
    assert summary.cost.source == "metered" and summary.cost.total_usd == pytest.approx(0.0731)
    report = (tmp_path / "run" / "report.md").read_text()
    assert "$0.0731 (metered)" in report and "acct-1" in report
    assert KEY not in report and KEY not in (tmp_path / "run" / "results.json").read_text()
    # The harness x model table labels the cell the same way.
    assert main(["tasks", "report", str(tmp_path / "run"), "--out", str(tmp_path / "rep")]) == 0
    assert "$0.0731 (metered)" in (tmp_path / "rep" / "report.md").read_text()


def test_two_metered_runs_on_one_account_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], metered: None
) -> None:
    m = meters.build_meter("fireworks", "acct-1")
    with meters.account_lock(m):
        assert main(_argv(tmp_path)) == 4
    err = capsys.readouterr().err
    assert "another metered run on account acct-1" in err
    assert not (tmp_path / "run").exists()
    other = meters.build_meter("fireworks", "acct-2")
    with meters.account_lock(other), meters.account_lock(m):
        pass  # another account, and the lock is free again once released


def test_meter_needs_account_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FIREWORKS_ACCOUNT_ID", raising=False)
    monkeypatch.delenv("FIREWORKS_API_KEY", raising=False)
    assert main(_argv(tmp_path)) == 2
    err = capsys.readouterr().err
    assert "FIREWORKS_ACCOUNT_ID" in err and "FIREWORKS_API_KEY" in err


def test_meter_outage_stops_before_any_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, metered: None
) -> None:
    with fake_billing(Billing(1.0, 0.0, status=503)) as url:
        monkeypatch.setenv(meters.BILLING_URL_ENV, url)
        assert main(_argv(tmp_path)) == 3
        m = meters.FireworksMeter("acct-1", KEY, url, lag_s=0)
        with pytest.raises(InfrastructureError, match="HTTP 503"):
            m.snapshot(meters.window_start())
    assert not (tmp_path / "run" / "results.json").exists()


def test_every_cost_cell_names_its_source() -> None:
    assert money(0.095, "harness_counts") == "$0.0950 (harness counts)"
    assert money(1.5, "api_equivalent") == "$1.5000 (API equivalent)"
    assert money(0.07, "metered") == "$0.0700 (metered)"
    assert money(None, "harness_counts") == "n/a"  # counted nothing: never $0.00


def test_rate_cards_are_one_dated_data_file() -> None:
    from gaia_eval.llm import pricing

    data = pricing.rate_cards()
    assert data["as_of"] == pricing.rate_card_date() and len(data["as_of"]) == 10
    assert pricing.rate_for("claude-sonnet-4-5") == tuple(data["models"]["claude-sonnet-4"]["rate"])
    assert pricing.price("claude-sonnet-4-5", 1_000_000, 0) == 3.0
    assert pricing.price("some-open-model", 1000, 10) is None  # no card: n/a, never $0
