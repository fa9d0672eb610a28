"""
Django's Redis cache backend, with one Redis client per connection pool.

Django's own backend makes a new ``redis.Redis`` for every cache call. Making
one (about 80 µs: it builds its table of response callbacks) costs more than
the round trip to Redis it serves, and a desk page makes about ten such calls.
A client holds no connection of its own (it borrows one from the pool for each
command) and may be shared between threads, so one per pool is enough.
"""

import secrets

from django.core.cache.backends import redis


class RedisCacheClient(redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients[pool] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient


def generation(cache, key):
    """
    The number under ``key`` in ``cache``, which copies kept elsewhere are
    stored under; started at a random number if the cache has none.
    """
    number = cache.get(key)
    if number is None:
        # Random: if the number is lost (evicted) while copies are still kept, it
        # must not start again at one that they were kept under.
        cache.add(key, secrets.randbits(48), timeout=None)
        number = cache.get(key)
    return number


def move_generation(cache, key):
    """Move the number under ``key`` on: every copy kept under it is out of date."""
    try:
        cache.incr(key)
    except ValueError:
        cache.add(key, secrets.randbits(48), timeout=None)
        cache.incr(key)
