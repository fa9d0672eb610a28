"""
A server-side cache of the desk's pages, kept only until the next write.

A desk page (case list, case page, claim page, My reviews, the source reader,
search) shows a logged-in user what the database holds. Rather than naming
what each page depends on (and missing something), every statement that
changes the database, from any server process or task worker, moves one shared
number, the *write generation*, in the cache that all processes share. A
stored page carries that number: it is served only while no write of any
kind has happened since it was rendered, so it is never older than the
database. What it saves is the rendering of a page that someone opens again
unchanged (a reload, going back to a list, another tab).

The order makes this safe. A request reads the generation before it reads
any data, so a page built from data that a later write changed is stored under
a generation that the write has already moved past. A write moves it as soon
as the statement runs and once more when its transaction commits, before the
writer's own response is sent, so the writer's next page is never stored
before the write. Sessions do not count as writes; they show on no page. A
page during whose rendering the number moved carries a number already passed:
nobody is served it, and the next request renders the page again.

Each user, session and URL has one stored copy, replaced when the page is
rendered again, once the response has been sent. Its key names the user, their
session and CSRF cookie (the page holds their token), the URL with its query,
the Accept header, today's date (what is overdue) and the running code.
Requests that may see one-off content bypass it: htmx fragments, anything but
GET, a request with messages waiting, and a response that sets a cookie. It
needs a cache that every process shares (``REDIS_URL``); with one cache per
process another process's write would not be seen, so without it
``DESK_PAGE_CACHE`` is off.
"""

import hashlib
import logging
from functools import partial, wraps

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.contrib.messages.storage.session import SessionStorage
from django.core.cache import caches
from django.db import transaction
from django.http import HttpResponse
from django.utils import timezone

from factcheck import reference_data
from factcheck.cache import generation, move_generation

logger = logging.getLogger(__name__)

GENERATION_KEY = "desk-pages:write-generation"
#: A stored page is dropped after this long even with no write: it bounds what
#: the key cannot name (a setting changed without a restart, a library upgrade).
CACHE_SECONDS = 120
#: Statements that change nothing. Anything else (INSERT, UPDATE, DELETE, DDL,
#: whatever a future Django sends) counts as a write.
_READING = ("SELECT", "SAVEPOINT", "RELEASE", "ROLLBACK", "BEGIN", "COMMIT", "SET ", "SHOW")
_NOT_SHOWN = ('"django_session"',)
HIT_HEADER = "X-Desk-Page-Cache"


def _cache():
    return caches[settings.DESK_PAGE_CACHE_ALIAS]


def is_write(sql):
    """Whether the statement ``sql`` may change what a desk page shows."""
    if not isinstance(sql, str):
        return True
    head = sql.lstrip()[:80]
    if head.upper().startswith(_READING):
        return False
    return not any(table in head for table in _NOT_SHOWN)


def write_generation():
    """The current write generation, started at a random number if the cache has none."""
    return generation(_cache(), GENERATION_KEY)


def note_write():
    """Move the write generation on: every stored desk page is out of date."""
    move_generation(_cache(), GENERATION_KEY)


class _NoteCommit:
    """
    At a transaction's commit, move the write generation once more, and the
    numbers of the kept data whose tables its statements wrote
    (factcheck/reference_data.py): one callback a transaction.
    """

    def __init__(self):
        self.groups = set()

    def __call__(self):
        # The data is committed: failing the response would not undo it. A page
        # rendered between the statement's bump and the commit showed the data as it
        # was before, and without this bump it can be served for up to CACHE_SECONDS
        # (kept data for reference_data.KEPT_SECONDS); that is the bound, not the
        # statement's bump.
        for move, what in (
            (note_write, "stored desk pages"),
            (partial(reference_data.note_written, self.groups), "kept reference data"),
        ):
            try:
                move()
            except Exception:
                logger.exception("Could not mark %s out of date after a commit", what)


def _at_commit(connection):
    """This transaction's ``_NoteCommit``, registered with its first write."""
    for _savepoints, callback, _robust in connection.run_on_commit:
        if isinstance(callback, _NoteCommit):
            return callback
    callback = _NoteCommit()
    transaction.on_commit(callback, using=connection.alias)
    return callback


def count_writes(execute, sql, params, many, context):
    """
    A database execute wrapper, on every connection: while the cache is on,
    after a statement that writes, move the write generation, and once more
    when its transaction commits.
    """
    result = execute(sql, params, many, context)
    if settings.DESK_PAGE_CACHE and is_write(sql):
        note_write()
        # The data kept in each process between its changes (factcheck/reference_data.py).
        groups = reference_data.groups_written(sql)
        reference_data.note_written(groups)
        connection = context["connection"]
        if connection.in_atomic_block:
            _at_commit(connection).groups |= groups
    return result


def watch_connection(sender, connection, **kwargs):
    """``connection_created`` receiver: count the writes on every new connection."""
    # Installed whatever the setting, which count_writes reads on each statement,
    # so that turning the cache on (in a test) counts writes on open connections.
    if count_writes not in connection.execute_wrappers:
        connection.execute_wrappers.append(count_writes)


def _cacheable(request):
    """Whether ``request`` may be served a stored page (else it is always rendered)."""
    return (
        settings.DESK_PAGE_CACHE
        and request.method == "GET"
        and "HTTP_HX_REQUEST" not in request.META
        and request.user.is_authenticated
        and settings.SESSION_COOKIE_NAME in request.COOKIES
        and CookieStorage.cookie_name not in request.COOKIES
        and SessionStorage.session_key not in request.session
        and _keeps_csrf_secret(request)
    )


def _page_key(request):
    """The key of ``request``'s page: one stored copy per user, session and URL."""
    parts = [
        settings.DESK_PAGE_CODE_DIGEST,
        timezone.localdate().isoformat(),
        str(request.user.pk),
        request.COOKIES[settings.SESSION_COOKIE_NAME],
        request.META["CSRF_COOKIE"],
        request.get_full_path(),
        request.META.get("HTTP_ACCEPT", ""),
    ]
    return "desk-page:" + hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _keeps_csrf_secret(request):
    """
    Whether the request's CSRF cookie stays as it is: a stored page holds a token
    made from it, valid for as long as the browser keeps that cookie. (Rendering a
    token also asks for the cookie to be sent again, with the same secret, only to
    renew its expiry; that does not matter here.)
    """
    secret = request.META.get("CSRF_COOKIE")
    return secret is not None and secret == request.COOKIES.get(settings.CSRF_COOKIE_NAME)


def _storable(request, response):
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and _keeps_csrf_secret(request)
        and SessionStorage.session_key not in request.session
    )


def _store(key, page):
    try:
        _cache().set(key, page, CACHE_SECONDS)
    except Exception:
        # The page was served; without the copy the next visit renders it again.
        logger.exception("Could not store a rendered desk page")


def desk_page(view):
    """
    Decorate a desk view whose page depends only on the database and the
    request: serve it from the cache while nothing has been written since it was
    rendered for this user and session. Put it under the permission check, so
    that the check runs on every request.
    """

    @wraps(view)
    def cached_view(request, *args, **kwargs):
        if not _cacheable(request):
            return view(request, *args, **kwargs)
        key = _page_key(request)
        # The generation and the stored copy in one round trip to the cache.
        found = _cache().get_many([GENERATION_KEY, key])
        generation = found.get(GENERATION_KEY)
        if generation is None:
            generation = write_generation()
        stored = found.get(key)
        if stored is not None and stored[0] == generation:
            _generation, content, headers = stored
            response = HttpResponse(content)
            for name, value in headers:
                response[name] = value
            response[HIT_HEADER] = "hit"
            return response
        response = view(request, *args, **kwargs)
        if _storable(request, response):
            response[HIT_HEADER] = "miss"
            # Under the generation read before any data: if a write came while the
            # page was rendered, the generation has moved on and this copy is
            # never served; the next request renders and replaces it.
            headers = [item for item in response.items() if item[0] != HIT_HEADER]
            # Kept once the page has been sent (the server closes the response
            # then): the reader does not wait for the copy kept for their next visit.
            # Django's WSGI handler closes the request through the same list; a
            # server that never closes the response only leaves the page unstored.
            response._resource_closers.append(
                partial(_store, key, (generation, response.content, headers))
            )
        return response

    return cached_view
