"""
Every URL with an integer id answers 404 for an id no database row can have,
never a 500: the resolver is walked, so a new URL is covered as soon as it exists.
"""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.converters import IntConverter

from factcheck.http import BigIntId
from tests.factories import ClaimFactory, EditorFactory, SourceVersionFactory, UserFactory

pytestmark = pytest.mark.django_db

#: Past a signed 64-bit integer (the largest id SQLite and PostgreSQL hold), and far past it.
OUT_OF_RANGE = ("9223372036854775808", "99999999999999999999")
ID_CONVERTERS = (IntConverter, BigIntId)


def int_routes(patterns, prefix="", converters=None):
    """``(route, names of its integer slots)`` for every pattern with an integer in its path."""
    for entry in patterns:
        route = prefix + str(entry.pattern).lstrip("^")
        found = (converters or {}) | getattr(entry.pattern, "converters", {})
        if isinstance(entry, URLResolver):
            yield from int_routes(entry.url_patterns, route, found)
        elif isinstance(entry, URLPattern):
            ints = [
                name for name, converter in found.items() if isinstance(converter, ID_CONVERTERS)
            ]
            if ints:
                yield route, ints


ROUTES = list(int_routes(get_resolver().url_patterns))


def url_for(route, values):
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda match: values[match[1]], route)


@pytest.fixture
def valid_values():
    claim = ClaimFactory()
    version = SourceVersionFactory()
    # Valid elsewhere, so that only the slot under test can make the page a 404.
    return {
        "slug": claim.case.slug,
        "pk": str(claim.pk),
        "source_pk": str(version.source_id),
        "number": str(version.number),
    }


def test_every_url_with_an_integer_id_is_walked():
    # The walk itself finds them: sources, claims and corrections at least.
    assert len(ROUTES) >= 20
    assert any("download" in route for route, _ints in ROUTES)


@pytest.mark.parametrize("who", ["editor", "superuser"])
def test_an_id_past_the_databases_range_answers_404_on_every_url(client, valid_values, who):
    user = EditorFactory() if who == "editor" else UserFactory(is_staff=True, is_superuser=True)
    client.force_login(user)
    # Every answer is collected, a 500 included, so the failure lists every URL at once.
    client.raise_request_exception = False
    answers = {}
    for route, ints in ROUTES:
        for slot in ints:
            for big in OUT_OF_RANGE:
                values = {
                    name: valid_values.get(name, "1")
                    for name in re.findall(r"<(?:\w+:)?(\w+)>", route)
                }
                values[slot] = big
                url = url_for(route, values)
                for method in ("get", "post"):
                    response = getattr(client, method)(url)
                    if response.status_code != 404:
                        answers[f"{method.upper()} {url}"] = response.status_code
    assert answers == {}
