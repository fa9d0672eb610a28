"""
Conditional GET and a server-side cache for the public site's pages.

A public page (published case or claim, corrections log, feeds) is the same
for every anonymous reader until what it shows changes, and its ETag already
names that state. So the ETag also keys a copy of the rendered page in the
cache: a reader whose browser holds the page gets a 304, any other anonymous
reader gets the stored bytes, and only the first request after a change
builds the page. Every answer says ``Cache-Control: no-cache``: browsers and
proxies ask again each time, and the ETag (or ``Last-Modified``) makes that a 304.
"""

from functools import wraps

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition

#: How long a stored page is kept at most: the ETag keys it, so a change shows at
#: once; the limit bounds what the ETag does not name (the organisation's details).
CACHE_SECONDS = 600
MESSAGE_COOKIE = CookieStorage.cookie_name
#: Headers a stored page is served with again; the middleware adds the rest.
KEPT_HEADERS = ("Content-Type", "Content-Language")


def public_page(*, etag, last_modified=None):
    """
    Decorate a public view: answer conditional GETs from ``etag`` (and
    ``last_modified``), and serve anonymous readers a stored copy of the page
    while its ETag is unchanged. ``etag(request, *args, **kwargs)`` must name
    everything the page shows; it is computed once per request.
    """

    def decorator(view):
        def etag_once(request, *args, **kwargs):
            if not hasattr(request, "_public_page_etag"):
                request._public_page_etag = etag(request, *args, **kwargs)
            return request._public_page_etag

        @wraps(view)
        def cached_view(request, *args, **kwargs):
            if not _shared(request):
                return view(request, *args, **kwargs)
            tag = etag_once(request, *args, **kwargs)
            key = f"public-page:{request.path}:{tag}"
            stored = cache.get(key) if tag else None
            if stored is not None:
                content, headers = stored
                response = HttpResponse(content)
                for name, value in headers.items():
                    response[name] = value
                return response
            response = view(request, *args, **kwargs)
            if tag and _storable(request, response):
                headers = {name: response[name] for name in KEPT_HEADERS if name in response}
                cache.set(key, (response.content, headers), CACHE_SECONDS)
            return response

        conditional = condition(etag_func=etag_once, last_modified_func=last_modified)(cached_view)

        @wraps(view)
        def public_view(request, *args, **kwargs):
            response = conditional(request, *args, **kwargs)
            # Asked again on every request, never shown from a cache unasked: a
            # published correction must reach the very next reader (a minute's
            # max-age once showed a corrected verdict's old one). The ETag keeps
            # that cheap: an unchanged page is a 304, built from a query or two.
            # A 304 says so too: a browser takes on the headers of the answer.
            patch_cache_control(response, no_cache=True)
            if request.user.is_authenticated:
                # Their own menu, whose counts change without the page: for their
                # browser alone (the ETag names the counts).
                patch_cache_control(response, private=True, max_age=0)
            return response

        return public_view

    return decorator


def _shared(request):
    """Whether ``request`` sees the page every anonymous reader sees."""
    # A logged-in reader sees their own menu; a reader with a session or a
    # cookie of messages may have a message waiting (after reporting an error).
    return (
        request.method in ("GET", "HEAD")
        and not request.user.is_authenticated
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and MESSAGE_COOKIE not in request.COOKIES
    )


def _storable(request, response):
    # A page that handed out a CSRF token or set a cookie belongs to one reader.
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
    )
