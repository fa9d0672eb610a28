"""
Data that every desk request reads and that seldom changes, kept in each
process between its changes: the logged-in user with their permissions and
roles, the users' names, the verdict ratings, and how many readers' reports
are open.

Reading them costs a desk page three or four queries (about 1 ms) on every
request, after any write, though they change only when someone's account,
groups or permissions, or the rating scale, are edited, or a reader's report
comes in or is handled. Each *group* of tables below has
a generation number in the cache that all processes share, moved by every
statement that writes to one of its tables (``factcheck.desk_pages.count_writes``
sees every statement, from any process or task worker) and once more when the
transaction commits. A process keeps what it read under the generation that it
read first, before the data, and uses it while the number has not moved: one
read from the shared cache instead of the queries (all groups' numbers at once,
once a request), and never older than the database (the argument is the desk
pages', factcheck/desk_pages.py).

Inside a transaction nothing is kept or used: a transaction's own writes,
which a rollback may undo without a statement that moves the number, are never
seen by another request, and it always sees them itself. Like the desk page
cache, this needs a cache that every process shares: it is on with
``DESK_PAGE_CACHE``, in the processes where that is on. A write made around
them (``psql``, a ``manage.py shell`` without ``REDIS_URL``, a restore) does not
move the numbers (``forget_all()`` does): it is seen within ``KEPT_SECONDS``.
"""

import contextvars
import functools
import re
import time

from django.apps import apps
from django.conf import settings
from django.core.cache import caches
from django.db import connections, router

from factcheck.cache import generation, move_generation

#: The models whose rows each group's data is read from (with their many-to-many tables).
GROUPS = {
    # Users, their groups and permissions, and the content types that name them.
    "accounts": (
        settings.AUTH_USER_MODEL,
        "auth.Group",
        "auth.Permission",
        "contenttypes.ContentType",
    ),
    "ratings": ("claims.Rating",),
    # Readers' reports: the menu counts the open ones on every page of those who handle them.
    "reports": ("claims.ErrorReport",),
}
#: The longest a process keeps anything: it bounds a write that no statement here made.
KEPT_SECONDS = 60
#: Entries kept per process at most; past this, all are dropped and read again.
MAX_KEPT = 5000


@functools.cache
def _written_patterns():
    """For each group, a pattern finding any of its tables' names in a statement."""
    patterns = {}
    for group, labels in GROUPS.items():
        tables = set()
        for label in labels:
            model = apps.get_model(label)
            tables.add(model._meta.db_table)
            tables.update(
                field.remote_field.through._meta.db_table
                for field in model._meta.local_many_to_many
            )
        # Quoted or not, but not as part of a longer name ("auth_user" in "auth_user_groups").
        names = "|".join(re.escape(table) for table in sorted(tables))
        patterns[group] = re.compile(rf"(?<!\w)(?:{names})(?!\w)", re.IGNORECASE)
    return patterns


_kept = {}


def _cache():
    return caches[settings.DESK_PAGE_CACHE_ALIAS]


def _generation_key(group):
    return f"reference-data:{group}:generation"


def groups_written(sql):
    """The groups whose tables the write statement ``sql`` may change (all, if unreadable)."""
    if not isinstance(sql, str):
        return frozenset(GROUPS)
    return frozenset(group for group, pattern in _written_patterns().items() if pattern.search(sql))


def note_written(groups):
    """Move the generation of each of ``groups``: what processes keep of them is out of date."""
    if not groups:
        return
    # This request reads them again: its own write moved them.
    held = _read_in_request.get()
    if held:
        held.clear()
    cache = _cache()
    for group in groups:
        move_generation(cache, _generation_key(group))


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
        found[key] = generation(cache, key)
    generations = {name: found[key] for key, name in keys.items()}
    if held is not None:
        held.update(generations)
    return generations[group]


def kept(group, key, read, *, model):
    """
    What ``read()`` returns, kept in this process under ``group`` and ``key``
    while no write has changed the group's tables (see the module); inside a
    transaction, read each time. ``model`` is what ``read`` reads: its
    database's connection says whether a transaction is open. ``read`` must
    return a value that no caller changes (build fresh objects from it).
    """
    # In a transaction, read afresh: it may have written the tables itself, which
    # others cannot see yet (and a rollback may undo unseen).
    if not settings.DESK_PAGE_CACHE or connections[router.db_for_read(model)].in_atomic_block:
        return read()
    # Read before the data: a write after this moves the number past it.
    generation = _generation(group)
    entry = _kept.get((group, key))
    now = time.monotonic()
    if entry is not None and entry[0] == generation and entry[1] > now:
        return entry[2]
    value = read()
    if len(_kept) >= MAX_KEPT:
        _kept.clear()
    _kept[group, key] = (generation, now + KEPT_SECONDS, value)
    return value
