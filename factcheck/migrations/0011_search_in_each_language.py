"""
Search in each passage's own language (``SearchEntry.language``, 0010).

PostgreSQL: a text search configuration per language of factcheck.languages,
each the built-in one with ``unaccent`` before its stemmer, so that
"inflaciones" finds "inflación" in Spanish and "inflacion" does too. The
stored ``document`` is now written by a trigger from the row's language: a
generated column cannot pick its configuration from another column (the cast
from text to regconfig is not immutable), and dropping the expression keeps
every stored vector, where rebuilding the column would rewrite the table. The
mapping below is the one of factcheck.languages at the time of writing (a
test holds them together); rows whose language is not known ("", every row
written before) are indexed with ``english``, as they were.

``factcheck_search_text`` brings a Portuguese nasal plural to its singular
before stemming ("eleições", "eleicoes" -> "eleicao"), which the Snowball
stemmer leaves apart; the search applies it to the query too.

``unaccent`` is a trusted extension (PostgreSQL 13 and later). Where it cannot
be installed, the configurations are made without it, with a warning:
searches then need the accents as the text writes them.

SQLite: an FTS5 table with the ``trigram`` tokenizer beside the word index,
kept in step by triggers as that one is, for words inside runs of a script
written without spaces (Chinese, Japanese), which the word index reads as one
token. And the word index's own triggers again: adding ``language`` (0010)
made SQLite's schema editor rebuild the table, which drops the triggers on it,
so both indexes are rebuilt from the table too.
"""

import sys

from django.db import DatabaseError, migrations, transaction

#: (configuration, the built-in one it copies, its stemmer or dictionary).
CONFIGURATIONS = [
    ("factcheck_english", "english", "english_stem"),
    ("factcheck_spanish", "spanish", "spanish_stem"),
    ("factcheck_portuguese", "portuguese", "portuguese_stem"),
    ("factcheck_french", "french", "french_stem"),
    ("factcheck_german", "german", "german_stem"),
    ("factcheck_italian", "italian", "italian_stem"),
    ("factcheck_dutch", "dutch", "dutch_stem"),
    ("factcheck_russian", "russian", "russian_stem"),
    ("factcheck_arabic", "arabic", "arabic_stem"),
    ("factcheck_simple", "simple", "simple"),
]
#: factcheck.languages as it was: language code -> configuration.
LANGUAGE_CONFIGURATIONS = {
    "en": "factcheck_english",
    "es": "factcheck_spanish",
    "pt": "factcheck_portuguese",
    "fr": "factcheck_french",
    "de": "factcheck_german",
    "it": "factcheck_italian",
    "nl": "factcheck_dutch",
    "ru": "factcheck_russian",
    "ar": "factcheck_arabic",
    "zh": "factcheck_simple",
    "ja": "factcheck_simple",
    "und": "factcheck_simple",
    "": "english",
}
OTHER_CONFIGURATION = "factcheck_simple"

SEARCH_TEXT_FUNCTION = r"""
CREATE FUNCTION factcheck_search_text(config regconfig, value text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN config = 'factcheck_portuguese'::regconfig
        THEN regexp_replace(lower(value), '(ões|ães|ãos|ão|oes|aes|aos)(?![[:alpha:]])', 'ao', 'g')
        ELSE value END
$$
"""


def _document_function():
    cases = " ".join(
        f"WHEN '{code}' THEN '{config}'::regconfig"
        for code, config in LANGUAGE_CONFIGURATIONS.items()
    )
    return f"""
    CREATE FUNCTION factcheck_searchentry_document() RETURNS trigger
    LANGUAGE plpgsql AS $$
    DECLARE
        config regconfig := CASE NEW.language {cases} ELSE '{OTHER_CONFIGURATION}'::regconfig END;
    BEGIN
        NEW.document := to_tsvector(config, factcheck_search_text(config, NEW.title || ' ' || NEW.body));
        RETURN NEW;
    END
    $$
    """


POSTGRESQL_DOCUMENT_FORWARD = [
    SEARCH_TEXT_FUNCTION,
    _document_function(),
    # Every stored vector stays as it is: they were all made with 'english', as rows
    # whose language is not known still are.
    "ALTER TABLE factcheck_searchentry ALTER COLUMN document DROP EXPRESSION",
    "CREATE TRIGGER factcheck_searchentry_document "
    "BEFORE INSERT OR UPDATE OF title, body, language ON factcheck_searchentry "
    "FOR EACH ROW EXECUTE FUNCTION factcheck_searchentry_document()",
    # Rows that have a language already (this migration run again after going back,
    # when the column made them all English again) are indexed in it.
    "UPDATE factcheck_searchentry SET language = language WHERE language <> ''",
]
POSTGRESQL_BACKWARD = [
    "DROP TRIGGER IF EXISTS factcheck_searchentry_document ON factcheck_searchentry",
    "DROP FUNCTION IF EXISTS factcheck_searchentry_document()",
    "DROP INDEX IF EXISTS factcheck_searchentry_document",
    "ALTER TABLE factcheck_searchentry DROP COLUMN document",
    "ALTER TABLE factcheck_searchentry ADD COLUMN document tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', title || ' ' || body)) STORED",
    "CREATE INDEX factcheck_searchentry_document ON factcheck_searchentry USING GIN (document) "
    "WITH (fastupdate = off)",
    "DROP FUNCTION IF EXISTS factcheck_search_text(regconfig, text)",
    *(f"DROP TEXT SEARCH CONFIGURATION IF EXISTS {name}" for name, _b, _d in CONFIGURATIONS),
]

#: The word index's triggers, as 0004 made them (gone with the table 0010 rebuilt).
SQLITE_WORD_INDEX_TRIGGERS = [
    """
    CREATE TRIGGER IF NOT EXISTS factcheck_searchentry_ai AFTER INSERT ON factcheck_searchentry
    BEGIN
        INSERT INTO factcheck_searchentry_fts(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS factcheck_searchentry_ad AFTER DELETE ON factcheck_searchentry
    BEGIN
        INSERT INTO factcheck_searchentry_fts(factcheck_searchentry_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS factcheck_searchentry_au AFTER UPDATE ON factcheck_searchentry
    BEGIN
        INSERT INTO factcheck_searchentry_fts(factcheck_searchentry_fts, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
        INSERT INTO factcheck_searchentry_fts(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
    "INSERT INTO factcheck_searchentry_fts(factcheck_searchentry_fts) VALUES ('rebuild')",
]
SQLITE_FORWARD = [
    *SQLITE_WORD_INDEX_TRIGGERS,
    """
    CREATE VIRTUAL TABLE factcheck_searchentry_trigram USING fts5(
        title, body, content='factcheck_searchentry', content_rowid='id', tokenize='trigram'
    )
    """,
    """
    CREATE TRIGGER factcheck_searchentry_trigram_ai AFTER INSERT ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_trigram(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
    """
    CREATE TRIGGER factcheck_searchentry_trigram_ad AFTER DELETE ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_trigram(factcheck_searchentry_trigram, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
    END
    """,
    """
    CREATE TRIGGER factcheck_searchentry_trigram_au AFTER UPDATE ON factcheck_searchentry BEGIN
        INSERT INTO factcheck_searchentry_trigram(factcheck_searchentry_trigram, rowid, title, body)
        VALUES ('delete', old.id, old.title, old.body);
        INSERT INTO factcheck_searchentry_trigram(rowid, title, body)
        VALUES (new.id, new.title, new.body);
    END
    """,
    "INSERT INTO factcheck_searchentry_trigram(factcheck_searchentry_trigram) VALUES ('rebuild')",
]
# The word index's triggers stay: 0010's table needs them as much.
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS factcheck_searchentry_trigram_au",
    "DROP TRIGGER IF EXISTS factcheck_searchentry_trigram_ad",
    "DROP TRIGGER IF EXISTS factcheck_searchentry_trigram_ai",
    "DROP TABLE IF EXISTS factcheck_searchentry_trigram",
]


def _install_unaccent(connection):
    """Whether ``unaccent`` is there, installing it if it can be."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_extension WHERE extname = 'unaccent'")
        if cursor.fetchone() is not None:
            return True
        try:
            # In a savepoint: a refusal must not abort the migration's transaction.
            with transaction.atomic(using=connection.alias):
                cursor.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        except DatabaseError as refused:
            sys.stderr.write(
                f"\nWarning: the unaccent extension could not be installed ({refused}). "
                "Search will need accents typed as the text writes them; install unaccent "
                "as a superuser and run this migration again (migrate factcheck 0010, then "
                "migrate).\n"
            )
            return False
    return True


def forward(apps, schema_editor):
    connection = schema_editor.connection
    if connection.vendor == "sqlite":
        for statement in SQLITE_FORWARD:
            schema_editor.execute(statement)
        return
    if connection.vendor != "postgresql":
        return
    unaccent = "unaccent, " if _install_unaccent(connection) else ""
    for name, builtin, dictionary in CONFIGURATIONS:
        schema_editor.execute(
            f"CREATE TEXT SEARCH CONFIGURATION {name} (COPY = pg_catalog.{builtin})"
        )
        # ASCII words have no accents to take off.
        schema_editor.execute(
            f"ALTER TEXT SEARCH CONFIGURATION {name} "
            f"ALTER MAPPING FOR hword, hword_part, word WITH {unaccent}{dictionary}"
        )
    for statement in POSTGRESQL_DOCUMENT_FORWARD:
        schema_editor.execute(statement)


def backward(apps, schema_editor):
    # The extension stays: something else may use it, and it costs nothing unused.
    statements = {"sqlite": SQLITE_BACKWARD, "postgresql": POSTGRESQL_BACKWARD}
    for statement in statements.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("factcheck", "0010_preferences_and_search_language")]

    operations = [migrations.RunPython(forward, backward)]
