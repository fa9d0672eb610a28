"""The text-anchoring core: pure functions, no database."""

import itertools
import re
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sources.anchoring import (
    CHANGED,
    CONTEXT_LENGTH,
    MOVED,
    ORPHANED,
    UNCHANGED,
    Reanchored,
    closest_passages,
    find_occurrences,
    find_words,
    index_to_utf16,
    reanchor,
    utf16_to_index,
)

PARAGRAPHS = [
    "The committee met on Tuesday to review the annual budget of the city council.",
    "Its chair, Ms Okafor, said that spending on public transport would rise by 4% next "
    "year, mostly for new buses on the northern routes.",
    "Critics answered that the figures left out the cost of repairing the old depot.",
    "A spokesperson for the mayor declined to comment on the depot before the audit.",
    "The final vote is expected in March, after a public consultation of six weeks.",
]
TEXT = "\n\n".join(PARAGRAPHS)
QUOTE = "spending on public transport would rise by 4% next year"


def quotation(text, exact, occurrence=0):
    """``(start, end, exact, prefix, suffix)`` of the given occurrence of ``exact``."""
    start = find_occurrences(text, exact)[occurrence]
    end = start + len(exact)
    before = text[max(0, start - CONTEXT_LENGTH) : start]
    return start, end, exact, before, text[end : end + CONTEXT_LENGTH]


def carry(old_text, new_text, exact, occurrence=0):
    return reanchor(old_text, new_text, *quotation(old_text, exact, occurrence))


def test_the_module_imports_without_django():
    # It runs in scripts and workers as plain Python: no settings, no app registry.
    check = "import sys, sources.anchoring; sys.exit('django' in sys.modules)"
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", check], cwd=root).returncode == 0


# --------------------------------------------------------------------------------------
# Exact search
# --------------------------------------------------------------------------------------


def test_find_occurrences_includes_overlapping_occurrences():
    assert find_occurrences("aaaa", "aa") == [0, 1, 2]
    assert find_occurrences("abc", "d") == []
    assert find_occurrences("abc", "") == []


# --------------------------------------------------------------------------------------
# Re-anchoring: each status
# --------------------------------------------------------------------------------------


def test_an_identical_text_leaves_the_quotation_unchanged():
    start, end, *_ = quotation(TEXT, QUOTE)
    assert carry(TEXT, TEXT, QUOTE) == Reanchored(UNCHANGED, start, end, QUOTE)


def test_an_edit_after_the_quotation_leaves_it_unchanged():
    new_text = TEXT.replace("in March", "in April")
    start, end, *_ = quotation(TEXT, QUOTE)
    assert carry(TEXT, new_text, QUOTE) == Reanchored(UNCHANGED, start, end, QUOTE)


def test_text_inserted_before_the_quotation_moves_it_by_that_much():
    new_text = "Updated on 3 May. " + TEXT
    start, end, *_ = quotation(TEXT, QUOTE)
    assert carry(TEXT, new_text, QUOTE) == Reanchored(MOVED, start + 18, end + 18, QUOTE)


@pytest.mark.parametrize(
    "rewrapped",
    [
        "spending on public\ntransport would rise by 4%\nnext year",
        "spending on  public transport would rise by 4% next\n\nyear",
        # The same length: the words at the same offsets, the white space not the same.
        "spending on public\ttransport would rise by 4% next year",
    ],
)
def test_the_same_words_wrapped_anew_are_moved_not_changed(rewrapped):
    new_text = TEXT.replace(QUOTE, rewrapped)

    result = carry(TEXT, new_text, QUOTE)

    assert result.status == MOVED
    assert result.exact == rewrapped
    assert new_text[result.start : result.end] == rewrapped


def test_rewrapped_text_with_a_word_changed_is_still_changed():
    new_text = TEXT.replace(QUOTE, "spending on public\ntransport would rise by 5%\nnext year")

    assert carry(TEXT, new_text, QUOTE).status == CHANGED


def test_an_edit_inside_the_quote_gives_changed_with_the_new_wording():
    new_text = TEXT.replace("would rise by 4%", "would rise by 5%")
    result = carry(TEXT, new_text, QUOTE)
    assert result.status == CHANGED
    assert result.exact == "spending on public transport would rise by 5% next year"
    assert new_text[result.start : result.end] == result.exact


def test_a_changed_word_at_the_start_of_the_quote_stays_inside_it():
    new_text = TEXT.replace("spending on public", "expenditure on public")
    result = carry(TEXT, new_text, QUOTE)
    assert result.status == CHANGED
    assert result.exact == "expenditure on public transport would rise by 4% next year"


def test_a_deleted_quote_is_orphaned():
    new_text = TEXT.replace(QUOTE, "")
    assert carry(TEXT, new_text, QUOTE) == Reanchored(ORPHANED)


def test_a_deleted_paragraph_is_orphaned():
    new_text = "\n\n".join(p for p in PARAGRAPHS if QUOTE not in p)
    assert carry(TEXT, new_text, QUOTE).status == ORPHANED


def test_a_half_deleted_quote_is_orphaned_not_changed():
    new_text = TEXT.replace("public transport would rise by 4% next year", "it")
    assert carry(TEXT, new_text, QUOTE).status == ORPHANED


def test_a_rewritten_passage_is_orphaned():
    new_text = TEXT.replace(QUOTE, "the depot would be sold to a developer before winter")
    assert carry(TEXT, new_text, QUOTE).status == ORPHANED


# --------------------------------------------------------------------------------------
# Re-anchoring: text edited in place is found and reported changed (issue 36)
# --------------------------------------------------------------------------------------

SEED_ARTICLE = (
    Path(__file__).resolve().parents[2] / "claims" / "seed" / "together-compiler-article.txt"
).read_text(encoding="utf-8")
CRITICS = PARAGRAPHS[2]


def test_a_changed_figure_is_changed_while_the_next_paragraph_moved():
    # The case from the product: "467 seconds" became "about 460 seconds" while the
    # paragraph after it moved to the top. It used to come out orphaned.
    lines = SEED_ARTICLE.split("\n")
    at = next(i for i, line in enumerate(lines) if "467 seconds in total" in line)
    edited = lines[:]
    edited[at] = lines[at].replace("467 seconds in total", "about 460 seconds in total")
    edited.insert(1, edited.pop(at + 1))
    new_text = "\n".join(edited)

    result = carry(SEED_ARTICLE, new_text, "467 seconds in total")

    assert result.status == CHANGED
    assert result.exact == "about 460 seconds in total"
    assert new_text[result.start : result.end] == result.exact
    sentence = carry(SEED_ARTICLE, new_text, "193 for autotuning and 10 for API readiness — 467")
    assert sentence.status == CHANGED
    assert sentence.exact == "193 for autotuning and 10 for API readiness — about 460"


def test_a_clause_appended_to_the_quoted_sentence_is_changed_and_inside():
    appended = CRITICS[:-1] + ", which the council had promised to sell by the spring."
    result = carry(TEXT, TEXT.replace(CRITICS, appended), CRITICS)
    assert result.status == CHANGED
    assert result.exact == appended


def test_a_clause_inserted_in_the_quoted_sentence_is_changed():
    inserted = CRITICS.replace(
        "the figures left", "the figures, published on Monday by the treasurer's office, left"
    )
    result = carry(TEXT, TEXT.replace(CRITICS, inserted), CRITICS)
    assert result.status == CHANGED
    assert result.exact == inserted


def test_lines_wrapped_anew_around_an_edit_give_changed_with_the_new_wording():
    # A re-exported document: every paragraph broken into lines at other places, and
    # the quoted figure changed.
    old_text = "\n\n".join(textwrap.fill(p, 60) for p in PARAGRAPHS)
    edited = [p.replace("by 4%", "by 4.5%") for p in PARAGRAPHS]
    new_text = "\n\n".join(textwrap.fill(p, 38) for p in edited)
    exact = old_text[old_text.index("spending") : old_text.index("next year") + 9]

    result = carry(old_text, new_text, exact)

    assert result.status == CHANGED
    assert result.exact.split() == QUOTE.replace("4%", "4.5%").split()


def test_lines_wrapped_anew_alone_move_the_quote():
    old_text = "\n\n".join(textwrap.fill(p, 60) for p in PARAGRAPHS)
    new_text = "\n\n".join(textwrap.fill(p, 38) for p in PARAGRAPHS)
    exact = old_text[old_text.index("spending") : old_text.index("next year") + 9]
    result = carry(old_text, new_text, exact)
    assert result.status == MOVED
    assert result.exact.split() == QUOTE.split()


def test_an_edit_in_place_is_changed_while_the_neighbours_move_and_change():
    new_paragraphs = [
        PARAGRAPHS[0].replace("on Tuesday", "on Wednesday evening"),
        PARAGRAPHS[1].replace("would rise by 4% next year", "would rise by about 5% in 2027"),
        PARAGRAPHS[4],
        PARAGRAPHS[3].replace("declined to comment", "would not comment"),
        PARAGRAPHS[2],
    ]
    new_text = "\n\n".join(new_paragraphs)
    result = carry(TEXT, new_text, QUOTE)
    assert result.status == CHANGED
    assert result.exact == "spending on public transport would rise by about 5% in 2027"


def test_a_gone_passage_is_orphaned_though_a_lookalike_stays_elsewhere():
    # The quoted sentence is deleted, its paragraph's neighbours stay, and a sentence
    # much like it (other figure) was in the text all along: that one is not ours.
    lookalike = (
        "By contrast, spending on public transport would rise by 2% next year in the suburbs."
    )
    old_text = TEXT + "\n\n" + lookalike
    new_text = old_text.replace(PARAGRAPHS[1], "Its chair, Ms Okafor, gave no figures.")
    assert carry(old_text, new_text, QUOTE) == Reanchored(ORPHANED)
    # ... and when that sentence took the quotation's place (gone from the end).
    replaced = TEXT.replace(PARAGRAPHS[1], lookalike)
    assert carry(old_text, replaced, QUOTE) == Reanchored(ORPHANED)


# --------------------------------------------------------------------------------------
# Re-anchoring: repeats and lookalikes
# --------------------------------------------------------------------------------------


def test_a_repeated_quote_is_placed_by_its_prefix_and_suffix():
    ann = "Ann said that the budget will rise; Ann was wrong."
    bob = "Bob said that the budget will rise; Bob was right."
    # The sentences swap places: the old offset alone would pick Ann's words.
    result = carry(ann + " " + bob, bob + " " + ann, "the budget will rise", occurrence=1)
    assert result == Reanchored(MOVED, 14, 34, "the budget will rise")


def test_a_deleted_quote_is_not_pinned_to_the_same_words_elsewhere():
    old_text = TEXT + "\n\nIn other news, spending on public transport would rise by 4% next year."
    new_text = old_text.replace(PARAGRAPHS[1] + "\n\n", "")
    assert carry(old_text, new_text, QUOTE, occurrence=0).status == ORPHANED


def test_a_lookalike_paragraph_elsewhere_is_not_taken_when_the_original_is_deleted():
    lookalike = (
        "Its chair, Ms Okafor, said that spending on public transport would rise by 3% next "
        "year, mostly for new trams on the northern routes."
    )
    old_text = TEXT + "\n\nCorrection of an earlier version:\n\n" + lookalike
    new_text = old_text.replace(PARAGRAPHS[1] + "\n\n", "")
    assert lookalike in new_text and QUOTE not in new_text
    assert carry(old_text, new_text, QUOTE).status == ORPHANED


def test_a_surviving_repeat_is_still_found_when_another_copy_is_deleted():
    old_text = "One: the budget will rise. Two: the budget will rise. Three: the end."
    new_text = "Two: the budget will rise. Three: the end."
    result = carry(old_text, new_text, "the budget will rise", occurrence=1)
    assert result == Reanchored(MOVED, 5, 25, "the budget will rise")


# --------------------------------------------------------------------------------------
# Re-anchoring: far moves, edges, Unicode
# --------------------------------------------------------------------------------------


def filler(count):
    return " ".join(f"Sentence {i} is only here to pad the document out." for i in range(count))


def test_a_paragraph_moved_far_away_carries_its_quote():
    old_text = PARAGRAPHS[1] + "\n\n" + filler(2000)
    new_text = filler(2000) + "\n\n" + PARAGRAPHS[1]
    result = carry(old_text, new_text, QUOTE)
    assert result.status == MOVED
    assert new_text[result.start : result.end] == QUOTE


def test_a_paragraph_moved_far_away_and_edited_is_changed():
    old_text = PARAGRAPHS[1] + "\n\n" + filler(2000)
    new_text = filler(2000) + "\n\n" + PARAGRAPHS[1].replace("by 4%", "by 4.5%")
    result = carry(old_text, new_text, QUOTE)
    assert result.status == CHANGED
    assert result.exact == QUOTE.replace("4%", "4.5%")


def test_quotes_at_the_edges_of_the_text_have_short_contexts():
    first = "The committee met"
    last = "after a public consultation of six weeks."
    new_text = TEXT.replace("The committee met", "The committee meets").replace(
        "six weeks.", "six long weeks."
    )
    start_quote = quotation(TEXT, first)
    assert start_quote[3] == ""
    end_quote = quotation(TEXT, last)
    assert end_quote[4] == ""

    assert reanchor(TEXT, new_text, *start_quote) == Reanchored(
        CHANGED, 0, 19, "The committee meets"
    )
    result = reanchor(TEXT, new_text, *end_quote)
    assert result.status == CHANGED
    assert result.exact == "after a public consultation of six long weeks."
    assert result.end == len(new_text)
    assert reanchor(TEXT, "Foreword. " + TEXT, *start_quote) == Reanchored(MOVED, 10, 27, first)


def test_a_quote_that_is_the_whole_text():
    assert reanchor("abc def", "abc def", 0, 7, "abc def", "", "") == Reanchored(
        UNCHANGED, 0, 7, "abc def"
    )
    assert reanchor("abc def", "xyz", 0, 7, "abc def", "", "").status == ORPHANED


def test_offsets_count_code_points_with_emoji_and_combining_accents():
    # "n\u0308" has no precomposed form, so NFC keeps the combining diaeresis.
    old_text = "Le maire 😀 a dit : « la ville ne s’endettera pas » ; Spin\u0308al Tap y croit."
    assert unicodedata.is_normalized("NFC", old_text)
    new_text = "🎉🎉 " + old_text.replace("ne s’endettera pas", "ne s’endettera jamais")
    result = carry(old_text, new_text, "la ville ne s’endettera pas")
    assert result.status == CHANGED
    assert result.exact == "la ville ne s’endettera jamais"
    assert new_text[result.start : result.end] == result.exact
    quote = "Spin\u0308al Tap y croit"
    start = new_text.index("Spin")
    # 19 code points: the combining mark is one of them.
    assert carry(old_text, new_text, quote) == Reanchored(MOVED, start, start + 19, quote)


def test_an_inconsistent_quotation_is_refused():
    with pytest.raises(ValueError):
        reanchor("abc", "abc", 0, 2, "xy", "", "c")
    with pytest.raises(ValueError):
        reanchor("abc", "abc", 1, 1, "", "a", "bc")


# --------------------------------------------------------------------------------------
# Quote finder
# --------------------------------------------------------------------------------------


def spelled(diff, kept):
    return "".join(segment for op, segment in diff if op in ("equal", kept))


def test_closest_passages_finds_a_misremembered_quote_with_its_diff():
    pasted = "spending on public transports would rise by four percent next year"
    passages = closest_passages(TEXT, pasted)
    best = passages[0]
    assert best.exact == TEXT[best.start : best.end]
    assert best.exact == QUOTE
    assert spelled(best.diff, "delete") == pasted
    assert spelled(best.diff, "insert") == best.exact
    assert ("delete", "four percent") in best.diff and ("insert", "4%") in best.diff


def test_closest_passages_are_sorted_best_first_and_do_not_overlap():
    pasted = "the cost of repairing the old depot"
    passages = closest_passages(TEXT.replace("old depot", "old dpot"), pasted, limit=3)
    assert passages[0].distance == 1
    assert [p.distance for p in passages] == sorted(p.distance for p in passages)
    for a, b in itertools.pairwise(passages):
        assert a.end <= b.start or b.end <= a.start


def test_closest_passages_puts_exact_occurrences_first():
    passages = closest_passages(TEXT, "the depot", limit=2)
    assert passages[0].distance == 0
    assert passages[0].diff == [("equal", "the depot")]


def test_closest_passages_respects_max_distance():
    assert closest_passages(TEXT, "zzzz qqqq xxxx", max_distance=2) == []
    assert closest_passages(TEXT, "") == []


# --------------------------------------------------------------------------------------
# Browser offsets
# --------------------------------------------------------------------------------------


def test_utf16_offsets_count_emoji_twice_and_accents_once():
    text = "a😀b n\u0308!"
    assert [index_to_utf16(text, i) for i in range(len(text) + 1)] == [0, 1, 3, 4, 5, 6, 7, 8]
    assert utf16_to_index(text, 3) == 2
    assert utf16_to_index(text, 8) == len(text)
    for index in range(len(text) + 1):
        assert utf16_to_index(text, index_to_utf16(text, index)) == index


def test_a_utf16_offset_inside_a_surrogate_pair_or_beyond_the_text_is_refused():
    text = "a😀b"
    with pytest.raises(ValueError):
        utf16_to_index(text, 2)
    with pytest.raises(ValueError):
        utf16_to_index(text, 5)
    with pytest.raises(ValueError):
        utf16_to_index(text, -1)
    with pytest.raises(ValueError):
        index_to_utf16(text, 4)


# --------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------

# A small alphabet makes repeats (and so ambiguity) common; emoji and an accent keep the
# code-point arithmetic honest.
ALPHABET = "abcde fgh\n😀é"
texts = st.text(alphabet=ALPHABET, min_size=1, max_size=160)
PROPERTY = settings(max_examples=200, deadline=None)


@st.composite
def spans(draw, text_strategy=texts):
    text = draw(text_strategy)
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return text, start, end


def stored(text, start, end):
    before = text[max(0, start - CONTEXT_LENGTH) : start]
    return start, end, text[start:end], before, text[end : end + CONTEXT_LENGTH]


@st.composite
def edited(draw, text):
    """``text`` with a few random deletions and insertions."""
    for _ in range(draw(st.integers(0, 4))):
        position = draw(st.integers(0, len(text)))
        deleted = draw(st.integers(0, 10))
        inserted = draw(st.text(alphabet=ALPHABET, max_size=12))
        text = text[:position] + inserted + text[position + deleted :]
    return text


@PROPERTY
@given(st.data(), spans())
def test_every_reanchored_span_holds_its_exact_text(data, span):
    old_text, start, end = span
    new_text = data.draw(edited(old_text))
    result = reanchor(old_text, new_text, *stored(old_text, start, end))
    if result.status == ORPHANED:
        assert (result.start, result.end, result.exact) == (None, None, None)
    else:
        assert new_text[result.start : result.end] == result.exact
        # The same words with other white space between them are moved, not changed.
        assert (result.status == CHANGED) == (result.exact.split() != old_text[start:end].split())
        assert result.status != UNCHANGED or result.start == start


@PROPERTY
@given(spans())
def test_reanchoring_onto_the_same_text_is_unchanged(span):
    text, start, end = span
    assert reanchor(text, text, *stored(text, start, end)) == Reanchored(
        UNCHANGED, start, end, text[start:end]
    )


@PROPERTY
@given(spans(), st.data())
def test_inserting_text_before_the_span_shifts_it(span, data):
    old_text, start, end = span
    exact = old_text[start:end]
    # Unique words, and an insertion in other letters, so that the right answer is unique.
    assume(len(find_occurrences(old_text, exact)) == 1)
    position = data.draw(st.integers(0, start))
    inserted = data.draw(st.text(alphabet="XYZ12", min_size=1, max_size=40))
    new_text = old_text[:position] + inserted + old_text[position:]
    result = reanchor(old_text, new_text, *stored(old_text, start, end))
    assert result == Reanchored(MOVED, start + len(inserted), end + len(inserted), exact)


@PROPERTY
@given(texts, st.text(alphabet=ALPHABET, min_size=1, max_size=30))
def test_closest_passages_diffs_spell_both_strings(text, passage):
    for found in closest_passages(text, passage, limit=3, max_distance=len(passage)):
        assert found.exact == text[found.start : found.end]
        assert spelled(found.diff, "delete") == passage
        assert spelled(found.diff, "insert") == found.exact


def test_words_typed_with_spaces_find_a_line_the_text_breaks():
    text = "The benchmark covers four\nfrontier models and four  frontier labs."

    assert [text[s:e] for s, e in find_words(text, " four frontier ")] == [
        "four\nfrontier",
        "four  frontier",
    ]
    assert find_words(text, "four frontier", limit=1) == [(21, 34)]
    assert find_words(text, "   ") == []
    assert find_words(text, "fou.") == []  # typed characters are literal, not a pattern


def test_the_closest_passage_offered_to_quote_is_whole_words_without_edge_spaces():
    text = "Intro. The median speedup was 1.4 times on the suite. Outro."

    (best,) = closest_passages(text, "the median speed-up was 1.4x", limit=1)

    assert best.exact == text[best.start : best.end]
    assert not best.exact[0].isspace() and not best.exact[-1].isspace()
    assert best.exact.startswith("The median speedup was 1.4")
    assert text[best.end - 1 : best.end + 1] != "ti"  # never half a word


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="ab \n\t", max_size=60),
    words=st.text(alphabet="ab \n", max_size=8),
)
def test_find_words_finds_what_a_pattern_of_the_words_finds(text, words):
    # The pattern is the plain statement of what find_words does; it backtracks, find_words
    # does not.
    tokens = words.split()
    pattern = re.compile(r"\s+".join(re.escape(token) for token in tokens))
    expected = [match.span() for match in pattern.finditer(text)] if tokens else []

    assert find_words(text, words) == expected


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet="abAB \n\t", max_size=60),
    words=st.text(alphabet="aAb \n", max_size=8),
)
def test_find_words_as_a_person_types_them_finds_what_a_pattern_of_them_finds(text, words):
    # Capitals aside, and from the start of a word of the text.
    tokens = words.split()
    pattern = re.compile(
        r"(?<![a-zA-Z])" + r"\s+".join(re.escape(token) for token in tokens), re.IGNORECASE
    )
    expected = [match.span() for match in pattern.finditer(text)] if tokens else []

    assert find_words(text, words, ignore_case=True, from_word_start=True) == expected


def test_words_found_capitals_aside_keep_the_texts_own_offsets():
    text = "Straße STRASSE İstanbul, then Nobody needs to invent it."

    (found,) = find_words(text, "nobody NEEDS", ignore_case=True)

    # "İ" lowers to two characters: it stays as it is, and the offsets after it hold.
    assert text[found[0] : found[1]] == "Nobody needs"
    assert [text[s:e] for s, e in find_words(text, "strasse", ignore_case=True)] == ["STRASSE"]
    assert find_words("Data, a theory", "a", from_word_start=True) == [(6, 7)]


def test_a_closest_passage_never_widens_beyond_the_distance_allowed():
    text = "Before. The internationalisation programme began. After."

    for found in closest_passages(text, "natoin"):
        assert found.distance <= len("natoin") // 2
        assert found.exact == text[found.start : found.end]
