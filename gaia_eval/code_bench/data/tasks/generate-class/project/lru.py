"""A least-recently-used cache."""


class LRUCache:
    """A mapping of at most `capacity` entries that forgets the least recently used one.

    A key is "used" when `get` finds it or `put` stores it. `key in cache` and `len(cache)`
    do not count as a use. ValueError for a capacity below 1.
    """

    def __init__(self, capacity):
        raise NotImplementedError

    def get(self, key, default=None):
        """The value stored for `key` (marking it used), or `default`."""
        raise NotImplementedError

    def put(self, key, value):
        """Store `value` for `key` (marking it used); when that makes the cache hold more
        than `capacity` entries, the least recently used entry is dropped."""
        raise NotImplementedError

    def __contains__(self, key):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError
