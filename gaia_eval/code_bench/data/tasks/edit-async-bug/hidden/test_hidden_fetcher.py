import asyncio

import pytest

from fetcher import fetch_all


def run(coro):
    # A deadlock (a semaphore nobody releases) fails the test instead of hanging it.
    return asyncio.run(asyncio.wait_for(coro, timeout=2))


class Probe:
    """A fake fetch that records how many calls run at once."""

    def __init__(self):
        self.running = 0
        self.peak = 0

    async def __call__(self, url):
        self.running += 1
        self.peak = max(self.peak, self.running)
        await asyncio.sleep(0.005)
        self.running -= 1
        return url.upper()


def test_limit_is_respected_and_used():
    probe = Probe()
    urls = [f"u{i}" for i in range(12)]
    assert run(fetch_all(urls, probe, limit=3)) == [u.upper() for u in urls]
    assert probe.peak == 3


def test_default_limit_is_four():
    probe = Probe()
    run(fetch_all([f"u{i}" for i in range(9)], probe))
    assert probe.peak == 4


def test_exceptions_propagate():
    async def fetch(url):
        await asyncio.sleep(0)
        if url == "bad":
            raise ConnectionError("bad host")
        return url

    with pytest.raises(ConnectionError):
        run(fetch_all(["a", "bad", "c"], fetch))


def test_empty():
    assert run(fetch_all([], Probe())) == []


def test_duplicates_are_fetched_each_time():
    probe = Probe()
    assert run(fetch_all(["x", "x", "y"], probe)) == ["X", "X", "Y"]


@pytest.mark.parametrize("limit", [0, -1])
def test_bad_limit(limit):
    with pytest.raises(ValueError):
        run(fetch_all(["a"], Probe(), limit=limit))
