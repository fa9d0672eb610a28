"""The Redis cache backend that keeps one client per connection pool (factcheck/cache.py)."""

import threading

import pytest
from django.conf import settings

from factcheck.cache import RedisCache


@pytest.fixture
def redis_cache():
    if not settings.REDIS_URL:
        pytest.skip("REDIS_URL is not set for this run")
    cache = RedisCache(settings.REDIS_URL, {"KEY_PREFIX": "cache-backend-test"})
    yield cache
    cache.delete_many(["word", "count", "gone", "a", "b"])


def test_every_call_uses_the_same_client_and_so_the_same_pool(redis_cache):
    first = redis_cache._cache.get_client()
    redis_cache.set("word", "kept", 30)
    redis_cache.get("word")

    assert redis_cache._cache.get_client("word", write=True) is first
    assert first.connection_pool is redis_cache._cache._get_connection_pool(write=False)


def test_values_round_trip_as_with_djangos_own_backend(redis_cache):
    redis_cache.set("word", {"claim": "9.0 seconds"}, 30)
    redis_cache.set("count", 1, 30)
    redis_cache.set_many({"a": 1, "b": [2]}, 30)
    redis_cache.set("gone", "soon", 30)
    redis_cache.delete("gone")

    assert redis_cache.get("word") == {"claim": "9.0 seconds"}
    assert redis_cache.incr("count") == 2
    assert redis_cache.get_many(["a", "b", "gone"]) == {"a": 1, "b": [2]}
    assert redis_cache.add("word", "other", 30) is False
    assert redis_cache.get("gone", "missing") == "missing"


def test_threads_sharing_the_client_each_read_their_own_values(redis_cache):
    # A client borrows a connection from the pool for each command, so threads
    # that share it never read each other's replies.
    failures = []

    def worker(n):
        for i in range(50):
            redis_cache.set(f"a-{n}", (n, i), 30)
            if redis_cache.get(f"a-{n}") != (n, i):
                failures.append((n, i))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    redis_cache.delete_many([f"a-{n}" for n in range(4)])

    assert failures == []
