"""
Data that every desk request reads and that seldom changes, kept in each
process between its changes: the logged-in user with their permissions and
roles, and the verdict ratings.

Reading them costs a desk page three queries (about 1 ms) on every request,
after any write, though they change only when someone's account, groups or
permissions, or the rating scale, are edited. Each *group* of tables below has
a generation number in the cache that all processes share, moved by every
statement that writes to one of its tables (``factcheck.desk_pages.count_writes``
sees every statement, from any process or task worker) and once more when the
transaction commits. A process keeps what it read under the generation that it
read first, before the data, and uses it while the number has not moved: one
read from the shared cache instead of the queries (all groups' numbers at once,
once a request), and never older than the database (the argument is the desk
pages', factcheck/desk_pages.py).

Only what was read outside a transaction is kept: a transaction's own writes,
which a rollback may undo without a statement that moves the number, are never
seen by another request. Like the desk page cache, this needs a cache that
every process shares: it is on with ``DESK_PAGE_CACHE``. A write made around
Django (``psql``, a restore) does not move the numbers: ``forget_all()`` does,
and nothing is kept longer than ``KEPT_SECONDS`` anyway.
"""

import contextvars
import re
import secrets
import time

from django.conf import settings
from django.core.cache import caches
from django.db import connections, router

#: Every table whose rows a group's data is read from, by the start of its name.
GROUPS = {
    # Users, their groups and permissions, and the content types that name them.
    "accounts": ("auth_", "django_content_type"),
    "ratings": ("claims_rating",),
}
#: The longest a process keeps anything: it bounds a write that no statement here made.
KEPT_SECONDS = 60
#: Entries kept per process at most; past this, all are dropped and read again.
MAX_KEPT = 5000

_WRITTEN = {
    group: re.compile("|".join(re.escape(table) for table in tables), re.IGNORECASE)
    for group, tables in GROUPS.items()
}
_kept = {}


def _cache():
    return caches[settings.DESK_PAGE_CACHE_ALIAS]


def _generation_key(group):
    return f"reference-data:{group}:generation"


def groups_written(sql):
    """The groups whose tables the write statement ``sql`` may change (all, if unreadable)."""
    if not isinstance(sql, str):
        return frozenset(GROUPS)
    return frozenset(group for group, pattern in _WRITTEN.items() if pattern.search(sql))


def note_written(groups):
    """Move the generation of each of ``groups``: what processes keep of them is out of date."""
    # This request reads them again: its own write moved them.
    held = _read_in_request.get()
    if held:
        held.clear()
    cache = _cache()
    for group in groups:
        key = _generation_key(group)
        try:
            cache.incr(key)
        except ValueError:
            # Random: a number lost (evicted) must not start again at one still kept.
            cache.add(key, secrets.randbits(48), timeout=None)
            cache.incr(key)


def forget_all():
    """After a write that no statement here made (a restore): nothing kept is used again."""
    note_written(GROUPS)
    _kept.clear()


#: In a request, the generations it has read: every group's, in one round trip to the
#: cache, at the first use (a page may use three). Outside requests (a task worker),
#: None: each use reads them again.
_read_in_request = contextvars.ContextVar("reference_generations", default=None)


def request_started(**kwargs):
    _read_in_request.set({})


def request_finished(**kwargs):
    _read_in_request.set(None)


def _generation(group):
    held = _read_in_request.get()
    if held:
        return held[group]
    cache = _cache()
    keys = {_generation_key(name): name for name in GROUPS}
    found = cache.get_many(keys)
    for key in keys.keys() - found.keys():
        cache.add(key, secrets.randbits(48), timeout=None)
        found[key] = cache.get(key)
    generations = {name: found[key] for key, name in keys.items()}
    if held is not None:
        held.update(generations)
    return generations[group]


def kept(group, key, read, *, model):
    """
    What ``read()`` returns, kept in this process under ``group`` and ``key``
    while no write has changed the group's tables (see the module). ``model``
    names the database it is read from; ``read`` must return a value that no
    caller changes (build fresh objects from it).
    """
    if not settings.DESK_PAGE_CACHE:
        return read()
    # Read before the data: a write after this moves the number past it.
    generation = _generation(group)
    entry = _kept.get((group, key))
    now = time.monotonic()
    if entry is not None and entry[0] == generation and entry[1] > now:
        return entry[2]
    value = read()
    if not connections[router.db_for_read(model)].in_atomic_block:
        if len(_kept) >= MAX_KEPT:
            _kept.clear()
        _kept[group, key] = (generation, now + KEPT_SECONDS, value)
    return value
