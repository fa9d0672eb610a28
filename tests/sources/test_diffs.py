"""The word diff and the version diff (sources/diffs.py): pure functions, no database."""

import time

import pytest

from sources.diffs import (
    CHANGES_PER_PAGE,
    DELETE,
    EQUAL,
    GAP,
    INSERT,
    MAX_SHOWN_CHARS,
    Segment,
    paragraphs,
    tokens,
    version_diff,
    word_diff,
)


def marked(segments):
    """Segments as text with [-deleted-] and {+inserted+} marks, gaps as "…(n)"."""
    out = []
    for segment in segments:
        if segment.kind == DELETE:
            out.append(f"[-{segment.text}-]")
        elif segment.kind == INSERT:
            out.append(f"{{+{segment.text}+}}")
        elif segment.kind == GAP:
            out.append(f"…({segment.skipped})")
        else:
            out.append(segment.text)
    return "".join(out)


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        # A figure replaced: the whole number, never its digits.
        (
            "Start-up took 193 seconds.",
            "Start-up took 200 seconds.",
            "Start-up took [-193-]{+200+} seconds.",
        ),
        (
            "It reached 1,111 tokens.",
            "It reached 1,112 tokens.",
            "It reached [-1,111-]{+1,112+} tokens.",
        ),
        ("up to 2.6× higher", "up to 2.7× higher", "up to [-2.6-]{+2.7+}× higher"),
        # Words inserted, deleted, replaced.
        ("a c", "a b c", "a {+b+} c"),
        ("a b c", "a c", "a [-b-] c"),
        ("the big red dog", "the small blue dog", "the [-big red-]{+small blue+} dog"),
        ("first words", "other words", "[-first-]{+other+} words"),
        ("words at the end", "words at the start", "words at the [-end-]{+start+}"),
        # Punctuation apart from the word it clings to.
        ("Hello, world", "Hello world!", "Hello[-,-] world{+!+}"),
        ("(about 9 seconds)", "(about 9.0 seconds)", "(about [-9-]{+9.0+} seconds)"),
        ("don't stop", "do not stop", "[-don't-]{+do not+} stop"),
        # Unicode: accented letters, other scripts, typographic quotes.
        ("café naïve", "cafe naïve", "[-café-]{+cafe+} naïve"),
        ("Ελληνικά κείμενα εδώ", "Ελληνικά λόγια εδώ", "Ελληνικά [-κείμενα-]{+λόγια+} εδώ"),
        ("日本 語", "日本 人", "日本 [-語-]{+人+}"),
        ("“quoted” words", "‘quoted’ words", "[-“-]{+‘+}quoted[-”-]{+’+} words"),
        # Everything new.
        ("", "new words", "{+new words+}"),
        ("old words", "", "[-old words-]"),
    ],
)
def test_words_are_compared_whole_and_marked_deleted_or_inserted(old, new, expected):
    assert marked(word_diff(old, new).segments) == expected


def test_white_space_alone_is_no_change_and_the_new_spacing_is_shown():
    diff = word_diff("one  two\nthree", "one two three")

    assert not diff.changed
    assert diff.segments == (Segment(EQUAL, "one two three"),)
    # Each side keeps its own white space.
    assert marked(diff.old) == "one  two\nthree"


def test_each_side_marks_only_what_the_other_lacks():
    diff = word_diff("The speedup is 193 seconds.", "The speedup is 200 seconds.")

    assert marked(diff.old) == "The speedup is [-193-] seconds."
    assert marked(diff.new) == "The speedup is {+200+} seconds."
    assert (diff.words_deleted, diff.words_inserted, diff.changes) == (1, 1, 1)


def test_the_space_before_a_change_stays_outside_its_marks():
    diff = word_diff("one two three four", "one three four five")

    assert marked(diff.segments) == "one [-two-] three four {+five+}"
    assert diff.changes == 2


def test_identical_texts_have_no_change():
    diff = word_diff("Same words.", "Same words.")

    assert not diff.changed
    assert (diff.words_deleted, diff.words_inserted) == (0, 0)


def test_punctuation_is_not_counted_as_words():
    diff = word_diff("Yes, really.", "Yes; really!")

    assert diff.changes == 2
    assert (diff.words_deleted, diff.words_inserted) == (0, 0)


def test_tokens_keep_numbers_and_words_whole_and_split_punctuation_off():
    pairs, trailing = tokens(" (1,111 tokens/s), B200's start-up… ")

    assert [token for _space, token in pairs] == [
        "(",
        "1,111",
        "tokens",
        "/",
        "s",
        ")",
        ",",
        "B200's",
        "start-up",
        "…",
    ]
    assert pairs[0][0] == " " and trailing == " "


def test_an_excerpt_keeps_the_changes_with_some_words_around_them():
    words = [f"w{n}" for n in range(100)]
    old = " ".join(words)
    new = " ".join("X" if word == "w50" else word for word in words)

    excerpt = word_diff(old, new).excerpt(context=3)

    assert marked(excerpt) == "…(47) w47 w48 w49 [-w50-]{+X+} w51 w52 w53 …(46)"
    # Nothing is lost: the gaps count every word left out.
    assert sum(segment.skipped for segment in excerpt) + 7 == 100


def test_a_short_passage_is_its_own_excerpt():
    diff = word_diff("a b c d", "a b x d")

    assert diff.excerpt() == diff.segments


def test_paragraphs_are_the_non_blank_lines_with_their_offsets():
    text = "First line\n\n  \nSecond line\nThird"

    found = paragraphs(text)

    assert [(p.start, p.end, p.text) for p in found] == [
        (0, 10, "First line"),
        (15, 26, "Second line"),
        (27, 32, "Third"),
    ]
    assert all(text[p.start : p.end] == p.text for p in found)


def test_identical_versions_have_no_changes():
    diff = version_diff("One.\nTwo.", "One.\n\nTwo.  ")

    assert diff.identical
    assert diff.rows == []


def test_a_changed_paragraph_is_compared_word_by_word_between_unchanged_stretches():
    old = "\n".join(f"Paragraph {n} stays." for n in range(10)) + "\nThe figure was 193.\nEnd."
    new = "\n".join(f"Paragraph {n} stays." for n in range(10)) + "\nThe figure was 200.\nEnd."

    diff = version_diff(old, new)

    assert diff.total_changes == 1
    before, change, after = diff.rows
    assert (before.kind, before.count, before.folded) == ("unchanged", 10, True)
    assert change.kind == "change"
    assert marked(change.diff.old) == "The figure was [-193-]."
    assert marked(change.diff.new) == "The figure was {+200+}."
    assert old[change.old_start : change.old_end] == "The figure was 193."
    assert new[change.new_start : change.new_end] == "The figure was 200."
    assert (after.count, after.folded) == (1, False)


def test_paragraphs_inserted_and_deleted_are_changes_with_one_empty_side():
    diff = version_diff("A.\nB.\nC.", "A.\nC.\nD.")

    changes = [row for row in diff.rows if row.kind == "change"]
    assert [(len(c.old), len(c.new)) for c in changes] == [(1, 0), (0, 1)]
    deleted, inserted = changes
    assert marked(deleted.diff.old) == "[-B.-]"
    # Where the deleted paragraph was, in the newer text: a point.
    assert deleted.new_start == deleted.new_end == 3
    assert marked(inserted.diff.new) == "{+D.+}"
    assert inserted.old_start == inserted.old_end == 8


def test_a_long_unchanged_stretch_shows_its_ends_and_says_how_much_is_left_out():
    same = "\n".join(f"Line {n}." for n in range(500))

    diff = version_diff("Old start.\n" + same, "New start.\n" + same)

    _change, stretch = diff.rows
    assert stretch.count == 500
    assert len(stretch.head) == len(stretch.tail) == 20
    assert stretch.left_out == 460
    assert stretch.tail[-1].text == "Line 499."


def test_changes_come_a_page_at_a_time():
    old = "\n".join(f"Paragraph {n}: same." for n in range(300))
    new = "\n".join(f"Paragraph {n}: {'changed' if n % 2 else 'same'}." for n in range(300))

    first = version_diff(old, new)
    last = version_diff(old, new, page=3)
    past_the_end = version_diff(old, new, page=99)

    assert first.total_changes == 150
    assert [row.number for row in first.rows if row.kind == "change"] == list(
        range(1, CHANGES_PER_PAGE + 1)
    )
    assert (last.first_change, last.last_change) == (101, 150)
    assert past_the_end.first_change == 101


def test_a_change_too_big_to_compare_word_by_word_is_shown_as_its_two_texts_and_says_so():
    old = "\n".join(f"Old paragraph {n} " + "lorem " * 40 for n in range(200))
    new = "\n".join(f"New paragraph {n} " + "ipsum " * 40 for n in range(200))

    (change,) = version_diff(old, new).rows

    assert change.diff is None
    assert len(change.old_text) == MAX_SHOWN_CHARS
    assert change.old_left_out == len(old) - MAX_SHOWN_CHARS


def test_megabytes_of_text_are_compared_in_well_under_seconds():
    paragraphs_ = [
        f"Paragraph {n} of the annual report says {n * 7} things." for n in range(60_000)
    ]
    old = "\n".join(paragraphs_)
    for n in range(0, 60_000, 997):
        paragraphs_[n] = paragraphs_[n].replace("says", "claims")
    new = "\n".join(paragraphs_)
    assert len(old) > 3_000_000

    started = time.perf_counter()
    diff = version_diff(old, new)
    elapsed = time.perf_counter() - started

    assert diff.total_changes == 61
    assert elapsed < 5
