"""The project's own middleware."""

from urllib.parse import urlencode

from django.conf import settings
from django.http import QueryDict
from django.shortcuts import render
from django.urls import get_resolver, get_urlconf
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers

from factcheck.exceptions import Refused
from factcheck.http import plain_answer
from factcheck.preferences import (
    LANGUAGE_SESSION_KEY,
    offered_languages,
    remember_language,
    saved_language,
    set_language_cookie,
)
from factcheck.text import with_lf

_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


class RefusalMiddleware:
    """
    Answers a refusal a view let through (``factcheck.exceptions``) with its
    status code: the one place they are mapped. ``NotAllowed`` is a 403 and
    ``NotFound`` a 404, with the site's own pages for them (``handler403`` and
    ``handler404``, which show the refusal's sentence); ``Conflict`` a 409 with
    a page that says what happened. A request from a part of a page (htmx) gets
    the sentence in plain text, which static/js/request_errors.js shows above
    the page, keeping what the user typed.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, Refused):
            return None
        if getattr(request, "htmx", False):
            return plain_answer(exception.message, exception.status)
        if exception.status in (403, 404):
            handler = get_resolver(get_urlconf()).resolve_error_handler(exception.status)
            return handler(request, exception)
        return render(
            request, "refused.html", {"exception": exception.message}, status=exception.status
        )


class LineBreaksMiddleware:
    """
    A POSTed form's fields with LF line breaks for the views, as the app keeps
    every text; files as sent.

    A browser sends each line break of a submitted form as CR LF (HTML's form
    encoding), while htmx sends the LF the textarea holds, and a textarea's
    ``maxlength`` counts one character for it. Read as sent, a text the browser
    let through at 5,000 characters would be refused at 5,018, a statement saved
    again unchanged would count as changed, and a selection quoted across
    paragraphs would not match the stored text (whose line breaks are LF,
    sources/extraction.py).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        # After the CSRF and login checks: a request they refuse is never read here.
        if request.method == "POST" and request.content_type in _FORM_TYPES:
            fields = request.POST
            if any("\r" in value for _name, values in fields.lists() for value in values):
                # Built anew rather than edited: Django hands views a read-only QueryDict.
                request.POST = QueryDict(
                    urlencode(
                        [
                            (name, with_lf(value))
                            for name, values in fields.lists()
                            for value in values
                        ]
                    ),
                    encoding=fields.encoding,
                )


class VaryOnHtmxMiddleware:
    """
    A page answers an htmx request with a fragment at the same address as the
    whole page (a filter, a page of results, a search pushed into the history
    with ``hx-push-url``). ``Vary: HX-Request`` keeps the browser's cache from
    handing that fragment, alone and unstyled, to a plain visit of the address,
    such as the Back button's.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        patch_vary_headers(response, ("HX-Request",))
        return response


class DeskCacheControlMiddleware:
    """
    ``Cache-Control: private, no-cache`` on every page a signed-in user gets
    that says nothing of its own: a desk page shows drafts, reviews and counts
    that change by the minute and belong to this user alone. Without it a
    browser may show a page from its cache by heuristics (the Back button, a
    restored tab), and a shared proxy could keep it. A view that decided for
    itself (a public page, a download) is left as it said.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # The header first: an error page that says for itself (the 503 of a lost
        # database) must not have the user read again, a second failing query.
        if response.has_header("Cache-Control") or response.status_code >= 500:
            return response
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True, no_cache=True)
        return response


class UserLanguageMiddleware:
    """
    A signed-in user's saved language (``factcheck.preferences``) over what
    ``LocaleMiddleware`` chose from the cookie or the browser's Accept-Language.
    Read from the session, where the login put it: no query. Their browser gets
    the language cookie too, so that the login page after they log out stays in it.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        language = None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            language = request.session.get(LANGUAGE_SESSION_KEY)
            if language is None:
                # A session opened before languages were kept: read once, then kept.
                language = saved_language(user)
                remember_language(request, language)
            if language in offered_languages():
                translation.activate(language)
                request.LANGUAGE_CODE = translation.get_language()
            else:
                language = None
        response = self.get_response(request)
        if (
            language
            and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language
            and settings.LANGUAGE_COOKIE_NAME not in response.cookies
        ):
            set_language_cookie(response, language)
        return response
