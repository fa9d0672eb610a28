"""
Django's Redis cache backend, with one Redis client per connection pool.

Django's own backend makes a new ``redis.Redis`` for every cache call. Making
one (about 80 µs: it builds its table of response callbacks) costs more than
the round trip to Redis it serves, and a desk page makes about ten such calls.
A client holds no connection of its own (it borrows one from the pool for each
command) and may be shared between threads, so one per pool is enough.
"""

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
