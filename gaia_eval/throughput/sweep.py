"""`--sweep`: find the highest request rate a server sustains. Pure.

Two closed-loop probes bound it: one request at a time (`sweep-sync`, the rate of a server
that is never queued) and many at once (`sweep-max`, the ceiling it reaches when always
busy). The open-loop levels `sweep-1` .. `sweep-N` then offer rates evenly spaced from the
first to 1.2 times the second, so the top level overloads the server and the curve shows
its knee. A level sustained its rate when the server completed requests as fast as they
arrived (completion rate >= 90% of the realised arrival rate), its latency did not keep
growing (the later half's median E2E within 1.5x the earlier half's) and at most 5% of its
requests failed; with `--slo`, also >= 90% of its requests met every objective. The sweep's
answer is the realised arrival rate of the highest step in the
unbroken run of sustained steps from the bottom; a sustained step above a failed one is
named as unsettled (more requests per level would settle it).
"""

from __future__ import annotations

from collections.abc import Sequence

from gaia_eval.throughput.models import LevelStats, SweepResult

SYNC = "sync"
MAX = "max"
PREFIX = "sweep-"
OVERSHOOT = 1.2
"""The top rate over the closed-loop ceiling: one level past the knee."""
KEEP_UP = 0.9
"""A level sustained its rate when completions kept up to this share of arrivals..."""
MAX_ERRORS = 0.05
"""...no more than this share of its requests failed..."""
MAX_GROWTH = 1.5
"""...and the later half's median E2E stayed within this factor of the earlier half's."""
DEFAULT_MAX_CONCURRENCY = 16
"""The ceiling probe's concurrency when the server publishes no slot count."""


def probe_concurrency(slots: int | None) -> int:
    """Concurrency of the ceiling probe: twice the server's slots (so every slot is busy
    and a queue forms), else DEFAULT_MAX_CONCURRENCY."""
    return max(2, 2 * slots) if slots else DEFAULT_MAX_CONCURRENCY


def rates(sync_rps: float, max_rps: float, count: int) -> list[float]:
    """`count` offered rates, evenly spaced from `sync_rps` to OVERSHOOT x the ceiling."""
    lo = sync_rps
    hi = max(max_rps, sync_rps) * OVERSHOOT
    if count == 1:
        return [_round(hi)]
    return [_round(lo + (hi - lo) * k / (count - 1)) for k in range(count)]


def _round(x: float) -> float:
    return float(f"{x:.4g}")


def sustained(s: LevelStats) -> bool:
    """Completions kept up with arrivals, latency did not keep growing, and few requests
    failed (see the module doc)."""
    if s.offered_rps is None or s.completion_rps is None or s.stopped:
        return False
    if s.e2e_growth is not None and s.e2e_growth > MAX_GROWTH:
        return False
    if s.goodput is not None and s.goodput.share < KEEP_UP:
        return False  # --slo: a rate served too slowly for the objectives is not sustained
    return s.completion_rps >= KEEP_UP * s.offered_rps and s.error_rate <= MAX_ERRORS


def e2e_growth(e2e_in_send_order: Sequence[float]) -> float | None:
    """Median E2E of a level's later half / its earlier half: a queue that keeps growing
    makes each request wait longer than the one before (None with fewer than 4)."""
    n = len(e2e_in_send_order)
    if n < 4:
        return None
    early = sorted(e2e_in_send_order[: n // 2])
    late = sorted(e2e_in_send_order[n // 2 :])
    first = early[len(early) // 2]
    return round(late[len(late) // 2] / first, 4) if first > 0 else None


def summarise(levels: Sequence[LevelStats]) -> SweepResult | None:
    """The sweep's findings from its levels (None when the run was no sweep)."""
    by_id = {s.level: s for s in levels if s.level.startswith(PREFIX)}
    if not by_id:
        return None
    sync, top = by_id.get(PREFIX + SYNC), by_id.get(PREFIX + MAX)
    steps = [s for s in levels if s.level.startswith(PREFIX) and s.rate is not None]
    # The steps from the bottom up to the first that failed: a higher step that passes
    # after one that failed is noise (too few requests), not capacity. And the realised
    # arrival rate, not the nominal: only what arrived was sustained.
    held: list[float] = []
    for s in sorted(steps, key=lambda s: s.rate or 0.0):
        if not s.sustained or s.offered_rps is None:
            break
        held.append(s.offered_rps)
    above = [
        s.level for s in steps if s.sustained and (s.offered_rps or 0.0) > max(held, default=0.0)
    ]
    return SweepResult(
        sync_rps=sync.requests_per_s if sync else None,
        max_rps=top.requests_per_s if top else None,
        max_concurrency=top.concurrency if top else None,
        rates=[s.rate for s in steps if s.rate is not None],
        sustained_rps=max(held) if held else None,
        unsettled=above,
    )
