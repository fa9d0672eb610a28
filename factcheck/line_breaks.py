"""
A form's line breaks as the app keeps every text: one LF.

A browser sends each line break of a submitted form as CR LF (HTML's form
encoding), while htmx sends the LF the textarea holds, and a textarea's
``maxlength`` counts one character for it. Read as sent, a text the browser
let through at 5,000 characters would be refused at 5,018, a statement saved
again unchanged would count as changed, and a selection quoted across
paragraphs would not match the stored text (whose line breaks are LF,
sources/extraction.py).
"""

from urllib.parse import urlencode

from django.http import QueryDict

_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


def with_lf(text):
    """``text`` with each CR LF, and each CR alone, as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


class LineBreaksMiddleware:
    """A POSTed form's fields with LF line breaks for the views (see the module); files as sent."""

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
