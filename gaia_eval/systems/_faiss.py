"""FAISS searches of the reference systems run on one OpenMP thread.

Their indexes are small exact ones searched with one query (or a handful) at a time:
the work is under a millisecond, and an OpenMP team costs more than it saves. Measured
on the 2-core build machine with other jobs running, one query against 1,227 vectors took
23 ms with FAISS's default two threads (waiting for a descheduled partner) against 0.6 ms
with one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run the block's FAISS calls on one thread, then restore the previous setting."""
    import faiss

    before = int(faiss.omp_get_max_threads())
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)
