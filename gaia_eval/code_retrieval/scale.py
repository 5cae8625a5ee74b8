"""The scale part: a fresh index with the shipped defaults, its cost and query latency."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from gaia_eval.code_retrieval.models import ScaleRepo
from gaia_eval.core.stats import percentile_nearest_rank
from gaia_eval.systems.code_index.protocol import CodeIndex

LATENCY_QUERIES = (
    "where is the configuration file parsed",
    "retry a failed network request",
    "how are command line arguments handled",
    "write results to disk atomically",
    "parse a date string",
    "raise an error for invalid input",
    "cache the result of an expensive call",
    "open a file and read its lines",
    "compare two versions",
    "log a warning message",
    "convert bytes to text with an encoding",
    "iterate over the items of a dictionary",
    "build the url for a request",
    "validate the user's credentials",
    "format a number with two decimals",
    "split a path into its parts",
    "merge two lists without duplicates",
    "the main entry point of the program",
    "handle a timeout",
    "test that an exception is raised",
)


def _rss_mb() -> float:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class RssSampler:
    """Peak resident memory of this process, sampled every 50 ms in a thread."""

    def __init__(self) -> None:
        self.start = _rss_mb()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            self.peak = max(self.peak, _rss_mb())

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mb())


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure(  # noqa: PLR0917 - one repository's pinned inputs
    repo: str,
    commit: str,
    tree: Path,
    make: Callable[[Path, Path], CodeIndex],
    cache_dir: Path,
    texts: Callable[[CodeIndex], dict[str, str]],
) -> ScaleRepo:
    index = make(tree, cache_dir)
    with RssSampler() as rss:
        t0 = time.perf_counter()
        report = index.index()
        seconds = time.perf_counter() - t0
    corpus = texts(index)
    t1 = time.perf_counter()
    cold = make(tree, cache_dir)
    cold.search(LATENCY_QUERIES[0], 10)
    cold_ms = (time.perf_counter() - t1) * 1000
    lat = []
    for q in LATENCY_QUERIES:
        t = time.perf_counter()
        cold.search(q, 10)
        lat.append((time.perf_counter() - t) * 1000)
    return ScaleRepo(
        repo=repo,
        commit=commit,
        files=report.files_indexed,
        lines=sum(t.count("\n") + 1 for t in corpus.values()),
        chunks=report.chunks,
        chunks_dropped=report.chunks_dropped,
        files_discovered=report.files_discovered,
        discovery_truncated=report.discovery_truncated,
        index_seconds=round(seconds, 3),
        chunks_per_second=round(report.chunks / seconds, 1) if seconds > 0 else 0.0,
        peak_rss_mb=round(rss.peak, 1),
        rss_growth_mb=round(rss.peak - rss.start, 1),
        index_bytes=_dir_bytes(cache_dir),
        cold_query_ms=round(cold_ms, 2),
        query_p50_ms=round(percentile_nearest_rank(lat, 50), 3),
        query_p95_ms=round(percentile_nearest_rank(lat, 95), 3),
    )
