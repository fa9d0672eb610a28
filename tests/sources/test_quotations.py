import importlib

import pytest
from django.apps import apps as django_apps
from django.core.exceptions import ValidationError

from sources.models import QUOTATION_CONTEXT_CHARS, ImmutableRecordError, Quotation
from sources.services import find_span, quotation_create, source_version_upload
from tests.factories import SAMPLE_TEXT, QuotationFactory, SourceFactory, SourceVersionFactory
from tests.sample_files import make_text_pdf

pytestmark = pytest.mark.django_db


def test_quotation_of_a_span_holds_the_exact_text_and_its_context():
    version = SourceVersionFactory()
    start, end = find_span(SAMPLE_TEXT, "467 seconds")

    quotation, created = quotation_create(version=version, start=start, end=end, actor=None)

    assert created
    assert quotation.exact == "467 seconds"
    assert version.extracted_text[quotation.start : quotation.end] == quotation.exact
    assert quotation.prefix == SAMPLE_TEXT[max(0, start - QUOTATION_CONTEXT_CHARS) : start]
    assert quotation.suffix == SAMPLE_TEXT[end : end + QUOTATION_CONTEXT_CHARS]


def test_saving_a_quotation_that_differs_from_the_source_is_refused_with_both_texts():
    version = SourceVersionFactory()
    start, end = find_span(SAMPLE_TEXT, "467 seconds")
    quotation = Quotation(version=version, start=start, end=end, exact="476 seconds")

    with pytest.raises(ValidationError) as raised:
        quotation.save()

    message = " ".join(raised.value.message_dict["exact"])
    assert "not the source's text" in message
    assert "467 seconds" in message and "476 seconds" in message
    assert not Quotation.objects.exists()


def test_offsets_outside_the_text_are_refused():
    version = SourceVersionFactory()
    quotation = Quotation(version=version, start=10, end=len(SAMPLE_TEXT) + 5, exact="x")

    with pytest.raises(ValidationError) as raised:
        quotation.full_clean()

    assert "outside the source text" in " ".join(raised.value.message_dict["start"])


def test_quoting_words_that_are_not_in_the_source_names_them():
    with pytest.raises(ValidationError, match="does not appear in the source text"):
        find_span(SAMPLE_TEXT, "up to 2.6× higher throughput")


def test_a_later_occurrence_can_be_quoted():
    text = "2.6 here, and 2.6 there"
    assert find_span(text, "2.6", occurrence=2) == (14, 17)
    with pytest.raises(ValidationError, match="3 times"):
        find_span(text, "2.6", occurrence=3)


def test_quoting_the_same_span_twice_returns_the_first_quotation():
    quotation = QuotationFactory()

    again, created = quotation_create(
        version=quotation.version, start=quotation.start, end=quotation.end, actor=None
    )

    assert not created
    assert again == quotation


def test_a_quotation_on_a_paged_version_knows_its_page():
    version = SourceVersionFactory()
    # Page offsets are fixed when extraction finishes; here the test stands in for it.
    version.page_offsets = [0, 56, 112]
    start, end = find_span(SAMPLE_TEXT, "3.7×")

    quotation = Quotation.for_span(version, start, end)

    assert quotation.page == 3
    assert quotation.location == "p. 3"


def test_a_quotation_across_a_page_break_names_both_pages():
    version = SourceVersionFactory()
    version.page_offsets = [0, 56, 112]

    quotation = Quotation.for_span(version, 50, 60)
    last_on_first = Quotation.for_span(version, 50, 56)

    assert (quotation.page, quotation.end_page) == (1, 2)
    assert quotation.location == "pp. 1–2"
    assert last_on_first.location == "p. 1"  # its end is the offset after its last character


def test_a_saved_quotation_cannot_be_changed():
    quotation = QuotationFactory()
    quotation.exact = "1,112 tokens per second"

    with pytest.raises(ImmutableRecordError):
        quotation.save()

    quotation.refresh_from_db()
    assert quotation.exact == "1,111 tokens per second"


def test_the_migration_gives_quotations_made_before_it_their_end_page():
    pdf = make_text_pdf(["The engine ran at 9.0 seconds.", "It reached 1,111 tokens per second."])
    version, _created = source_version_upload(
        source=SourceFactory(), content=pdf, filename="two-pages.pdf", actor=None
    )
    version.refresh_from_db()
    start = version.extracted_text.index("9.0")
    end = version.extracted_text.index("1,111") + len("1,111")
    across, _created = quotation_create(version=version, start=start, end=end, actor=None)
    Quotation.objects.filter(pk=across.pk).update(end_page=None)  # as stored before 0006
    migration = importlib.import_module("sources.migrations.0006_quotation_end_page")

    migration.fill_end_pages(django_apps, None)

    assert Quotation.objects.get(pk=across.pk).location == "pp. 1–2"
