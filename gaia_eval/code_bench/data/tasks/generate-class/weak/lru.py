"""A least-recently-used cache."""


class LRUCache:
    """A mapping of at most `capacity` entries that forgets the oldest one."""

    def __init__(self, capacity):
        self.capacity = capacity
        self._data = {}  # insertion order

    def get(self, key, default=None):
        return self._data.get(key, default)

    def put(self, key, value):
        self._data[key] = value
        if len(self._data) > self.capacity:
            del self._data[next(iter(self._data))]

    def __contains__(self, key):
        return key in self._data

    def __len__(self):
        return len(self._data)
