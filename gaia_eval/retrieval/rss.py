"""Resident memory, sampled in a background thread while indexing runs."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from types import TracebackType

_STATUS = Path("/proc/self/status")


def current_rss_mb() -> float:
    """Resident set size now (MiB); the peak so far where the OS offers nothing better."""
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is KiB on Linux and bytes on macOS.
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


class RssSampler:
    """Context manager: start, peak (every `interval` s) and end RSS of the body."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.start_mb = 0.0
        self.peak_mb = 0.0
        self.end_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb, current_rss_mb())

    def __enter__(self) -> RssSampler:
        self.start_mb = self.peak_mb = current_rss_mb()
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.end_mb = current_rss_mb()
        self.peak_mb = max(self.peak_mb, self.end_mb)
