"""Helpers for views: reading what a request names, and answering it."""

from functools import wraps

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.urls import register_converter

#: The largest row id either supported database holds (a signed 64-bit integer).
LARGEST_ID = 2**63 - 1


def found_or_404(read, *args, **kwargs):
    """
    What ``read(*args, **kwargs)`` returns, or a 404 when it raises a model's
    DoesNotExist: ``get_object_or_404`` for the selectors that read one object
    without a queryset (prepared reads, reads within a user's reach).
    """
    try:
        return read(*args, **kwargs)
    except ObjectDoesNotExist:
        # Without the model's message ("Claim matching query does not exist."): the
        # 404 page shows only reasons written for readers.
        raise Http404 from None


def id_or_none(value):
    """
    ``value`` (from a query string) as a row id the database can hold, else None:
    a link with a mangled id shows the page without what it named, not an error.
    """
    # At most 19 digits: Python refuses to read a number of thousands of digits at all.
    if (
        value
        and len(value) <= 19
        and value.isascii()
        and value.isdigit()
        and 0 < int(value) <= LARGEST_ID
    ):
        return int(value)
    return None


def post_or_back_to(url_name):
    """
    For a view that answers a form's POST with a page (a refusal shown in
    place): a GET of its address, as a reload or the back button makes after
    that page, goes to ``url_name``'s page instead of a 405. Other methods: 405.
    """

    def decorate(view):
        @wraps(view)
        def answered(request, *args, **kwargs):
            if request.method in ("GET", "HEAD"):
                return redirect(url_name)
            if request.method != "POST":
                return HttpResponseNotAllowed(["POST"])
            return view(request, *args, **kwargs)

        return answered

    return decorate


def plain_answer(text, status):
    """
    A sentence in plain text, for a request from a part of a page that cannot
    be answered with that part: static/js/request_errors.js shows it above the
    page, which keeps what was typed.
    """
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")


class BigIntId:
    """
    ``<id:name>`` in a URL: an integer id the database can hold. A larger one
    (``/sources/9223372036854775808/``) matches no URL, so Django answers 404;
    with Django's ``<int:…>`` it reached the query and SQLite raised
    OverflowError, a 500.
    """

    regex = "[0-9]+"

    def to_python(self, value):
        # Length first: Python refuses to read a number of thousands of digits at all.
        if len(value) > len(str(LARGEST_ID)) or int(value) > LARGEST_ID:
            # A ValueError tells the resolver the URL does not match.
            raise ValueError(f"{value} is past the largest id.")
        return int(value)

    def to_url(self, value):
        return str(value)


# Registered as the module is imported: the views every urls.py imports import it,
# before their routes are read (and factcheck/urls.py imports it before any include).
register_converter(BigIntId, "id")
