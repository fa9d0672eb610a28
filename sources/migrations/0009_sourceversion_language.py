"""
A source version's language (factcheck.languages), "" while not known.

The text of each version already read is given its language as extraction now
does (``detect_language`` reads only its beginning, which is all this fetches
of it), and the search entries of each source, written from its latest version
read, are given that version's language, so that they are found in it as new
ones are (on PostgreSQL a trigger writes their ``document`` again). A text too
short or too mixed to tell stays "", searched as before.
"""

import importlib

from django.db import migrations, models
from django.db.models.functions import Substr

from factcheck.languages import DETECTION_CHARS, LANGUAGE_CHOICES, detect_language
from factcheck.migration_sql import run_sql_for_vendor

trigger = importlib.import_module("sources.migrations.0002_sourceversion_immutable_trigger")

# SQLite adds a NOT NULL column by rebuilding the table, which drops its
# triggers: the immutability trigger is created again after the rebuild.
recreate_sqlite_trigger = run_sql_for_vendor(
    {"sqlite": trigger.SQLITE_BACKWARD + trigger.SQLITE_FORWARD}
)
#: Rows updated by one statement: below SQLite's limit on a statement's parameters.
BATCH = 500


def _update_in_batches(queryset, ids, **values):
    ids = list(ids)
    for start in range(0, len(ids), BATCH):
        queryset.filter(pk__in=ids[start : start + BATCH]).update(**values)


def detect_languages(apps, schema_editor):
    SourceVersion = apps.get_model("sources", "SourceVersion")
    SearchEntry = apps.get_model("factcheck", "SearchEntry")
    by_language = {}
    indexed = {}
    rows = (
        SourceVersion.objects.filter(extraction_status="ready")
        .annotate(sample=Substr("extracted_text", 1, DETECTION_CHARS))
        .order_by("source_id", "number")
        .values_list("pk", "source_id", "sample")
    )
    for pk, source_id, sample in rows.iterator():
        language = detect_language(sample)
        by_language.setdefault(language, []).append(pk)
        # In number order: the last one is the version the source's entries were written from.
        indexed[source_id] = language
    for language, ids in by_language.items():
        if language:
            _update_in_batches(SourceVersion.objects, ids, language=language)
    sources_by_language = {}
    for source_id, language in indexed.items():
        sources_by_language.setdefault(language, []).append(source_id)
    for language, source_ids in sources_by_language.items():
        if not language:
            continue
        for start in range(0, len(source_ids), BATCH):
            SearchEntry.objects.filter(
                kind="source", object_id__in=source_ids[start : start + BATCH]
            ).update(language=language)


class Migration(migrations.Migration):
    dependencies = [
        ("factcheck", "0011_search_in_each_language"),
        ("sources", "0008_quotation_words_trigram_index"),
    ]

    operations = [
        # Unapplied last, after the column is gone (and the table rebuilt again).
        migrations.RunPython(migrations.RunPython.noop, recreate_sqlite_trigger),
        migrations.AddField(
            model_name="sourceversion",
            name="language",
            field=models.CharField(
                blank=True,
                choices=LANGUAGE_CHOICES,
                max_length=16,
                verbose_name="language",
            ),
        ),
        migrations.RunPython(recreate_sqlite_trigger, migrations.RunPython.noop),
        migrations.RunPython(detect_languages, migrations.RunPython.noop),
    ]
