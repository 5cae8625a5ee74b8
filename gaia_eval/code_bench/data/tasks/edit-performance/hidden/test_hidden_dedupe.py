import contextlib
import signal

from dedupe import common_elements, unique_in_order


@contextlib.contextmanager
def deadline(seconds):
    def expire(signum, frame):
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_common_elements_is_fast():
    a = list(range(0, 200_000, 2))
    b = list(range(0, 200_000, 3))
    with deadline(1.0):
        out = common_elements(a, b)
    assert out == list(range(0, 200_000, 6))


def test_unique_strings_fast():
    items = [f"k{i % 50_000}" for i in range(200_000)]
    with deadline(1.0):
        out = unique_in_order(items)
    assert out == [f"k{i}" for i in range(50_000)]


def test_order_is_first_seen():
    assert unique_in_order("mississippi") == ["m", "i", "s", "p"]


def test_tuples_and_none():
    assert unique_in_order([(1, 2), None, (1, 2), None, 0]) == [(1, 2), None, 0]


def test_common_elements_keeps_a_order_and_drops_repeats():
    assert common_elements(["c", "a", "c", "b"], ("b", "c")) == ["c", "b"]


def test_common_elements_accepts_iterators():
    assert common_elements(iter([1, 2, 3]), iter([3, 1])) == [1, 3]


def test_empty():
    assert unique_in_order([]) == []
    assert common_elements([], [1]) == []
