"""A least-recently-used cache."""

from collections import OrderedDict


class LRUCache:
    """A mapping of at most `capacity` entries that forgets the least recently used one.

    A key is "used" when `get` finds it or `put` stores it. `key in cache` and `len(cache)`
    do not count as a use. ValueError for a capacity below 1.
    """

    def __init__(self, capacity):
        if capacity < 1:
            raise ValueError(f"capacity must be at least 1, got {capacity}")
        self.capacity = capacity
        self._data = OrderedDict()  # least recently used first

    def get(self, key, default=None):
        """The value stored for `key` (marking it used), or `default`."""
        if key not in self._data:
            return default
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key, value):
        """Store `value` for `key` (marking it used); when that makes the cache hold more
        than `capacity` entries, the least recently used entry is dropped."""
        self._data[key] = value
        self._data.move_to_end(key)
        if len(self._data) > self.capacity:
            self._data.popitem(last=False)

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)
