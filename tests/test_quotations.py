import pytest
from django.core.exceptions import ValidationError

from sources.models import QUOTATION_CONTEXT_CHARS, ImmutableRecordError, Quotation
from sources.services import find_span, quotation_create
from tests.factories import SAMPLE_TEXT, QuotationFactory, SourceVersionFactory

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


def test_a_saved_quotation_cannot_be_changed():
    quotation = QuotationFactory()
    quotation.exact = "1,112 tokens per second"

    with pytest.raises(ImmutableRecordError):
        quotation.save()

    quotation.refresh_from_db()
    assert quotation.exact == "1,111 tokens per second"
