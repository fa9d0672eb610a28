"""
Words found in text columns alike on both databases: ``containing_words``, and
the CASEFOLD function it needs on SQLite (``add_sqlite_functions``, connected to
``connection_created`` in ``factcheck.apps``).
"""

import re

from django.db import connections
from django.db.models import Func, TextField


def add_sqlite_functions(sender, connection, **kwargs):
    """``connection_created`` receiver: give each SQLite connection ``CASEFOLD``."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("CASEFOLD", 1, _casefold, deterministic=True)


def _casefold(text):
    return None if text is None else text.casefold()


class Casefold(Func):
    """A text case-folded in Python's way (SQLite only, see ``add_sqlite_functions``)."""

    function = "CASEFOLD"
    output_field = TextField()


def containing_words(queryset, field, words):
    """
    The rows of ``queryset`` whose ``field`` contains ``words`` in that order,
    with any white space between them (a quotation from a PDF keeps the line
    and page breaks of its wrapped lines), whatever the case of either, in any
    alphabet. PostgreSQL's case-insensitive regular expressions fold every
    letter; on SQLite both sides are case-folded first (“ärzte” finds “ÄRZTE”,
    “ÉTUDE” finds “étude”). No words, no rows.
    """
    if not words.split():
        return queryset.none()
    if connections[queryset.db].vendor != "sqlite":
        return queryset.filter(**{f"{field}__iregex": _words_apart(words)})
    folded = _words_apart(words.casefold())
    return queryset.alias(_folded=Casefold(field)).filter(_folded__regex=folded)


#: White space between words: every character that Python's ``\s`` (SQLite's REGEXP)
#: and ``str.split`` take for one, named here since PostgreSQL's ``\s`` is its C
#: library's, which leaves out the no-break spaces (U+00A0, U+2007, U+202F) of PDFs and HTML.
_SPACES = "[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"


def _words_apart(words):
    """A regular expression of ``words`` as they are, any white space between them."""
    return _SPACES.join(re.escape(word) for word in words.split())
