import contextlib
import signal

from dedupe import common_elements, unique_in_order


@contextlib.contextmanager
def deadline(seconds):
    """Fail (TimeoutError) when the block runs longer than `seconds` of wall time."""

    def expire(signum, frame):
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_unique_in_order():
    assert unique_in_order([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_common_elements():
    assert common_elements([1, 2, 3, 2], [2, 3, 4]) == [2, 3]


def test_unique_in_order_is_fast():
    items = list(range(60_000)) * 2
    with deadline(1.0):
        out = unique_in_order(items)
    assert out == list(range(60_000))
