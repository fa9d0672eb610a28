from sources.highlighting import mark_spans


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
