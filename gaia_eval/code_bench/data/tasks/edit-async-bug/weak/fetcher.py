"""Fetching many URLs concurrently."""

import asyncio


async def fetch_all(urls, fetch, limit=4):
    """Fetch every url with `await fetch(url)`, at most `limit` at a time, and return the
    results in the order of `urls`."""
    semaphore = asyncio.Semaphore(limit)

    async def one(url):
        async with semaphore:
            return await fetch(url)

    return list(await asyncio.gather(*(one(u) for u in urls), return_exceptions=True))
