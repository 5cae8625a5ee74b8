"""Load generators: closed loop (fixed concurrency) and open loop (Poisson or constant rate).

Both stamp every record with its scheduled time, so the client's own lag (start - scheduled)
is always measured; open loop measures latency from the scheduled time, so a client that
falls behind shows up in the latencies instead of hiding as a lower offered load.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gaia_eval.throughput.client import StreamClient
from gaia_eval.throughput.record import StreamRecord

Arrivals = Literal["poisson", "constant"]
SEED = 20260930
_LEAD_NS = 2_000_000  # the first open-loop arrival, so setup never counts as lag


@dataclass(frozen=True)
class LevelPlan:
    """One load level: a concurrency or a request rate, and when to stop."""

    concurrency: int | None = None
    """Closed loop: requests kept in flight."""
    rate: float | None = None
    """Open loop: mean arrivals per second."""
    arrivals: Arrivals = "poisson"
    """Open loop: exponential (Poisson process) or constant inter-arrival times."""
    burstiness: float = 1.0
    """Open loop, poisson: the gamma shape of the inter-arrival times (vLLM's
    `--burstiness`): 1 is a Poisson process, below 1 burstier, above 1 steadier."""
    requests: int | None = None
    """Stop after this many requests are sent."""
    duration_s: float | None = None
    """Or stop sending after this many seconds."""
    max_error_rate: float = 0.5
    """Stop sending once more than this share of finished requests failed..."""
    min_finished: int = 8
    """...counted only after this many finished (one early failure is not a trend)."""
    sweep: str | None = None
    """`--sweep`: `sync` / `max` (the closed-loop probes) or the open-loop step `1`..`N`,
    whose concurrency or rate the suite fills in from the probes when it runs."""


@dataclass
class LevelRun:
    """What one level produced: raw records plus the client's own cost."""

    records: list[StreamRecord] = field(default_factory=list)
    """Every counted request in send order, failures included."""
    t_begin_ns: int = 0
    """The level's first scheduled send."""
    t_finish_ns: int = 0
    """The last response's end."""
    client_cpu_s: float = 0.0
    """CPU seconds of the event-loop thread over the level (the client's whole cost)."""
    stopped: str | None = None
    """Why sending stopped early ('error_rate'), or None."""
    item_index: list[int] = field(default_factory=list)
    """For each record, the index of the workload request it sent."""


class _Stopper:
    def __init__(self, plan: LevelPlan) -> None:
        self.plan = plan
        self.finished = 0
        self.failed = 0
        self.stopped: str | None = None

    def note(self, rec: StreamRecord) -> None:
        self.finished += 1
        self.failed += rec.error_kind is not None
        if (
            self.stopped is None
            and self.finished >= self.plan.min_finished
            and self.failed / self.finished > self.plan.max_error_rate
        ):
            self.stopped = "error_rate"


def arrival_offsets_ns(
    rate: float, count: int, arrivals: Arrivals, seed: int = SEED, *, burstiness: float = 1.0
) -> list[int]:
    """Offsets of `count` arrivals from the level's start, seeded for repeatability.
    Poisson arrivals draw gamma inter-arrival times of shape `burstiness` and mean 1/rate
    (shape 1 is the exponential, as vLLM's `--burstiness`)."""
    rng = random.Random(seed)
    t = 0.0
    out = []
    for i in range(count):
        if i:
            if arrivals == "constant":
                t += 1.0 / rate
            elif burstiness == 1.0:
                t += rng.expovariate(rate)
            else:
                t += rng.gammavariate(burstiness, 1.0 / (rate * burstiness))
        out.append(int(t * 1e9))
    return out


async def run_level(
    client: StreamClient, requests: Sequence[bytes], plan: LevelPlan, *, item_offset: int = 0
) -> LevelRun:
    """Run one level, cycling through the prepared `requests`."""
    if not requests:
        msg = "a level needs at least one prepared request"
        raise ValueError(msg)
    if plan.requests is None and plan.duration_s is None:
        msg = "a level needs a request count or a duration"
        raise ValueError(msg)
    run = LevelRun()
    stopper = _Stopper(plan)
    cpu0 = time.thread_time()
    if plan.concurrency is not None:
        await _closed(client, requests, plan, run=run, stopper=stopper, offset=item_offset)
    else:
        await _open(client, requests, plan, run=run, stopper=stopper, offset=item_offset)
    run.client_cpu_s = time.thread_time() - cpu0
    run.stopped = stopper.stopped
    run.t_finish_ns = max((r.t_end_ns for r in run.records), default=run.t_begin_ns)
    return run


async def _closed(
    client: StreamClient,
    requests: Sequence[bytes],
    plan: LevelPlan,
    *,
    run: LevelRun,
    stopper: _Stopper,
    offset: int,
) -> None:
    assert plan.concurrency is not None
    run.t_begin_ns = time.monotonic_ns()
    deadline = run.t_begin_ns + int(plan.duration_s * 1e9) if plan.duration_s else None
    state = {"next": 0, "in_flight": 0}

    async def worker() -> None:
        ready = time.monotonic_ns()
        while stopper.stopped is None:
            i = state["next"]
            if plan.requests is not None and i >= plan.requests:
                return
            if deadline is not None and ready >= deadline:
                return
            state["next"] = i + 1
            state["in_flight"] += 1
            rec = StreamRecord(t_scheduled_ns=ready, in_flight=state["in_flight"])
            run.records.append(rec)
            run.item_index.append((offset + i) % len(requests))
            await client.send(requests[(offset + i) % len(requests)], rec)
            state["in_flight"] -= 1
            stopper.note(rec)
            ready = time.monotonic_ns()

    await asyncio.gather(*(worker() for _ in range(plan.concurrency)))


async def _open(
    client: StreamClient,
    requests: Sequence[bytes],
    plan: LevelPlan,
    *,
    run: LevelRun,
    stopper: _Stopper,
    offset: int,
) -> None:
    assert plan.rate is not None and plan.rate > 0
    count = plan.requests
    if count is None:
        assert plan.duration_s is not None
        count = max(1, int(plan.rate * plan.duration_s * 3) + 16)  # enough to cover it
    offsets = arrival_offsets_ns(plan.rate, count, plan.arrivals, burstiness=plan.burstiness)
    t0 = time.monotonic_ns() + _LEAD_NS
    run.t_begin_ns = t0
    end = t0 + int(plan.duration_s * 1e9) if plan.duration_s else None
    in_flight = 0
    tasks: list[asyncio.Task[StreamRecord]] = []

    async def one(req: bytes, rec: StreamRecord) -> StreamRecord:
        nonlocal in_flight
        try:
            return await client.send(req, rec)
        finally:
            in_flight -= 1
            stopper.note(rec)

    for i, off in enumerate(offsets):
        due = t0 + off
        if end is not None and due >= end:
            break
        if stopper.stopped is not None:
            break
        delay = (due - time.monotonic_ns()) / 1e9
        if delay > 0:
            await asyncio.sleep(delay)
        in_flight += 1
        rec = StreamRecord(t_scheduled_ns=due, in_flight=in_flight)
        run.records.append(rec)
        run.item_index.append((offset + i) % len(requests))
        tasks.append(asyncio.create_task(one(requests[(offset + i) % len(requests)], rec)))
    if tasks:
        await asyncio.gather(*tasks)
