"""A source's text has a language: detected when read, put right by an editor, searched in it."""

import lxml.html
import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import override_settings
from django.urls import reverse

from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent, SearchEntry
from factcheck.search import search
from sources.models import SourceVersion
from sources.services import source_create, source_version_upload, version_set_language
from sources.tasks import extract_source_version
from tests.factories import QuotationFactory, ReviewerFactory, SourceVersionFactory

pytestmark = pytest.mark.django_db

#: A backend that only records tasks, so a version can be seen waiting.
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}

SPANISH = (
    "La inflación subió al 3,2 % en octubre, según el instituto nacional de estadística. "
    "Los precios de los alimentos crecieron más que los de la energía."
)
ARABIC = "ارتفع معدل التضخم إلى 3.2 في المئة في أكتوبر، حسب المعهد الوطني للإحصاء."
FRENCH = (
    "L'inflation a atteint 3,2 % en octobre selon l'institut national de la statistique "
    "et des études économiques."
)


def spanish_source(editor):
    """A Spanish text uploaded and read as the desk's uploads are (the task runs in-process)."""
    return source_create(
        actor=editor, title="IPC de octubre", content=SPANISH.encode(), filename="ipc.txt"
    )


def test_the_language_of_an_uploaded_text_is_detected_when_it_is_read(editor):
    version = spanish_source(editor).versions.get()

    assert version.is_ready
    assert version.language == "es"


def test_a_language_named_while_the_text_is_being_read_is_kept(editor):
    source = source_create(actor=editor, title="Informe")
    with override_settings(TASKS=QUEUED_ONLY):
        version, _created = source_version_upload(
            source=source, content=SPANISH.encode(), filename="informe.txt", actor=editor
        )
    version_set_language(version=version, language="pt", actor=editor)

    extract_source_version.call(version.pk)

    version.refresh_from_db()
    assert version.is_ready
    assert version.language == "pt"


def test_a_text_too_short_to_tell_has_no_language(editor):
    source = source_create(actor=editor, title="Cifra", content=b"3,2 %", filename="cifra.txt")

    assert source.versions.get().language == ""


def test_a_spanish_source_is_found_by_its_own_words_and_its_passages_are_in_spanish(editor):
    source = spanish_source(editor)

    assert set(SearchEntry.objects.filter(kind="source").values_list("language", flat=True)) == {
        "es"
    }
    (hit,) = search("inflación")[0:10]
    assert hit.object_id == source.pk


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite's word index does not stem: exact words only"
)
def test_a_spanish_source_is_found_by_another_form_of_its_words_on_postgresql(editor):
    source = spanish_source(editor)

    (hit,) = search("inflaciones")[0:10]
    assert hit.object_id == source.pk


def test_an_editor_puts_a_versions_language_right_and_its_passages_follow(editor):
    source = source_create(actor=editor, title="Note", content=FRENCH.encode(), filename="n.txt")
    version = source.versions.get()
    assert version.language == "fr"

    version_set_language(version=version, language="es", actor=editor)

    version.refresh_from_db()
    assert version.language == "es"
    assert set(SearchEntry.objects.filter(kind="source").values_list("language", flat=True)) == {
        "es"
    }
    event = AuditEvent.objects.get(action="sourceversion.language")
    assert event.changes == {"language": ["fr", "es"]}
    assert event.actor == editor


def test_an_earlier_versions_language_changes_without_touching_what_is_searched(editor):
    source = source_create(actor=editor, title="Note", content=FRENCH.encode(), filename="n.txt")
    first = source.versions.get()
    source_version_upload(source=source, content=SPANISH.encode(), filename="n2.txt", actor=editor)

    version_set_language(version=first, language="de", actor=editor)

    assert SourceVersion.objects.get(pk=first.pk).language == "de"
    # The current (Spanish) version's passages are the source's, as they were.
    assert set(SearchEntry.objects.filter(kind="source").values_list("language", flat=True)) == {
        "es"
    }
    assert "inflación" in SearchEntry.objects.filter(kind="source").first().body


def test_an_unknown_language_code_is_refused_and_nothing_changes(editor):
    version = spanish_source(editor).versions.get()

    with pytest.raises(ValidationError) as refused:
        version_set_language(version=version, language="xx", actor=editor)

    assert refused.value.code == "unknown_language"
    assert SourceVersion.objects.get(pk=version.pk).language == "es"
    assert not AuditEvent.objects.filter(action="sourceversion.language").exists()


def test_only_who_may_change_the_source_may_change_its_language(editor):
    version = spanish_source(editor).versions.get()

    with pytest.raises(NotAllowed):
        version_set_language(version=version, language="fr", actor=ReviewerFactory())

    assert SourceVersion.objects.get(pk=version.pk).language == "es"


def language_url(version):
    return reverse("sources:version_language", args=[version.source_id, version.number])


def test_an_editor_changes_the_language_on_the_source_page(editor_client, editor):
    version = spanish_source(editor).versions.get()

    response = editor_client.post(language_url(version), {"language": "fr"}, follow=True)

    assert SourceVersion.objects.get(pk=version.pk).language == "fr"
    assert "Version 1 is now marked as written in French." in response.text


def test_a_language_posted_that_the_desk_does_not_know_is_refused_with_a_message(
    editor_client, editor
):
    version = spanish_source(editor).versions.get()

    response = editor_client.post(language_url(version), {"language": "klingon"}, follow=True)

    assert SourceVersion.objects.get(pk=version.pk).language == "es"
    assert "The language was not changed" in response.text
    assert "“klingon” is not a language this desk knows" in response.text


def test_a_reviewer_may_not_change_a_versions_language(client, editor):
    version = spanish_source(editor).versions.get()
    client.force_login(ReviewerFactory())

    response = client.post(language_url(version), {"language": "fr"})

    assert response.status_code == 403
    assert SourceVersion.objects.get(pk=version.pk).language == "es"


def test_the_source_page_marks_the_text_and_its_quotations_with_their_language(editor_client):
    version = SourceVersionFactory(text=ARABIC)
    QuotationFactory(version=version, exact="معدل التضخم")

    page = lxml.html.fromstring(editor_client.get(version.source.get_absolute_url()).text)

    (reader,) = page.xpath("//div[contains(@class, 'reader__text')]")
    assert (reader.get("lang"), reader.get("dir")) == ("ar", "rtl")
    (quotation,) = page.xpath("//ol[@class='quotation-list']//blockquote")
    assert (quotation.get("lang"), quotation.get("dir")) == ("ar", "rtl")
    assert page.xpath("//select[@id='version-language']/option[@selected]/@value") == ["ar"]


def test_a_text_whose_language_is_not_known_gets_no_lang_and_the_page_names_none(client):
    version = SourceVersionFactory(language="")
    client.force_login(ReviewerFactory())

    page = lxml.html.fromstring(client.get(version.source.get_absolute_url()).text)

    (reader,) = page.xpath("//div[contains(@class, 'reader__text')]")
    assert reader.get("lang") is None
    assert reader.get("dir") is None
    # A reviewer reads the language; only an editor gets the menu.
    assert not page.xpath("//select[@id='version-language']")
    assert "Not known" in page.get_element_by_id(f"version-{version.number}").text_content()


def test_the_factory_detects_a_versions_language_unless_told():
    assert SourceVersionFactory().language == "en"
    assert SourceVersionFactory(language="de").language == "de"
