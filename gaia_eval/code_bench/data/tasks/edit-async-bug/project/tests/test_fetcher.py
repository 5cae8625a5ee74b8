import asyncio

from fetcher import fetch_all


async def slow_echo(url):
    # The first url takes longest, so completion order is the reverse of the input order.
    await asyncio.sleep(0.01 * (10 - int(url)))
    return f"page {url}"


def test_results_keep_the_order_of_the_urls():
    urls = [str(i) for i in range(6)]
    got = asyncio.run(asyncio.wait_for(fetch_all(urls, slow_echo, limit=6), timeout=2))
    assert got == [f"page {u}" for u in urls]
