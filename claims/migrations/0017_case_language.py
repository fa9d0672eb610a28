"""
A case's language (factcheck.languages), "" while not known.

Each case is given the language of its piece under check (of its latest
version read, as sources' 0009 detected it), and the search entries of its
claims that language, as ``index_claim`` now writes them. A case whose piece's
language could not be told stays "".
"""

from django.db import migrations, models

from factcheck.languages import LANGUAGE_CHOICES

#: Rows updated by one statement: below SQLite's limit on a statement's parameters.
BATCH = 500


def cases_in_their_piece_language(apps, schema_editor):
    Case = apps.get_model("claims", "Case")
    Claim = apps.get_model("claims", "Claim")
    SourceVersion = apps.get_model("sources", "SourceVersion")
    SearchEntry = apps.get_model("factcheck", "SearchEntry")
    piece_language = dict(
        SourceVersion.objects.filter(extraction_status="ready")
        .order_by("source_id", "number")
        .values_list("source_id", "language")
    )
    by_language = {}
    for pk, source_id in Case.objects.values_list("pk", "source_under_check_id").iterator():
        language = piece_language.get(source_id, "")
        if language:
            by_language.setdefault(language, []).append(pk)
    for language, case_ids in by_language.items():
        for start in range(0, len(case_ids), BATCH):
            batch = case_ids[start : start + BATCH]
            Case.objects.filter(pk__in=batch).update(language=language)
            SearchEntry.objects.filter(
                kind="claim",
                object_id__in=Claim.objects.filter(case_id__in=batch).values("pk"),
            ).update(language=language)


class Migration(migrations.Migration):
    dependencies = [
        ("claims", "0016_claim_flags_are_rows"),
        ("factcheck", "0011_search_in_each_language"),
        ("sources", "0009_sourceversion_language"),
    ]

    operations = [
        migrations.AddField(
            model_name="case",
            name="language",
            field=models.CharField(
                blank=True,
                choices=LANGUAGE_CHOICES,
                max_length=16,
                verbose_name="language",
            ),
        ),
        migrations.RunPython(cases_in_their_piece_language, migrations.RunPython.noop),
    ]
