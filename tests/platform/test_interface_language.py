"""
The interface in the reader's language: the language menu, a desk user's choice
kept on their account, the browser's Accept-Language for everyone else, right to
left in Arabic, and every key page in every language.
"""

import datetime
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.template import Context, Template
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from claims.models import Case, Claim, ClaimStatus
from factcheck.models import AuditEvent, Preferences
from factcheck.preferences import LANGUAGE_SESSION_KEY, preferences_set_language
from tests.factories import (
    EditorFactory,
    PublishedCorrectionFactory,
    RatingFactory,
    ReviewAssignmentFactory,
    SourceVersionFactory,
    case_with_claims,
)

pytestmark = pytest.mark.django_db

#: Each offered language and the direction its pages are written in.
DIRECTIONS = {"en": "ltr", "es": "ltr", "pt-br": "ltr", "fr": "ltr", "ar": "rtl"}
#: The language menu's label, translated: proof that a page used its language's catalogue.
MENU_LABEL = {"es": "Idioma", "pt-br": "Idioma", "fr": "Langue", "ar": "اللغة"}
COOKIE = settings.LANGUAGE_COOKIE_NAME


def page_language(response):
    """``(lang, dir)`` of the page's ``<html>`` tag (None for a page that is not HTML)."""
    found = re.search(r"<html[^>]*>", response.text)
    if not found:
        return None
    tag = found[0]
    lang = re.search(r'\blang="([^"]*)"', tag)
    direction = re.search(r'\bdir="([^"]*)"', tag)
    return (lang[1] if lang else None, direction[1] if direction else None)


def catalogue_compiled(language):
    """True once ``locale/<language>/LC_MESSAGES/django.mo`` has been compiled."""
    folder = translation.to_locale(language)
    return (Path(settings.BASE_DIR) / "locale" / folder / "LC_MESSAGES" / "django.mo").exists()


def choose(client, language, headers=None, **fields):
    return client.post(reverse("set-language"), {"language": language, **fields}, headers=headers)


# The menu.


def test_every_page_offers_the_five_languages_each_by_its_own_name(client):
    page = client.get(reverse("login"), headers={"accept-language": "fr"}).text

    menu = page[page.index('<form class="language-menu"') :]
    menu = menu[: menu.index("</form>")]
    assert f'action="{reverse("set-language")}"' in menu
    assert 'method="post"' in menu
    assert '<label for="language-menu">' in menu
    for code, name in settings.LANGUAGES:
        selected = " selected" if code == "fr" else ""
        assert f'<option value="{code}" lang="{code}"{selected}>{name}</option>' in menu
    assert '<input type="submit"' in menu  # sent without scripts
    # A public page is the same for every reader: no token in it (the view asks none of them).
    assert "csrfmiddlewaretoken" not in menu


def test_a_signed_in_users_menu_carries_the_csrf_token_and_the_page_to_go_back_to(editor_client):
    page = editor_client.get(reverse("sources:source_list")).text

    menu = page[page.index('<form class="language-menu"') :]
    menu = menu[: menu.index("</form>")]
    assert "csrfmiddlewaretoken" in menu
    assert f'<input type="hidden" name="next" value="{reverse("sources:source_list")}">' in menu


# A desk user's choice, on their account.


def test_choosing_a_language_keeps_it_on_the_account_audited_and_the_next_page_is_in_it(
    client, editor
):
    client.force_login(editor)

    response = choose(client, "es", next=reverse("sources:source_list"))

    assert response.status_code == 302
    assert response["Location"] == reverse("sources:source_list")
    assert Preferences.objects.get(user=editor).language == "es"
    event = AuditEvent.objects.get(action="account.language_change")
    assert event.actor == editor
    assert event.changes == {"language": ["", "es"]}
    assert response.cookies[COOKIE].value == "es"
    assert page_language(client.get(reverse("sources:source_list"))) == ("es", "ltr")


def test_the_saved_language_follows_the_user_to_another_browser_over_its_accept_language(editor):
    first = Client()
    first.force_login(editor)
    choose(first, "pt-br")

    elsewhere = Client(headers={"accept-language": "fr"})
    assert page_language(elsewhere.get(reverse("login"))) == ("fr", "ltr")
    elsewhere.force_login(editor)
    page = elsewhere.get(reverse("claims:case_list"))

    assert page_language(page) == ("pt-br", "ltr")
    # Set on that browser too, so that its login page after logging out is in it.
    assert page.cookies[COOKIE].value == "pt-br"


def test_a_page_reads_the_saved_language_from_the_session_without_a_query(client, editor):
    preferences_set_language(user=editor, language="fr")
    client.force_login(editor)

    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("sources:source_list"))

    assert page_language(page) == ("fr", "ltr")
    assert not any("factcheck_preferences" in query["sql"] for query in queries)


def test_a_session_opened_before_languages_were_kept_reads_the_choice_once(client, editor):
    preferences_set_language(user=editor, language="ar")
    client.force_login(editor)
    session = client.session
    del session[LANGUAGE_SESSION_KEY]
    session.save()

    def preference_reads():
        with CaptureQueriesContext(connection) as queries:
            page = client.get(reverse("sources:source_list"))
        assert page_language(page) == ("ar", "rtl")
        return sum("factcheck_preferences" in query["sql"] for query in queries)

    assert preference_reads() == 1
    assert preference_reads() == 0


def test_choosing_the_same_language_again_records_no_second_event(client, editor):
    client.force_login(editor)
    choose(client, "fr")
    choose(client, "fr")
    choose(client, "en")

    events = AuditEvent.objects.filter(action="account.language_change").order_by("pk")
    assert [event.changes["language"] for event in events] == [["", "fr"], ["fr", "en"]]
    assert Preferences.objects.get(user=editor).language == "en"


# Anyone else: the browser's language, or the cookie the menu sets.


def test_an_anonymous_reader_gets_their_browsers_language(client):
    page = client.get(reverse("claims:corrections_log"), headers={"accept-language": "es"})

    assert '<html lang="es" dir="ltr">' in page.text


def test_arabic_pages_are_written_right_to_left(client):
    page = client.get(reverse("login"), headers={"accept-language": "ar"})

    assert '<html lang="ar" dir="rtl">' in page.text


def test_an_anonymous_readers_choice_is_kept_in_the_cookie_alone(client):
    response = choose(client, "fr", next=reverse("claims:corrections_log"))

    assert response.status_code == 302
    assert response["Location"] == reverse("claims:corrections_log")
    assert response.cookies[COOKIE].value == "fr"
    assert not Preferences.objects.exists()
    assert not AuditEvent.objects.exists()
    page = client.get(reverse("claims:corrections_log"), headers={"accept-language": "es"})
    assert page_language(page) == ("fr", "ltr")


def test_an_anonymous_reader_may_choose_without_a_csrf_token_a_signed_in_user_may_not(editor):
    anonymous = Client(enforce_csrf_checks=True)
    assert choose(anonymous, "es").status_code == 302

    signed_in = Client(enforce_csrf_checks=True)
    signed_in.force_login(editor)
    assert choose(signed_in, "es").status_code == 403
    assert not Preferences.objects.exists()


# Refused, and where the menu sends back to.


@pytest.mark.parametrize("language", ["xx", "", "EN", "pt_BR", "e" * 500])
def test_an_unknown_language_is_refused_with_a_message_and_nothing_is_saved(
    client, editor, language
):
    client.force_login(editor)

    response = choose(client, language)

    assert response.status_code == 400
    assert "is not a language this site is offered in" in response.text or (
        "This field is required." in response.text
    )
    assert COOKIE not in response.cookies
    assert not Preferences.objects.exists()
    assert not AuditEvent.objects.filter(action="account.language_change").exists()


def test_the_service_refuses_an_unknown_language(editor):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="Choose one of: English, Español"):
        preferences_set_language(user=editor, language="klingon")
    assert not Preferences.objects.exists()


def test_a_refusal_asked_by_htmx_is_a_sentence_in_plain_text(client):
    response = client.post(
        reverse("set-language"), {"language": "xx"}, headers={"HX-Request": "true"}
    )

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert "“xx” is not a language this site is offered in" in response.text


def test_htmx_is_sent_to_load_the_whole_page_again(client):
    response = client.post(
        reverse("set-language"),
        {"language": "es", "next": reverse("claims:corrections_log")},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 204
    assert response["HX-Redirect"] == reverse("claims:corrections_log")
    assert response.cookies[COOKIE].value == "es"


@pytest.mark.parametrize(
    "next_url", ["https://elsewhere.example/", "//elsewhere.example/", "javascript:alert(1)"]
)
def test_a_next_address_on_another_site_is_not_followed(client, editor, next_url):
    client.force_login(editor)

    response = choose(client, "es", next=next_url)

    assert response.status_code == 302
    assert response["Location"] == reverse("home")


def test_without_next_the_menu_goes_back_to_the_referring_page_of_this_site(client):
    back = choose(client, "es", headers={"referer": "http://testserver/corrections/"})
    elsewhere = choose(client, "es", headers={"referer": "https://elsewhere.example/page"})

    assert back["Location"] == "http://testserver/corrections/"
    # A reader who is not signed in goes to the public log, their side of the site.
    assert elsewhere["Location"] == reverse("claims:corrections_log")


def test_the_menu_is_only_posted_to(client):
    assert client.get(reverse("set-language"), {"language": "es"}).status_code == 405
    assert COOKIE not in client.cookies


# The JavaScript catalogue.


def test_every_page_loads_the_javascript_catalogue_of_its_language_before_the_other_scripts(
    client,
):
    page = client.get(reverse("login"), headers={"accept-language": "es"}).text

    catalogue = page.index(f'<script src="{reverse("javascript-catalog")}?language=es"')
    assert catalogue < page.index("htmx.min.js")


def test_the_javascript_catalogue_is_in_the_language_its_address_names(client):
    english_reader = {"accept-language": "en"}
    url = reverse("javascript-catalog")

    french = client.get(url, {"language": "fr"}, headers=english_reader).text
    unknown = client.get(url, {"language": "xx"}, headers=english_reader).text

    assert '"DECIMAL_SEPARATOR": ","' in french
    assert '"DECIMAL_SEPARATOR": "."' in unknown  # the request's own language


def test_the_javascript_catalogue_is_served_and_asked_again_only_when_it_changed(client):
    response = client.get(reverse("javascript-catalog"), {"language": "fr"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert "django.gettext" in response.text
    again = client.get(
        reverse("javascript-catalog"),
        {"language": "fr"},
        headers={"if-modified-since": response["Last-Modified"]},
    )
    assert again.status_code == 304


# Every key page in every language.


@pytest.fixture
def desk():
    """A case with a claim in review, its reviewer, and a published claim of the same case."""
    editor = EditorFactory(is_staff=True)
    claim, published = case_with_claims(2).claims.order_by("pk")
    assignment = ReviewAssignmentFactory(claim=claim, assigned_by=editor)
    Claim.objects.filter(pk=claim.pk).update(status=ClaimStatus.IN_REVIEW)
    # A case of no known language: its public pages follow the reader's (one in a known
    # language is served in that language, whoever reads it).
    Case.objects.filter(pk=claim.case_id).update(language="")
    Claim.objects.filter(pk=published.pk).update(
        status=ClaimStatus.PUBLISHED,
        published_at=datetime.datetime(2026, 12, 7, 10, tzinfo=datetime.UTC),
        verdict=RatingFactory(label="Accurate"),
    )
    source = SourceVersionFactory().source
    return {
        "editor": editor,
        "reviewer": assignment.reviewer,
        "pages": {
            "case list": (editor, reverse("claims:case_list")),
            "case page": (editor, claim.case.get_absolute_url()),
            "claim page": (editor, claim.get_absolute_url()),
            "review page": (assignment.reviewer, reverse("claims:review", args=[assignment.pk])),
            "source page": (editor, reverse("sources:source_detail", args=[source.pk])),
            "search": (editor, reverse("search") + "?q=tokens"),
            "corrections log": (None, reverse("claims:corrections_log")),
            "public case page": (None, reverse("claims:public_case", args=[claim.case.slug])),
            "public claim page": (
                None,
                reverse("claims:public_claim", args=[claim.case.slug, published.pk]),
            ),
            "login": (None, reverse("login")),
        },
    }


def pages_in(desk, language):
    """Each key page in ``language``: desk pages by the cookie, public ones by Accept-Language."""
    for name, (user, url) in desk["pages"].items():
        client = Client()
        if user is None:
            yield name, client.get(url, headers={"accept-language": language})
        else:
            client.force_login(user)
            client.cookies[COOKIE] = language
            yield name, client.get(url)


@pytest.mark.parametrize("language", DIRECTIONS)
def test_every_key_page_renders_in_every_language_with_its_lang_and_direction(desk, language):
    expected = (language, DIRECTIONS[language])
    wrong = [
        f"{name}: {response.status_code} {page_language(response)}"
        for name, response in pages_in(desk, language)
        if response.status_code != 200 or page_language(response) != expected
    ]

    assert wrong == []


@pytest.mark.parametrize(
    "language",
    [
        pytest.param(
            code,
            marks=pytest.mark.skipif(
                not catalogue_compiled(code), reason=f"no compiled catalogue for {code} yet"
            ),
        )
        for code in MENU_LABEL
    ],
)
def test_every_key_page_is_translated_once_its_catalogue_is_compiled(desk, language):
    untranslated = [
        name
        for name, response in pages_in(desk, language)
        if f'<label for="language-menu">{MENU_LABEL[language]}</label>' not in response.text
    ]

    assert untranslated == []


# Dates and numbers in the active language.


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "7 December 2026 · 7 December 2026, 10:30 · 7 Dec 2026"),
        ("es", "7 de diciembre de 2026 · 7 de diciembre de 2026 a las 10:30 · 07/12/2026"),
        ("fr", "7 décembre 2026 · 7 décembre 2026 10:30 · 07/12/2026"),
        ("pt-br", "7 de Dezembro de 2026 · 7 de Dezembro de 2026 às 10:30 · 07/12/2026"),
    ],
)
def test_dates_take_the_active_languages_format(language, expected):
    moment = datetime.datetime(2026, 12, 7, 10, 30, tzinfo=datetime.UTC)
    template = Template(
        '{{ moment|date:"DATE_FORMAT" }} · {{ moment|date:"DATETIME_FORMAT" }}'
        ' · {{ moment|date:"SHORT_DATE_FORMAT" }}'
    )

    with translation.override(language), timezone.override(datetime.UTC):
        assert template.render(Context({"moment": moment})) == expected


def test_numbers_take_the_active_languages_decimal_mark():
    with translation.override("fr"):
        assert Template("{{ share }}").render(Context({"share": 12.5})) == "12,5"
    with translation.override("en"):
        assert Template("{{ share }}").render(Context({"share": 12.5})) == "12.5"


def test_the_public_claim_page_gives_its_date_in_spanish(desk):
    page = dict(pages_in(desk, "es"))["public claim page"]

    assert "7 de diciembre de 2026" in page.text


def test_readers_in_two_languages_each_get_the_stored_public_page_in_their_own(client):
    PublishedCorrectionFactory()
    url = reverse("claims:corrections_log")
    spanish = client.get(url, headers={"accept-language": "es"})
    english = Client().get(url, headers={"accept-language": "en"})
    again = Client().get(
        url, headers={"accept-language": "en", "if-none-match": spanish.get("ETag", "")}
    )

    assert page_language(spanish) == ("es", "ltr")
    assert page_language(english) == ("en", "ltr")
    # A browser that switched language is not told its old-language copy is current.
    assert again.status_code == 200
    assert "Accept-Language" in english["Vary"]
