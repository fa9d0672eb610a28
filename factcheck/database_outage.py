"""
A lost database, told apart from other errors: the page a request gets then
(503, not a 500) and the exceptions that mean it.

Django turns every exception raised by a view *or by a middleware* into a
response at the layer where it happened, and an exception it does not know
becomes a 500 from ``handler500``. A lost database surfaces anywhere in that
stack: in the session and authentication middleware (the first query of
almost every request), in a view, or when the session is saved afterwards.
So the answer lives in ``handler500`` (``factcheck.views.server_error``, named
in ``factcheck/urls.py``), the one place every such exception reaches: when the
exception being handled is a lost database (``django.db.OperationalError``/
``InterfaceError``, psycopg's own, or psycopg_pool's ``PoolTimeout`` after the
pool waited its few seconds for a connection), the client gets 503 with
``Retry-After`` and a plain page that says so; anything else gets the ordinary
500 page. Django logs the request once, as it logs every 5xx
(``django.request``, with the traceback); the client never sees a traceback.
The background worker (``manage.py task_worker``) tells a lost database apart
with the same ``DATABASE_UNAVAILABLE``.

With DEBUG on, Django shows its technical 500 page instead, on purpose: the
developer wants the traceback.
"""

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.utils.html import format_html
from django.utils.translation import get_language, get_language_bidi
from django.utils.translation import gettext as _

try:  # psycopg is there whenever PostgreSQL is used; the SQLite setup works without.
    import psycopg
    from psycopg_pool import PoolTimeout
except ImportError:  # pragma: no cover - psycopg is a pinned dependency
    DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
else:
    DATABASE_UNAVAILABLE = (
        OperationalError,
        InterfaceError,
        psycopg.OperationalError,
        psycopg.InterfaceError,
        PoolTimeout,
    )

#: Seconds after which a client may try again (the page says "in a minute").
RETRY_AFTER_SECONDS = 60

# Plain HTML, not a template: rendering one may be what failed. Translations need
# no database, so the page speaks the request's language (the one LocaleMiddleware
# chose from the URL, cookie or Accept-Language).
UNAVAILABLE_PAGE = """<!doctype html>
<html lang="{lang}" dir="{dir}">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<h1>{heading}</h1>
<p>{cannot_reach}</p>
<p>{saving}</p>
</html>
"""


def unavailable_page():
    """The page of a lost database, in the active language."""
    return format_html(
        UNAVAILABLE_PAGE,
        lang=get_language() or "en",
        dir="rtl" if get_language_bidi() else "ltr",
        title=_("Database unavailable · factcheck"),
        heading=_("The database is unavailable"),
        cannot_reach=_(
            "factcheck cannot reach its database just now, so this page cannot be shown. "
            "Please try again in a minute."
        ),
        saving=_("If you were saving something, look whether it was saved once the site is back."),
    )


def is_database_unavailable(error):
    """True when ``error``, or an exception it was raised from, is a lost database."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, DATABASE_UNAVAILABLE):
            return True
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return False


def database_unavailable_response():
    """503 with Retry-After and the plain page; never cached."""
    response = HttpResponse(unavailable_page(), status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
