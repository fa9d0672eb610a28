"""
Default-deny, proven from the URL resolver: every URL pattern that is not on
the public list below must send an anonymous visitor to a login page. A new
view is protected unless someone adds it here on purpose.
"""

import re
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RegexPattern, RoutePattern

#: URL names anyone may open without logging in.
PUBLIC_URL_NAMES = {
    "login",
    "logout",
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
    "claims:corrections_log",
    "claims:correction_detail",
    "claims:corrections_json",
    "claims:corrections_atom",
    "claims:corrections_rss",
    "claims:public_case",
    "claims:public_case_export",
    "claims:report_error",
    "claims:public_claim",
    # A published claim's evidence drawn on its page, shown on the public claim page.
    "claims:public_evidence_page",
    "admin:login",
    "healthz",
    "readyz",
    # The language menu is on the public pages too, and so is the catalogue scripts read.
    "set-language",
    "javascript-catalog",
}

#: Values for route converters; middleware answers before a view looks them up.
CONVERTER_SAMPLES = {
    "int": "1",
    "id": "1",
    "slug": "a-slug",
    "str": "value",
    "path": "some/path",
    "uuid": "0" * 32,
}


def sample_path_for(pattern):
    if isinstance(pattern, RoutePattern):
        route = str(pattern)
        return re.sub(
            r"<(?:(?P<converter>\w+):)?(?P<name>\w+)>",
            lambda match: CONVERTER_SAMPLES[match["converter"] or "str"],
            route,
        )
    if isinstance(pattern, RegexPattern):
        regex = pattern.regex.pattern
        # Enough of a regex-to-example for Django's own patterns: take the first
        # alternative of each named group, a sample for open-ended ones.
        regex = re.sub(r"\(\?P<\w+>([^()|]+)(?:\|[^()]*)?\)", r"\1", regex)
        regex = regex.replace(".*", "x").replace(".+", "x").replace(r"\d+", "1")
        regex = regex.replace("[^/]+", "x")
        return regex.lstrip("^").rstrip("$").replace("\\", "")
    raise AssertionError(f"Unknown pattern type {pattern!r}")


def walk(patterns, prefix="", namespace=""):
    for entry in patterns:
        path = prefix + sample_path_for(entry.pattern)
        if isinstance(entry, URLResolver):
            inner_namespace = namespace
            if entry.namespace:
                inner_namespace = f"{namespace}{entry.namespace}:"
            yield from walk(entry.url_patterns, path, inner_namespace)
        elif isinstance(entry, URLPattern):
            name = f"{namespace}{entry.name}" if entry.name else f"{namespace}<unnamed {path}>"
            yield name, "/" + path


ALL_URLS = sorted(set(walk(get_resolver().url_patterns)))
PROTECTED_URLS = [(name, path) for name, path in ALL_URLS if name not in PUBLIC_URL_NAMES]
LOGIN_PATHS = {reverse(settings.LOGIN_URL), reverse("admin:login")}


def test_the_walk_finds_every_kind_of_view():
    names = {name for name, _path in ALL_URLS}
    assert {"claims:case_list", "claims:case_detail", "sources:source_detail"} <= names
    assert any(name.startswith("admin:") for name in names)
    assert names >= PUBLIC_URL_NAMES, "a public URL name no longer exists"
    # Pages fetched by address and their archived copies are the desk's, never public: an
    # archived page is a copy of someone else's page, and fetching costs the server a request.
    captures = {
        "sources:source_capture",
        "sources:version_capture",
        "sources:version_fetch_again",
        "sources:version_archive",
        "sources:version_archive_raw",
        "sources:version_warc",
    }
    assert captures <= names
    assert not captures & PUBLIC_URL_NAMES


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("name, path", PROTECTED_URLS, ids=[name for name, _ in PROTECTED_URLS])
def test_an_anonymous_visitor_is_sent_to_login(client, name, path, method):
    if "<unnamed" not in name:
        assert resolve(path).view_name == name, "the sample path reaches another view"

    response = getattr(client, method)(path)

    assert response.status_code == 302, f"{name} ({path}) answered {response.status_code}"
    location = urlsplit(response["Location"])
    assert location.path in LOGIN_PATHS, f"{name} redirected to {response['Location']}"
    assert "next=" in location.query


@pytest.mark.django_db
def test_the_public_corrections_log_opens_without_login(client):
    response = client.get(reverse("claims:corrections_log"))
    assert response.status_code == 200
