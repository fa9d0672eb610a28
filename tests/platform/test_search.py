import hashlib
import importlib
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from factcheck.search import (
    DOCUMENT_INDEX,
    SNIPPET_WORDS,
    Passage,
    _headlines,
    bulk_indexing,
    chunk_text,
    replace_entries,
    search,
)
from factcheck.views import QUERY_CHARS
from sources.highlighting import part_starts
from sources.services import source_version_create_from_text, source_version_upload
from tests.factories import (
    ReviewAssignmentFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
)
from tests.sample_files import make_text_pdf

pytestmark = pytest.mark.django_db


def test_a_source_text_is_found_by_its_words_with_a_highlighted_snippet():
    version = SourceVersionFactory(
        text="The persistent engine keeps the model loaded between runs."
    )

    hits = search("persistent engine")[0:10]

    assert [hit.object_id for hit in hits] == [version.source_id]
    assert "<mark>persistent</mark>" in hits[0].snippet
    assert hits[0].url == f"{version.source.get_absolute_url()}?at=4#at-4-14"


def test_a_source_hit_links_to_its_first_match_in_the_text_not_to_its_passage():
    text = "Opening words. " * 200 + "Then the Throughput figure, and throughput again."
    version = SourceVersionFactory(text=text)
    match = text.index("Throughput")

    (hit,) = search("throughput")[0:10]

    assert hit.url == (
        f"{version.source.get_absolute_url()}?at={match}#at-{match}-{match + len('Throughput')}"
    )


def test_a_source_hit_links_to_the_occurrence_its_snippet_shows():
    text = (
        "Unemployment is discussed at length in this report. "
        + "It covers trade, housing, prices and wages across the year. " * 12
        + "In December unemployment fell sharply in Zanzibar, the report says."
    )
    version = SourceVersionFactory(text=text)
    shown = text.index("unemployment fell")

    (hit,) = search("unemployment zanzibar")[0:10]

    assert "<mark>unemployment</mark> fell" in hit.snippet
    assert hit.url == (
        f"{version.source.get_absolute_url()}?at={shown}#at-{shown}-{shown + len('unemployment')}"
    )


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        # The words around the match tell which "rate" is shown, up to the cut.
        ("…the new \x02rate\x03 was 5 …", "new rate was"),
        ("…old \x02rate\x03 stays", "old rate stays"),
        # Fragments cut mid-word at either end still find theirs.
        ("…e old \x02rate\x03 sta…", "old rate stays"),
        # A match whose words are nowhere: the first occurrence.
        ("…other words \x02rate\x03 here…", "The rate rose"),
    ],
)
def test_the_occurrence_a_snippet_shows_is_found_by_its_neighbouring_words(snippet, expected):
    from factcheck.search import FIRST_MARKED, _occurrence_shown

    body = "The rate rose. Then the new rate was 5 percent, and the old rate stays."

    found = _occurrence_shown(body, snippet, FIRST_MARKED.search(snippet))

    assert found.start() == body.index(expected) + expected.index("rate")


def test_a_match_found_in_a_later_passage_is_counted_from_that_passage_start():
    source = SourceFactory(title="Report")
    replace_entries(
        kind="source",
        object_id=source.pk,
        passages=[Passage("Report", "An aside, then the zanzibar clause.", "/sources/9/?at=5000")],
    )

    (hit,) = search("zanzibar")[0:10]

    start = 5000 + len("An aside, then the ")
    assert hit.url == f"/sources/9/?at={start}#at-{start}-{start + len('zanzibar')}"


def test_a_claim_hit_keeps_its_own_link():
    replace_entries(
        kind="claim",
        object_id=4,
        passages=[Passage("Claim 4", "zanzibar wording", "/claims/4/")],
    )

    (hit,) = search("zanzibar")[0:10]

    assert hit.url == "/claims/4/"


def test_seeded_claims_are_found(first_case):
    results = search("Trainium2")

    assert results.count() >= 2
    kinds = {hit.kind for hit in results[0:50]}
    assert kinds == {"claim", "source"}


def test_every_word_must_match():
    SourceVersionFactory(text="Tokens per second on a B200.")

    assert search("tokens B200").count() == 1
    assert search("tokens H100").count() == 0


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("4.2 billion", {"decimal"}),
        ("4.2", {"decimal"}),
    ],
)
def test_a_decimal_number_is_searched_as_one_term_not_as_its_digits_anywhere(query, found):
    versions = {
        "apart": SourceVersionFactory(text="The 4 agencies together spent 2 billion on advice."),
        "decimal": SourceVersionFactory(text="The agencies spent 4.2 billion on advice."),
    }
    names = {version.source_id: name for name, version in versions.items()}

    hits = search(query)[0:10]

    assert {names[hit.object_id] for hit in hits} == found


def test_a_decimal_in_the_query_is_marked_and_linked_where_it_stands():
    text = "The agencies spent 4.2 billion on advice, the report says."
    version = SourceVersionFactory(text=text)
    at = text.index("4.2")

    (hit,) = search("4.2 billion")[0:10]

    assert "<mark>4.2</mark>" in hit.snippet
    assert hit.url == f"{version.source.get_absolute_url()}?at={at}#at-{at}-{at + 3}"


@pytest.mark.parametrize("query", ["2.6x", "2.6x headline", "1,111x"])
def test_a_figure_with_its_unit_written_on_is_found_as_the_text_writes_it(query):
    SourceVersionFactory(text="A 2.6 percent rise, 6x faster, 111 times.")
    wanted = SourceVersionFactory(text="The 2.6x headline; 1,111x the tokens.")

    hits = search(query)[0:10]

    assert [hit.object_id for hit in hits] == [wanted.source_id]
    assert "<mark>" in hits[0].snippet


def test_a_number_with_a_thousands_separator_is_one_term_on_sqlite():
    if connection.vendor != "sqlite":
        pytest.skip("FTS5 reads a quoted term as a phrase; PostgreSQL's parser splits 2,000")
    SourceVersionFactory(text="Some 5,000 readers and 2 editors wrote 900 notes.")
    wanted = SourceVersionFactory(text="Some 2,000 readers wrote in.")

    assert [hit.object_id for hit in search("2,000")[0:10]] == [wanted.source_id]


def test_query_syntax_in_the_users_words_is_harmless():
    SourceVersionFactory(text="A plain sentence.")

    for query in ['"', "NEAR(", "a AND OR", "*", "title:plain", "') OR 1=1 --"]:
        assert search(query)[0:5] is not None


def test_snippets_escape_the_stored_text():
    replace_entries(
        kind="source",
        object_id=1,
        passages=[
            Passage(
                title="x",
                body='<script>alert(1)</script> payload <img src=x onerror="alert(2)"> a & b',
                url="/",
            )
        ],
    )

    snippet = search("payload")[0:1][0].snippet

    # The database may drop markup from a headline or keep it as text; either way
    # the only tags that reach the page are our own highlights.
    assert set(re.findall(r"<[^>]*>", snippet)) <= {"<mark>", "</mark>"}
    assert "<mark>payload</mark>" in snippet


def test_replacing_entries_removes_the_old_text():
    replace_entries(kind="claim", object_id=7, passages=[Passage("t", "oldword", "/")])
    replace_entries(kind="claim", object_id=7, passages=[Passage("t", "newword", "/")])

    assert search("oldword").count() == 0
    assert search("newword").count() == 1


def pending_index_pages():
    """Pages moved out of the search index's pending list (PostgreSQL), emptying it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT gin_clean_pending_list(%s::regclass)", [DOCUMENT_INDEX])
        return cursor.fetchone()[0]


def index_options():
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [DOCUMENT_INDEX])
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's GIN index")
def test_new_entries_go_straight_into_the_index_so_searches_never_read_a_pending_list():
    pending_index_pages()
    passages = [Passage("t", f"passage {n} about turbines", "/") for n in range(200)]

    replace_entries(kind="source", object_id=11, passages=passages)

    assert pending_index_pages() == 0
    assert search("turbines").count() == 200


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's GIN index")
def test_bulk_indexing_gathers_entries_and_leaves_the_index_without_a_pending_list():
    pending_index_pages()
    passages = [Passage("t", f"passage {n} about turbines", "/") for n in range(200)]

    with bulk_indexing():
        replace_entries(kind="source", object_id=11, passages=passages)
        assert pending_index_pages() > 0  # the entries went to the pending list
        replace_entries(kind="source", object_id=12, passages=passages)

    assert pending_index_pages() == 0
    assert search("turbines").count() == 400
    replace_entries(kind="source", object_id=13, passages=passages)
    assert pending_index_pages() == 0  # everyday writes go straight into the tree again
    assert index_options() == ["fastupdate=off"]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's GIN index")
def test_bulk_indexing_gives_the_index_back_the_setting_it_had():
    with connection.cursor() as cursor:
        cursor.execute(f"ALTER INDEX {DOCUMENT_INDEX} RESET (fastupdate)")  # as before 0007

    with bulk_indexing():
        assert index_options() == ["fastupdate=on"]

    assert index_options() is None


only_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's text search"
)


def chunks_moved_out_of_search_rows():
    """How many chunks of values the search table keeps out of line, in its TOAST table."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltoastrelid::regclass::text FROM pg_class WHERE oid = %s::regclass",
            ["factcheck_searchentry"],
        )
        (toast_table,) = cursor.fetchone()
        cursor.execute(f"SELECT count(*) FROM {toast_table}")  # a name from the catalogue
        return cursor.fetchone()[0]


@only_postgresql
def test_a_full_length_passage_stays_whole_in_its_row_so_ranking_reads_one_block():
    words = [hashlib.sha256(str(n).encode()).hexdigest()[:9] for n in range(400)]
    text = " ".join(words) + ". "
    passages = [Passage("A source", passage, "/") for _start, passage in chunk_text(text * 3)]
    assert max(len(passage.body) for passage in passages) >= 1100  # as long as real ones
    before = chunks_moved_out_of_search_rows()

    replace_entries(kind="source", object_id=11, passages=passages)

    assert chunks_moved_out_of_search_rows() == before
    assert search(words[7]).count() == 3  # once in each copy of the text


def first_page_and_passages_parsed(query):
    """The first page of ``query``'s results, and how many times ``ts_headline`` ran for it."""
    with CaptureQueriesContext(connection) as queries:
        hits = search(query)[0:10]
    return hits, sum("ts_headline" in captured["sql"] for captured in queries)


@only_postgresql
def test_snippets_are_cut_without_parsing_the_passages_again():
    SourceVersionFactory(text="The persistent engine keeps the model loaded between runs.")

    hits, parsed = first_page_and_passages_parsed("persistent engine")

    assert "The <mark>persistent</mark> <mark>engine</mark> keeps the model" in hits[0].snippet
    assert parsed == 0


@only_postgresql
def test_a_snippet_marks_every_form_of_a_query_word_as_the_search_matched_it():
    snippets = _headlines("figure", {1: "Figures rose. The figure fell; a figurine did not."})

    assert snippets[1] == ("\x02Figures\x03 rose. The \x02figure\x03 fell; a figurine did not.")


@only_postgresql
def test_a_long_passage_is_cut_around_its_match():
    before = " ".join(f"early{number}" for number in range(40))
    after = " ".join(f"late{number}" for number in range(40))

    snippet = _headlines("turbine", {1: f"{before} the turbine stopped {after}"})[1]

    assert snippet.startswith("…early37 early38 early39 the \x02turbine\x03 stopped late0")
    assert snippet.endswith("…")
    assert len(snippet.strip("…").split()) == SNIPPET_WORDS


@only_postgresql
def test_query_words_far_apart_are_shown_in_two_fragments():
    filler = " ".join(["words"] * 60)

    snippet = _headlines("turbine harbour", {1: f"A turbine. {filler} The harbour."})[1]

    first, second = snippet.split(" … ")
    assert "\x02turbine\x03" in first
    assert "\x02harbour\x03" in second


@only_postgresql
def test_a_match_spelled_unlike_the_query_word_gets_postgresqls_own_snippet():
    # "dying" stands for "die", but does not begin as "die" does.
    SourceVersionFactory(text="The patient was dying, the report said.")

    hits, parsed = first_page_and_passages_parsed("die")

    assert "<mark>dying</mark>" in hits[0].snippet
    assert parsed == 1


@only_postgresql
def test_a_passage_that_changed_gets_a_snippet_of_its_new_text():
    replace_entries(kind="claim", object_id=7, passages=[Passage("t", "turbines spin slowly", "/")])
    assert "slowly" in search("turbines")[0:1][0].snippet

    replace_entries(kind="claim", object_id=7, passages=[Passage("t", "turbines spin fast", "/")])

    snippet = search("turbines")[0:1][0].snippet
    assert "fast" in snippet
    assert "slowly" not in snippet


@only_postgresql
def test_a_snippet_is_made_of_the_text_the_search_read_even_if_it_was_replaced_since():
    # No entry has this id any more: a writer replaced it after the search read it.
    snippets = _headlines("turbines", {987654: "Three turbines spin slowly."})

    assert "Three \x02turbines\x03 spin slowly" in snippets[987654]


def test_long_texts_are_cut_into_passages_that_keep_every_character():
    text = ("A sentence of some length. " * 200).strip()

    chunks = list(chunk_text(text))

    assert len(chunks) > 3
    assert "".join(passage for _start, passage in chunks) == text
    for start, passage in chunks:
        assert text[start : start + len(passage)] == passage


def test_the_search_page_pages_through_results(editor_client):
    for number in range(25):
        replace_entries(
            kind="claim",
            object_id=number,
            passages=[Passage(f"Claim {number}", "frontier models", "/")],
        )

    first = editor_client.get(reverse("search"), {"q": "frontier"})
    second = editor_client.get(reverse("search"), {"q": "frontier", "page": 2})

    assert "25 passages found" in first.text
    assert first.text.count('class="search-result"') == 20
    assert second.text.count('class="search-result"') == 5


def _frontier_claims(count):
    for number in range(count):
        replace_entries(
            kind="claim",
            object_id=number,
            passages=[Passage(f"Claim {number}", "frontier models", "/")],
        )


@pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite's FTS5 counts apart")
def test_a_page_of_results_is_counted_in_the_query_that_reads_it(editor_client):
    _frontier_claims(25)
    editor_client.get(reverse("search"), {"q": "frontier", "page": 2})

    with CaptureQueriesContext(connection) as queries:
        response = editor_client.get(reverse("search"), {"q": "frontier", "page": 2})

    searches = [query for query in queries if "factcheck_searchentry" in query["sql"]]
    assert len(searches) == 1
    assert "25 passages found" in response.text
    assert response.text.count('class="search-result"') == 5


@pytest.mark.parametrize("page", ["9", "last", "0", "-3", "99999999999999999999999"])
def test_a_page_the_results_do_not_reach_falls_back_as_the_paginator_says(editor_client, page):
    _frontier_claims(25)

    response = editor_client.get(reverse("search"), {"q": "frontier", "page": page})

    assert response.status_code == 200
    assert "25 passages found" in response.text
    shown = response.text.count('class="search-result"')
    # Not a number, or one below 1: the first page; a number past the end: the last.
    assert shown == (20 if page in ("last", "0", "-3") else 5)


def test_the_search_page_says_when_nothing_matches(editor_client):
    response = editor_client.get(reverse("search"), {"q": "zebra"})

    assert "Nothing matches" in response.text


def test_a_long_search_is_cut_at_a_word_and_says_so(editor_client):
    SourceVersionFactory(text="The persistent engine keeps the model loaded between runs.")
    typed = "persistent engine " + "padding " * 30

    response = editor_client.get(reverse("search"), {"q": typed})

    assert "Only the first" in response.text
    assert "characters of what you typed were searched" in response.text
    searched = response.text.split("were searched: “", 1)[1].split("”", 1)[0]
    assert len(searched) <= QUERY_CHARS and typed.startswith(searched + " ")


def test_a_reviewer_finds_only_the_claims_assigned_to_them(client, first_case):
    reviewer = ReviewerFactory()
    claims = list(first_case.claims.order_by("pk")[:2])
    ReviewAssignmentFactory(claim=claims[0], reviewer=reviewer)
    for claim in claims:
        replace_entries(
            kind="claim",
            object_id=claim.pk,
            passages=[Passage(f"Claim {claim.pk}", "zanzibar wording", claim.get_absolute_url())],
        )
    client.force_login(reviewer)

    response = client.get(reverse("search"), {"q": "zanzibar"})

    assert "1 passage found" in response.text
    assert claims[0].get_absolute_url() in response.text
    assert claims[1].get_absolute_url() not in response.text


def test_limiting_search_to_no_claims_still_finds_sources():
    SourceVersionFactory(text="Quillwort appears in the source.")
    replace_entries(
        kind="claim", object_id=1, passages=[Passage("Claim 1", "quillwort claim", "/")]
    )

    results = search("quillwort", claim_ids=[])

    assert results.count() == 1
    assert [hit.kind for hit in results[0:10]] == ["source"]
    assert search("quillwort").count() == 2


def two_page_report():
    """A PDF version, read, whose two short pages make one searchable passage."""
    pdf = source_version_upload(
        source=SourceFactory(),
        content=make_text_pdf(["A first page of text.", "The turbines page."]),
        filename="report.pdf",
        actor=None,
    )[0]
    pdf.refresh_from_db()
    return pdf


def test_entries_indexed_before_the_reader_had_parts_link_to_the_part_that_holds_them(
    settings, tmp_path, monkeypatch
):
    from django.apps import apps

    from factcheck.models import SearchEntry

    migration = importlib.import_module("sources.migrations.0004_search_entries_link_to_their_part")
    settings.MEDIA_ROOT = tmp_path / "media"
    pdf = two_page_report()
    page_two = pdf.page_offsets[1]
    source_url = pdf.source.get_absolute_url()
    # As the entries were written then: the source's page, whichever passage.
    replace_entries(
        kind="source",
        object_id=pdf.source_id,
        passages=[
            Passage("report", "A first page of text.", source_url, f"version {pdf.number}, p. 1"),
            Passage("report", "The turbines page.", source_url, f"version {pdf.number}, p. 2"),
        ],
    )
    replace_entries(
        kind="source",
        object_id=pdf.source_id + 1000,
        passages=[
            Passage("long", "start", "/sources/9/", "version 1, characters 0–1200"),
            Passage("long", "later", "/sources/9/", "version 1, characters 250000–251200"),
            Passage("long", "made since", "/sources/9/?at=5", "version 1, characters 5–1205"),
        ],
    )
    replace_entries(kind="claim", object_id=4, passages=[Passage("c", "claim", "/claims/4/")])

    monkeypatch.setattr(migration, "BATCH", 2)  # several batches
    migration.link_entries_to_their_part(apps, None)

    urls = dict(SearchEntry.objects.values_list("body", "url"))
    assert urls["A first page of text."] == source_url
    assert urls["The turbines page."] == f"{source_url}?at={page_two}"
    assert urls["start"] == "/sources/9/"
    assert urls["later"] == "/sources/9/?at=250000"
    assert urls["made since"] == "/sources/9/?at=5"
    assert urls["claim"] == "/claims/4/"


def test_a_hit_just_after_a_part_break_of_a_long_source_opens_the_part_that_holds_it(
    editor_client,
):
    paragraphs = [f"Paragraph {n} of the report, marker{n} inside it." for n in range(2600)]
    text = "\n\n".join(paragraphs)
    source = SourceFactory(title="A long report")
    source_version_create_from_text(source=source, text=text, actor=None)
    break_at = part_starts(text)[0]
    # The first paragraphs of the second part, some of whose words were in a passage
    # that started in the first part.
    later = [n for n, p in enumerate(paragraphs) if text.index(p) >= break_at][:5]

    for n in later:
        results = editor_client.get(reverse("search"), {"q": f"marker{n}"})
        link = re.search(r'href="(/sources/[^"]+)"', results.text).group(1)
        page = editor_client.get(link.replace("&amp;", "&"))
        reader = page.text.split('class="reader__text"', 1)[1].split("part-nav", 1)[0]
        assert f"marker{n} inside it" in reader, f"marker{n} is not in the part {link} opens"


def test_a_pdf_passage_is_labelled_with_every_page_it_runs_over(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    pdf = two_page_report()

    # One passage holds both short pages: the match is on page 2, the passage starts on 1.
    (hit,) = search("turbines")[0:10]
    assert hit.location == f"version {pdf.number}, pp. 1–2"


def test_the_tab_title_names_the_search_on_the_page_and_in_the_results_htmx_swaps(
    editor_client,
):
    page = editor_client.get(reverse("search"), {"q": "Trainium2"})
    results = editor_client.get(
        reverse("search"), {"q": "tokens"}, headers={"HX-Request": "true", "HX-Target": "results"}
    )

    assert page.text.count("<title>") == 1
    assert "<title>Search: Trainium2 · factcheck</title>" in page.text
    assert results.text.lstrip().startswith("<title>Search: tokens · factcheck</title>")
