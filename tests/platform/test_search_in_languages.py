"""Search in each passage's language: stemming and accents, and scripts without spaces."""

import importlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from factcheck.languages import CONTENT_LANGUAGES, search_configuration
from factcheck.models import SearchEntry
from factcheck.search import DOCUMENT_INDEX, Passage, _postgresql_found, replace_entries, search
from tests.factories import SourceFactory

pytestmark = pytest.mark.django_db

only_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="PostgreSQL's text search configurations"
)
only_sqlite = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5")

JAPANESE = "東京都の人口は増えたと、総務省が発表した。"


def claim(object_id, text, language):
    replace_entries(
        kind="claim",
        object_id=object_id,
        passages=[Passage(f"Claim {object_id}", text, f"/claims/{object_id}/")],
        language=language,
    )


def found(query, **kwargs):
    """The ids of the objects ``query`` finds, checking that the count agrees."""
    results = search(query, **kwargs)
    ids = [hit.object_id for hit in results[0:50]]
    assert results.count() == len(ids)
    return ids


def test_every_passage_is_stored_with_the_language_it_was_given():
    replace_entries(
        kind="source",
        object_id=3,
        passages=[Passage("t", "Primera parte.", "/"), Passage("t", "Segunda parte.", "/")],
        language="es",
    )

    assert set(SearchEntry.objects.values_list("language", flat=True)) == {"es"}


def test_a_passage_given_no_language_has_none():
    replace_entries(kind="claim", object_id=3, passages=[Passage("t", "words", "/")])

    assert SearchEntry.objects.get().language == ""


def test_an_unaccented_word_finds_the_accented_one():
    claim(1, "La inflación subió en marzo.", "es")

    assert found("inflacion") == [1]


@only_postgresql
@pytest.mark.parametrize(
    ("language", "text", "query"),
    [
        ("es", "La inflación subió en marzo.", "inflaciones"),
        ("es", "Las elecciones se aplazaron.", "elección"),
        ("fr", "Une recherche publiée en mars.", "recherches"),
        ("fr", "Les élections sont reportées.", "election"),
        ("pt", "A eleição foi adiada.", "eleições"),
        ("pt", "As eleições foram adiadas.", "eleição"),
        ("pt", "As eleições foram adiadas.", "eleicoes"),
        ("de", "Die Häuser wurden verkauft.", "Haus"),
        ("de", "Die Wahlen wurden verschoben.", "Wahl"),
        ("it", "Le elezioni sono state rinviate.", "elezione"),
        ("ru", "Выборы были отложены.", "выбор"),
    ],
)
def test_a_word_finds_its_other_forms_in_the_passages_language(language, text, query):
    claim(1, text, language)

    assert found(query) == [1]


@only_postgresql
def test_the_snippet_marks_the_form_the_passage_has():
    claim(1, "La inflación subió en marzo, dijo el instituto.", "es")
    claim(2, "As eleições foram adiadas.", "pt")

    (spanish,) = search("inflaciones")[0:10]
    (portuguese,) = search("eleição")[0:10]

    assert "La <mark>inflación</mark> subió" in spanish.snippet
    assert "As <mark>eleições</mark> foram" in portuguese.snippet


@only_postgresql
def test_a_passage_is_matched_in_its_own_language_only():
    # Spanish stems "universidades" as English stems "universe": "univers".
    claim(1, "A model of the universe.", "en")
    claim(2, "Las universidades publican.", "es")

    assert found("universidades") == [2]


@only_postgresql
def test_passages_whose_language_is_not_known_are_searched_as_before():
    claim(1, "The patient was dying; café owners said so.", "")

    entry = SearchEntry.objects.get()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT document = to_tsvector('english', title || ' ' || body) "
            "FROM factcheck_searchentry WHERE id = %s",
            [entry.pk],
        )
        assert cursor.fetchone()[0] is True
    assert found("die") == [1]
    # English's configuration before texts had a language kept accents.
    assert found("cafe") == []
    assert found("café") == [1]


@only_postgresql
def test_each_language_is_indexed_with_the_configuration_the_search_reads_it_with():
    text = "Elections, élections, eleições: les recherches publiées"
    for number, language in enumerate([lang.code for lang in CONTENT_LANGUAGES] + ["", "tlh"]):
        claim(number, text, language)

    with connection.cursor() as cursor:
        for entry in SearchEntry.objects.all():
            config = search_configuration(entry.language)
            cursor.execute(
                "SELECT document = to_tsvector(%s::regconfig, "
                "factcheck_search_text(%s::regconfig, title || ' ' || body)) "
                "FROM factcheck_searchentry WHERE id = %s",
                [config, config, entry.pk],
            )
            assert cursor.fetchone()[0] is True, entry.language


@only_postgresql
def test_changing_a_passages_language_indexes_it_again():
    claim(1, "La inflación subió.", "")
    assert found("inflaciones") == []

    SearchEntry.objects.update(language="es")

    assert found("inflaciones") == [1]


def plan(sql, params):
    with connection.cursor() as cursor:
        # The test table is tiny: without this the planner reads it whole, index or not.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + sql, params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
        return plan


@only_postgresql
def test_a_search_in_every_language_at_once_reads_the_index():
    claim(1, "La inflación subió.", "es")
    ctes, from_where, _rank, params = _postgresql_found(["inflaciones", "marzo"])

    explained = plan(ctes + "SELECT e.id " + from_where, params)

    assert f"Bitmap Index Scan on {DOCUMENT_INDEX}" in explained


@only_postgresql
def test_a_word_inside_a_run_of_characters_is_looked_up_in_the_trigram_index():
    claim(1, JAPANESE, "ja")
    ctes, from_where, _rank, params = _postgresql_found(["総務省"])

    explained = plan(ctes + "SELECT e.id " + from_where, params)

    assert "Bitmap Index Scan on factcheck_searchentry_inside_trigram" in explained


@pytest.mark.parametrize("query", ["東京", "人口", "総務省", "東京都の人口は増えた", "総務省 東京"])
def test_a_japanese_word_is_found_inside_a_run_of_characters(query):
    claim(1, JAPANESE, "ja")
    claim(2, "大阪府の人口は減った。", "ja")

    assert found(query)[:1] == [1]


def test_a_chinese_word_is_found_inside_a_run_of_characters():
    claim(1, "国家统计局表示，三月份通货膨胀率上升了。", "zh")
    claim(2, "北京是中国的首都。", "zh")

    assert found("统计局") == [1]
    assert found("首都 北京") == [2]


def test_a_word_found_inside_a_run_is_marked_where_it_stands():
    claim(1, JAPANESE, "ja")

    (hit,) = search("人口")[0:10]

    assert hit.snippet == "東京都の<mark>人口</mark>は増えたと、総務省が発表した。"


def test_a_source_hit_inside_a_run_links_to_the_word():
    source = SourceFactory()
    replace_entries(
        kind="source",
        object_id=source.pk,
        passages=[Passage("Report", JAPANESE, "/sources/9/?at=100")],
        language="ja",
    )

    (hit,) = search("総務省")[0:10]

    at = 100 + JAPANESE.index("総務省")
    assert hit.url == f"/sources/9/?at={at}#at-{at}-{at + 3}"


def test_words_of_scripts_with_and_without_spaces_are_found_together():
    claim(1, "東京都の GDP は増えた。", "ja")
    claim(2, "東京都の人口は増えた。", "ja")

    assert found("東京 gdp") == [1]
    assert found("東京都 gdp") == [1]


def test_a_reviewer_finds_only_the_claims_assigned_to_them_in_any_script():
    claim(1, JAPANESE, "ja")
    claim(2, JAPANESE, "ja")

    assert found("人口", claim_ids=[2]) == [2]
    assert found("総務省", claim_ids=[2]) == [2]
    assert found("総務省", claim_ids=[]) == []


def test_a_short_word_set_apart_in_a_passage_of_another_language_is_found():
    claim(1, "The 東京 office said so.", "en")

    assert found("東京") == [1]


@only_sqlite
def test_sqlite_does_not_stem_other_languages_than_english():
    # One word index for every language, with English's stemmer (documented): a
    # plural that ends in -s as in English is found, one formed otherwise is not.
    claim(1, "A eleição foi adiada; a inflação subiu.", "pt")

    assert found("adiadas") == [1]
    assert found("eleições") == []
    assert found("eleicao") == [1]


@only_sqlite
def test_a_short_word_of_a_passage_whose_language_is_not_known_is_not_looked_for_inside_runs():
    # Without an index, a word too short for trigrams is looked for inside the
    # passages of languages written without spaces only.
    claim(1, JAPANESE, "")
    claim(2, JAPANESE, "ja")

    assert found("人口") == [2]
    assert sorted(found("総務省")) == [1, 2]


@only_sqlite
def test_the_word_index_is_kept_in_step_again_after_the_table_was_rebuilt():
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        triggers = {name for (name,) in cursor.fetchall()}

    assert {
        "factcheck_searchentry_ai",
        "factcheck_searchentry_ad",
        "factcheck_searchentry_au",
        "factcheck_searchentry_trigram_ai",
        "factcheck_searchentry_trigram_ad",
        "factcheck_searchentry_trigram_au",
    } <= triggers


@only_sqlite
def test_updating_a_passage_keeps_both_indexes_in_step():
    claim(1, JAPANESE, "ja")

    SearchEntry.objects.update(body="大阪府の人口は減った。")

    assert found("東京都") == []
    assert found("大阪府") == [1]


def test_english_searches_run_one_query_on_the_search_table():
    claim(1, "frontier models", "en")

    with CaptureQueriesContext(connection) as queries:
        assert search("frontier").count() == 1

    assert sum("factcheck_searchentry" in query["sql"] for query in queries) == 1


def test_the_language_migration_names_every_language_the_search_knows():
    migration = importlib.import_module("factcheck.migrations.0011_search_in_each_language")

    assert {
        **{lang.code: lang.search_configuration for lang in CONTENT_LANGUAGES},
        "": search_configuration(""),
    } == migration.LANGUAGE_CONFIGURATIONS


def test_a_passage_in_a_language_the_list_does_not_hold_is_found_word_for_word():
    claim(1, "Qapla' batlh Duj", "tlh")

    assert found("batlh") == [1]
    assert found("Duj qapla") == [1]
