"""What the app asks of both databases that SQLite does not do by itself."""

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
    The rows of ``queryset`` whose ``field`` contains ``words``, whatever the
    case of either, in any alphabet. PostgreSQL's ``icontains`` already folds
    every letter; SQLite's ``LIKE`` only folds A to Z, so there both sides are
    case-folded first (“ärzte” finds “ÄRZTE”, “ÉTUDE” finds “étude”).
    """
    if connections[queryset.db].vendor != "sqlite":
        return queryset.filter(**{f"{field}__icontains": words})
    return queryset.alias(_folded=Casefold(field)).filter(_folded__contains=words.casefold())
