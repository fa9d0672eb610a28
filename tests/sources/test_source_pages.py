"""The source list and a source's page."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from sources.models import Source, SourceRole
from sources.views import SOURCES_PER_PAGE
from tests.factories import (
    SourceFactory,
    SourceVersionFactory,
)

pytestmark = pytest.mark.django_db


def test_the_source_list_shows_cited_sources_as_awaiting_upload(editor_client, first_case):
    response = editor_client.get(reverse("sources:source_list"))

    assert response.status_code == 200
    assert "Together Compiler: Continual Compilation for AI Inference" in response.text
    assert response.text.count("awaiting upload") == 4


def test_the_source_list_counts_each_sources_versions_in_a_fixed_number_of_queries(
    editor_client,
):
    revised = SourceFactory(title="A source uploaded twice")
    SourceVersionFactory(source=revised)
    with CaptureQueriesContext(connection) as with_one_source:
        editor_client.get(reverse("sources:source_list"))
    SourceVersionFactory(source=revised, text="The second text, corrected.")
    SourceFactory(title="A source not yet uploaded")
    SourceFactory.create_batch(SOURCES_PER_PAGE)

    with CaptureQueriesContext(connection) as with_a_full_page:
        response = editor_client.get(reverse("sources:source_list"))

    rows = {
        title: response.text.split(title, 1)[1].split("</tr>", 1)[0]
        for title in ("A source uploaded twice", "A source not yet uploaded")
    }
    assert "<td>2</td>" in rows["A source uploaded twice"]
    assert "awaiting upload" in rows["A source not yet uploaded"]
    assert response.text.count("<tr>") == SOURCES_PER_PAGE + 1
    assert len(with_a_full_page) == len(with_one_source)


def test_a_source_without_versions_explains_that_it_awaits_upload(editor_client, first_case):
    source = Source.objects.get(publisher="Unite.AI")

    response = editor_client.get(source.get_absolute_url())

    assert "Awaiting upload" in response.text


def test_the_article_source_page_shows_its_text_and_digest(editor_client, first_case):
    article = Source.objects.get(role=SourceRole.UNDER_CHECK)

    response = editor_client.get(article.get_absolute_url())

    version = article.versions.get()
    assert version.sha256 in response.text
    assert "Where the speed actually comes from" in response.text
    assert 'class="quote-mark"' in response.text
