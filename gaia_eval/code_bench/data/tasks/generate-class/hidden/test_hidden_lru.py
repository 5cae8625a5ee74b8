import pytest

from lru import LRUCache


def test_get_marks_a_key_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert "a" in cache and "b" not in cache and "c" in cache


def test_put_of_an_existing_key_updates_without_dropping():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert len(cache) == 2
    assert cache.get("a") == 10 and cache.get("b") == 2


def test_put_of_an_existing_key_marks_it_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert "b" not in cache and "a" in cache


def test_contains_is_not_a_use():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    cache.put("c", 3)
    assert "a" not in cache


def test_missing_get_is_not_a_use_and_stores_nothing():
    cache = LRUCache(1)
    cache.put("a", 1)
    assert cache.get("b") is None
    assert len(cache) == 1 and "b" not in cache


@pytest.mark.parametrize("capacity", [0, -3])
def test_bad_capacity(capacity):
    with pytest.raises(ValueError):
        LRUCache(capacity)


def test_capacity_one():
    cache = LRUCache(1)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") is None and cache.get("b") == 2


def test_none_values_are_values():
    cache = LRUCache(2)
    cache.put("a", None)
    assert "a" in cache
    assert cache.get("a", "default") is None
