"""
Security headers of HTML responses: a Content-Security-Policy without inline
script or style and without framing, nosniff, the referrer policy and frame
protection on every page; under production settings (DEBUG off, run in a fresh
process) also HSTS, the HTTPS redirect and secure cookies. The pages themselves
carry nothing the policy would block: no inline script, style or handler.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from claims.models import Claim, ClaimStatus
from sources.services import source_version_create_from_text
from tests.factories import ClaimFactory, EditorFactory, SourceFactory

PROJECT_DIR = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery staple"

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}


def directives(header):
    """A Content-Security-Policy header as {directive: value}."""
    pairs = (part.strip().split(" ", 1) for part in header.split(";") if part.strip())
    return {pair[0]: pair[1] if len(pair) > 1 else "" for pair in pairs}


def assert_basic_headers(headers):
    assert directives(headers["Content-Security-Policy"]) == POLICY
    assert "unsafe" not in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["Cross-Origin-Opener-Policy"] == "same-origin"


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/ld\+json\")[^>]*>")
INLINE_STYLE = re.compile(r"<style\b|\sstyle=", re.IGNORECASE)
INLINE_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def assert_nothing_inline(html, url):
    assert not INLINE_SCRIPT.search(html), f"inline <script> on {url}"
    assert not INLINE_STYLE.search(html), f"inline style on {url}"
    assert not INLINE_HANDLER.search(html), f"inline event handler on {url}"


@pytest.fixture
def pages(db, first_case):
    """The key pages: each kind of desk page, the public ones and the login."""
    editor = EditorFactory(username="eddie")
    source = SourceFactory(title="A cited report")
    source_version_create_from_text(source=source, text="Spending rose 4% in March.", actor=editor)
    claim = first_case.claims.order_by("pk").first()
    published = ClaimFactory(rationale="The **table** says so.")
    Claim.objects.filter(pk=published.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    desk = [
        reverse("claims:case_list"),
        first_case.get_absolute_url(),
        first_case.get_absolute_url() + "?status=draft",
        claim.get_absolute_url(),
        source.get_absolute_url(),
        reverse("search") + "?q=spending",
        reverse("password_change"),
        "/admin/",
    ]
    public = [
        reverse("login"),
        reverse("password_reset"),
        reverse("claims:corrections_log"),
        reverse("claims:public_case", args=[published.case.slug]),
        reverse("claims:public_claim", args=[published.case.slug, published.pk]),
    ]
    editor.is_staff = True
    editor.save()
    return editor, desk, public


def test_every_key_page_sends_the_policy_and_the_basic_headers(client, pages):
    editor, desk, public = pages
    for url in public:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_basic_headers(response.headers)
    client.force_login(editor)
    for url in desk:
        response = client.get(url)
        assert response.status_code == 200, url
        assert_basic_headers(response.headers)


def test_no_key_page_has_inline_script_style_or_handlers(client, pages):
    editor, desk, public = pages
    for url in public:
        assert_nothing_inline(client.get(url).text, url)
    client.force_login(editor)
    for url in desk:
        assert_nothing_inline(client.get(url).text, url)


def test_an_htmx_fragment_carries_the_policy_too(client, pages, first_case):
    editor, _desk, _public = pages
    client.force_login(editor)

    response = client.get(
        first_case.get_absolute_url() + "?status=draft",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="claim-list",
    )

    assert "<html" not in response.text  # a fragment, not the page
    assert_basic_headers(response.headers)
    assert_nothing_inline(response.text, "the claim-list fragment")


def test_the_inline_check_finds_what_the_policy_would_block():
    # The detector itself: each of these must be caught, and JSON-LD must not be.
    for html in [
        "<script>alert(1)</script>",
        '<div style="color: red">',
        "<style>p {}</style>",
        '<button onclick="go()">',
    ]:
        with pytest.raises(AssertionError):
            assert_nothing_inline(html, "sample")
    assert_nothing_inline(
        '<script type="application/ld+json">{}</script><script src="/static/a.js" defer></script>',
        "sample",
    )


def test_htmx_is_told_not_to_inject_its_indicator_style_or_copy_inline_styles(client, db):
    page = client.get(reverse("login")).text
    config = re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", page)[1]

    assert json.loads(config)["includeIndicatorStyles"] is False
    assert json.loads(config)["allowEval"] is False
    # Settling a swapped element's style attribute is an inline style the policy refuses.
    assert "style" not in json.loads(config)["attributesToSettle"]


# Production settings, in a fresh process.

PROBE = """
import json

import django
from django.conf import settings

django.setup()

from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.test.utils import override_settings

call_command("migrate", verbosity=0)
from django.contrib.auth.models import Group

get_user_model().objects.create_user("eddie", password=PASSWORD).groups.add(
    Group.objects.get(name="Editor")
)


def seen(response):
    return {
        "status": response.status_code,
        "headers": dict(response.headers),
        "cookies": {
            name: {
                "secure": bool(morsel["secure"]),
                "httponly": bool(morsel["httponly"]),
                "samesite": morsel["samesite"],
                "max-age": morsel["max-age"],
            }
            for name, morsel in response.cookies.items()
        },
    }


# Only the static storage differs from production: its manifest needs a
# collectstatic run, which has nothing to do with the headers.
with override_settings(
    STORAGES={
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
):
    client = Client()
    answers = {
        "plain http": seen(client.get("/login/")),
        "login page": seen(client.get("/login/", secure=True)),
        "reset page": seen(client.get("/password/reset/", secure=True)),
        "corrections log": seen(client.get("/corrections/", secure=True)),
        "log in": seen(
            client.post("/login/", {"username": "eddie", "password": PASSWORD}, secure=True)
        ),
        "case list": seen(client.get("/cases/", secure=True)),
    }
print(json.dumps(answers))
"""


@pytest.fixture(scope="module")
def production(tmp_path_factory):
    static_root = tmp_path_factory.mktemp("static")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "SECURE_", "SESSION_", "CSRF_", "DATABASE_"))
    }
    env |= {
        "DJANGO_SETTINGS_MODULE": "factcheck.settings",
        "DEBUG": "false",
        "SECRET_KEY": "production-probe-" * 4,
        "ALLOWED_HOSTS": "testserver",
        "SITE_URL": "https://testserver",
        "SQLITE_PATH": ":memory:",
        "STATIC_ROOT": str(static_root),
        "LOG_LEVEL": "ERROR",
    }
    env.pop("REDIS_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", f"PASSWORD = {PASSWORD!r}\n{PROBE}"],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_in_production_plain_http_is_redirected_to_https(production):
    answer = production["plain http"]

    assert answer["status"] == 301
    assert answer["headers"]["Location"] == "https://testserver/login/"


@pytest.mark.parametrize("page", ["login page", "reset page", "corrections log", "case list"])
def test_in_production_html_pages_send_every_security_header(production, page):
    answer = production[page]

    assert answer["status"] == 200
    assert answer["headers"]["Content-Type"].startswith("text/html")
    assert_basic_headers(answer["headers"])
    assert (
        answer["headers"]["Strict-Transport-Security"]
        == "max-age=31536000; includeSubDomains; preload"
    )


def test_in_production_the_cookies_are_secure(production):
    csrf = production["login page"]["cookies"]["csrftoken"]
    session = production["log in"]["cookies"]["sessionid"]

    assert production["log in"]["status"] == 302
    assert csrf["secure"] and csrf["samesite"] == "Lax"
    assert session["secure"] and session["httponly"] and session["samesite"] == "Lax"
    assert session["max-age"] == 12 * 60 * 60


def test_every_answer_varies_on_htmx_so_a_cached_fragment_never_stands_for_its_page(
    editor_client,
):
    for headers in ({}, {"HX-Request": "true"}):
        response = editor_client.get("/search/", {"q": "anything"}, headers=headers)

        assert "HX-Request" in response["Vary"], headers
