"""Fetching many URLs concurrently."""

import asyncio


async def fetch_all(urls, fetch, limit=4):
    """Fetch every url with `await fetch(url)`, at most `limit` at a time, and return the
    results in the order of `urls`. An exception raised by any fetch propagates to the
    caller. ValueError for a limit below 1."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    semaphore = asyncio.Semaphore(limit)

    async def one(url):
        async with semaphore:
            return await fetch(url)

    # gather returns results in the order of its arguments, whatever order they finish in.
    return list(await asyncio.gather(*(one(u) for u in urls)))
