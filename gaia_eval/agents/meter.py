"""Billing meters: a run's real cost, read from the provider's own billing (`--meter`).

A meter snapshots the account's spend before and after the run. Both snapshots count from
one fixed window start (the run's start, floored to the day): a sliding window ("the last
N days") drops older usage between the two and made deltas come out negative. The meter
trails the calls it counts (about 90 s on Fireworks), so the closing snapshot waits that
lag out first. It is account-wide, so two metered runs on one account at once would
pollute each other: a lock file per account refuses the second (exit 4) on one machine.

`fireworks`: GET `<base>/v1/accounts/<account>/billing/usage?startTime=..&endTime=..`
with the bearer key FIREWORKS_API_KEY, answering `{"buckets": [{"startTime": ISO,
"costUsd": number-or-string}, ...]}` (daily buckets). That wire format is assumed from the
provider's description, not checked against the live service (which tests cannot reach);
the tests run against a loopback fake of it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Protocol

from pydantic import BaseModel, ConfigDict

from gaia_eval.core.errors import InfrastructureError, InvalidInputError, LockHeldError

FIREWORKS_BILLING_URL = "https://api.fireworks.ai"
LAG_ENV = "GAIA_EVAL_METER_LAG_S"
BILLING_URL_ENV = "GAIA_EVAL_FIREWORKS_BILLING_URL"
KEY_ENV = "FIREWORKS_API_KEY"
DEFAULT_LAG_S = 90.0
METERS = ("fireworks",)


class Snapshot(BaseModel):
    """One reading of the account's spend since the window start."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    at: str
    """When it was read (UTC, ISO 8601)."""
    usd: float
    """Spend from the window start to `at`."""
    buckets: int
    """How many billing buckets the meter returned."""


class MeterRecord(BaseModel):
    """The meter's account of one run (the envelope's setup["meter"])."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    meter: str
    """Which meter (fireworks)."""
    account: str
    """The billed account."""
    window_start: str
    """The fixed start both snapshots count from (UTC, ISO 8601)."""
    lag_s: float
    """How long the run waited for the meter to catch up before the closing snapshot."""
    before: Snapshot
    """Before the first task."""
    after: Snapshot | None = None
    """After the last task (and the lag); None while the run is going or if it stopped."""

    def usd(self) -> float | None:
        """What the run cost (after - before), or None before the closing snapshot."""
        if self.after is None:
            return None
        return round(self.after.usd - self.before.usd, 6)


class Meter(Protocol):
    """A provider's billing meter."""

    name: str
    account: str
    lag_s: float

    def snapshot(self, window_start: datetime) -> Snapshot:
        """The spend since `window_start` (InfrastructureError when it cannot be read)."""
        ...


def _iso(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def window_start(now: datetime | None = None) -> datetime:
    """The run's fixed window start: its start time, floored to the UTC day (the meter's
    buckets are daily, so a later start would cut the first bucket in two)."""
    now = now or datetime.now(UTC)
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


class FireworksMeter:
    name = "fireworks"

    def __init__(
        self,
        account: str,
        api_key: str,
        base_url: str = FIREWORKS_BILLING_URL,
        lag_s: float = DEFAULT_LAG_S,
        timeout_s: float = 30.0,
    ) -> None:
        self.account = account
        self._key = api_key
        self.base_url = base_url.rstrip("/")
        self.lag_s = lag_s
        self.timeout_s = timeout_s

    def snapshot(self, window_start: datetime) -> Snapshot:
        now = datetime.now(UTC)
        query = urllib.parse.urlencode({"startTime": _iso(window_start), "endTime": _iso(now)})
        account = urllib.parse.quote(self.account, safe="")
        url = f"{self.base_url}/v1/accounts/{account}/billing/usage?{query}"
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {self._key}"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as reply:
                data = json.loads(reply.read())
        except urllib.error.HTTPError as err:
            msg = f"fireworks billing meter: HTTP {err.code} from {self.base_url} ({err.reason})"
            raise InfrastructureError(msg) from None
        except (OSError, ValueError) as err:
            msg = f"fireworks billing meter at {self.base_url} unreachable: {type(err).__name__}"
            raise InfrastructureError(msg) from None
        buckets = data.get("buckets") if isinstance(data, dict) else None
        if not isinstance(buckets, list):
            msg = f"fireworks billing meter: no `buckets` list in the reply from {self.base_url}"
            raise InfrastructureError(msg)
        try:
            usd = sum(float(b.get("costUsd") or 0) for b in buckets if isinstance(b, dict))
        except (TypeError, ValueError) as err:
            msg = f"fireworks billing meter: a bucket's costUsd is not a number ({err})"
            raise InfrastructureError(msg) from None
        return Snapshot(at=_iso(now), usd=round(usd, 6), buckets=len(buckets))


def lag_seconds() -> float:
    raw = os.environ.get(LAG_ENV, "").strip()
    if not raw:
        return DEFAULT_LAG_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if value < 0:
        msg = f"{LAG_ENV}={raw!r}: expected seconds >= 0"
        raise InvalidInputError(msg)
    return value


def build_meter(name: str, account: str | None) -> Meter:
    """The meter `name` for `account` (exit 2 naming what is missing)."""
    if name != "fireworks":
        msg = f"--meter {name!r}: expected one of {list(METERS)}"
        raise InvalidInputError(msg)
    missing = []
    if not account:
        missing.append("the account id (GAIA_EVAL_FIREWORKS_ACCOUNT_ID or FIREWORKS_ACCOUNT_ID)")
    key = os.environ.get(KEY_ENV, "").strip()
    if not key:
        missing.append(f"the billing key ({KEY_ENV})")
    if missing:
        msg = "--meter fireworks needs " + " and ".join(missing)
        raise InvalidInputError(msg)
    assert account is not None
    from gaia_eval.scrub import register_known

    register_known(key)
    base = os.environ.get(BILLING_URL_ENV, "").strip() or FIREWORKS_BILLING_URL
    return FireworksMeter(account, key, base, lag_s=lag_seconds())


def _lock_file(meter: Meter) -> Path:
    from gaia_eval.core.lock_holder import lock_dir

    slug = "".join(c if c.isalnum() or c in "-_." else "_" for c in meter.account)
    return Path(lock_dir()) / f"meter-{meter.name}-{slug}.lock"


@contextlib.contextmanager
def account_lock(meter: Meter) -> Iterator[None]:
    """One metered run per account on this machine at a time (exit 4 for the second)."""
    path = _lock_file(meter)
    path.parent.mkdir(parents=True, exist_ok=True)
    fh: IO[str] = path.open("a+", encoding="utf-8")
    try:
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            try:
                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            except OSError:
                ok = False
            else:
                ok = True
        else:
            import fcntl

            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                ok = False
            else:
                ok = True
        if not ok:
            fh.seek(0)
            holder = fh.read().strip() or "another process"
            msg = (
                f"--meter {meter.name}: another metered run on account {meter.account} is "
                f"going ({holder}); the meter is account-wide, so the two would pollute each "
                f"other. Wait for it to finish (lock {path})"
            )
            raise LockHeldError(msg)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()} since {_iso(datetime.now(UTC))}\n")
        fh.flush()
        yield
    finally:
        fh.close()


def opening(meter: Meter, start: datetime | None = None) -> MeterRecord:
    """The record with its first snapshot, taken before the first task."""
    begin = start or window_start()
    return MeterRecord(
        meter=meter.name,
        account=meter.account,
        window_start=_iso(begin),
        lag_s=meter.lag_s,
        before=meter.snapshot(begin),
    )


def closing(meter: Meter, record: MeterRecord, sleep: object = time.sleep) -> MeterRecord:
    """The record with its closing snapshot, after waiting out the meter's lag."""
    if record.lag_s > 0:
        assert callable(sleep)
        sleep(record.lag_s)
    begin = datetime.strptime(record.window_start, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    return record.model_copy(update={"after": meter.snapshot(begin)})
