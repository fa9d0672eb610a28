from itertools import pairwise

import pytest
from django.core.cache import caches

from sources.highlighting import (
    NEXT_PART_OPENING,
    cached_marked_part,
    mark_spans,
    render_marked_text,
    split_into_parts,
)
from sources.models import SourceVersion
from tests.factories import QuotationFactory, SourceVersionFactory


def texts(paragraph):
    return [(segment.text, segment.marks) for segment in paragraph.segments]


def test_unmarked_text_is_split_into_paragraphs_at_newlines():
    paragraphs = mark_spans("One.\nTwo.", [])

    assert [texts(p) for p in paragraphs] == [[("One.", ())], [("Two.", ())]]
    assert [p.start for p in paragraphs] == [0, 5]


def test_overlapping_spans_mark_the_shared_part_with_both_keys():
    text = "up to 2.6 times higher"
    paragraphs = mark_spans(text, [(0, 9, "a"), (6, 15, "b")])

    assert texts(paragraphs[0]) == [
        ("up to ", ("a",)),
        ("2.6", ("a", "b")),
        (" times", ("b",)),
        (" higher", ()),
    ]


def test_a_span_across_a_paragraph_break_is_marked_in_both_paragraphs():
    paragraphs = mark_spans("ab\ncd", [(1, 4, "x")])

    assert texts(paragraphs[0]) == [("a", ()), ("b", ("x",))]
    assert texts(paragraphs[1]) == [("c", ("x",)), ("d", ())]


def test_spans_outside_the_text_are_ignored():
    assert texts(mark_spans("abc", [(2, 10, "x"), (3, 3, "y")])[0]) == [("abc", ())]


def test_segments_reassemble_the_original_text():
    text = "First line.\n\nThird line, after a blank one.\n"
    paragraphs = mark_spans(text, [(0, 5, 1), (13, 18, 2)])

    rebuilt = "".join(segment.text for p in paragraphs for segment in p.segments)
    assert rebuilt == text.replace("\n", "")


def test_the_paragraph_where_a_page_begins_carries_its_number():
    text = "Page one text.\n\nPage two text.\n\nStill page two."

    paragraphs = mark_spans(text, [], page_offsets=[0, 16])

    assert [(p.start, p.page) for p in paragraphs] == [(0, 1), (16, 2), (32, None)]


def test_a_span_start_is_recorded_on_its_segment_even_when_covered():
    paragraphs = mark_spans("abcdef", [(0, 6, "outer"), (2, 4, "inner")])

    starts = {segment.text: segment.starts for segment in paragraphs[0].segments}
    assert starts == {"ab": ("outer",), "cd": ("inner",), "ef": ()}


def test_rendered_text_escapes_the_text_and_marks_each_segment_with_its_offset():
    html = render_marked_text("a <b>\nc&d", [(2, 9, "")], mark_class="quote-mark")

    assert html == (
        '<p><span data-start="0">a </span>'
        '<mark class="quote-mark" data-start="2">&lt;b&gt;</mark></p>\n'
        '<p><mark class="quote-mark" data-start="6">c&amp;d</mark></p>\n'
    )


def test_rendered_text_puts_references_where_spans_begin_and_flags_overlaps():
    html = render_marked_text(
        "abcdef", [(0, 4, "<sup>1</sup>"), (2, 6, "<sup>2</sup>")], mark_class="claim-mark"
    )

    assert html == (
        '<p><sup>1</sup><mark class="claim-mark" data-start="0">ab</mark>'
        '<sup>2</sup><mark class="claim-mark claim-mark--overlap" data-start="2">cd</mark>'
        '<mark class="claim-mark" data-start="4">ef</mark></p>\n'
    )


def test_rendered_text_numbers_the_pages_of_a_paged_text():
    html = render_marked_text("one\ntwo", [], mark_class="quote-mark", page_offsets=[0, 4])

    assert html.count('<span class="page-break" aria-hidden="true">Page ') == 2
    assert 'Page 2</span><p><span data-start="4">two</span>' in html


@pytest.mark.django_db
def test_a_new_quotation_shows_at_once_in_the_source_reader(editor_client):
    version = SourceVersionFactory()
    editor_client.get(version.source.get_absolute_url())  # renders and caches the text
    quotation = QuotationFactory(version=version)

    response = editor_client.get(version.source.get_absolute_url())

    assert f'<mark class="quote-mark" data-start="{quotation.start}">' in response.text
    assert f'id="quotation-{quotation.pk}"' in response.text
    assert "Quotations (1)" in response.text


def long_text(paragraphs=30, words=60):
    """Paragraphs of about 400 characters, each naming its number."""
    return "\n".join(
        f"Paragraph {number}: " + " ".join(["words"] * words) for number in range(paragraphs)
    )


def test_a_long_text_is_cut_into_parts_between_paragraphs_that_cover_it_all():
    text = long_text()
    paragraphs = [(p.start, f"<p>{p.start}</p>") for p in mark_spans(text, [])]

    parts = split_into_parts(text, paragraphs, part_chars=2000)

    assert len(parts) > 3
    assert parts[0][0] == 0 and parts[-1][1] == len(text)
    for (_start, end, _html), (next_start, _end, _next) in pairwise(parts):
        assert end == next_start  # no gap and no overlap
        assert text[next_start - 1] == "\n"  # cut between paragraphs
    assert all(end - start >= 2000 for start, end, _html in parts[:-1])
    shown = {start: html for start, html in paragraphs}
    for number, (start, end, html) in enumerate(parts, start=1):
        own = "".join(piece for at, piece in paragraphs if start <= at < end)
        assert html.startswith(own)
        if number < len(parts):  # ends with the next part's opening paragraph
            assert html[len(own) :] == NEXT_PART_OPENING.format(number=number + 1, html=shown[end])
        else:
            assert html == own


@pytest.mark.django_db
def test_a_part_of_a_long_text_keeps_offsets_into_the_whole_text():
    text = long_text()
    start = text.index("Paragraph 20")
    version = SourceVersionFactory(text=text)

    part = cached_marked_part(
        version, [(start, start + 12, "")], mark_class="quote-mark", at=start, part_chars=2000
    )

    assert part.start <= start < part.end
    assert 1 < part.number < part.count
    assert f'<mark class="quote-mark" data-start="{start}">Paragraph 20</mark>' in part.html
    assert "Paragraph 0:" not in part.html
    assert part.previous_start < part.start < part.next_start == part.end


@pytest.mark.django_db
def test_the_parts_of_a_text_are_read_from_the_cache_without_its_text(
    django_assert_num_queries,
):
    text = long_text()
    version = SourceVersionFactory(text=text)
    first = cached_marked_part(version, [], mark_class="quote-mark", at=5000, part_chars=2000)
    without_text = SourceVersion.objects.without_text().get(pk=version.pk)

    with django_assert_num_queries(0):
        again = cached_marked_part(
            without_text, [], mark_class="quote-mark", at=5000, part_chars=2000
        )
        last = cached_marked_part(
            without_text, [], mark_class="quote-mark", at=len(text) + 99, part_chars=2000
        )

    assert again == first
    assert (last.number, last.end, last.next_start) == (last.count, len(text), None)


@pytest.mark.django_db
def test_a_short_text_is_one_part():
    version = SourceVersionFactory(text="One.\nTwo.")

    part = cached_marked_part(version, [], mark_class="quote-mark")

    assert (part.number, part.count, part.start, part.end) == (1, 1, 0, 9)
    assert (part.previous_start, part.next_start) == (None, None)


@pytest.mark.django_db
def test_a_part_evicted_from_the_cache_on_its_own_is_rendered_again(monkeypatch):
    cache = caches["rendered"]
    stored = {}
    set_many = cache.set_many

    def noting_keys(data, *args):
        stored.update(data)
        return set_many(data, *args)

    monkeypatch.setattr(cache, "set_many", noting_keys)
    version = SourceVersionFactory(text=long_text())
    first = cached_marked_part(version, [], mark_class="quote-mark", at=5000, part_chars=2000)
    (part_key,) = [key for key in stored if key.endswith(f":{first.number - 1}")]
    # As Redis evicts under memory pressure: the bounds left behind.
    cache.delete(part_key)

    again = cached_marked_part(
        SourceVersion.objects.without_text().get(pk=version.pk),
        [],
        mark_class="quote-mark",
        at=5000,
        part_chars=2000,
    )

    assert again == first
    assert cache.get(part_key) == str(first.html)


@pytest.mark.django_db
def test_another_file_under_a_version_id_already_rendered_is_rendered_afresh():
    # A restored backup hands ids out again: the id alone does not name a text.
    version = SourceVersionFactory(text="The text first stored under this id.")
    cached_marked_part(version, [], mark_class="quote-mark")
    other = "Another file's text under the same id."
    # Saved versions are immutable (a database trigger): the other file is built unsaved.
    restored = SourceVersion(
        pk=version.pk,
        extraction_status=version.extraction_status,
        extracted_text=other,
        text_length=len(other),
        sha256="f" * 64,
    )

    part = cached_marked_part(restored, [], mark_class="quote-mark")

    assert "Another file" in part.html
    assert "first stored" not in part.html
