"""
The page a quotation ends on, so that one across a page break reads "pp. 3–4".
Quotations of paged versions (PDFs) get theirs from the version's page offsets.
"""

import bisect

from django.db import migrations, models

CHUNK = 2000


def fill_end_pages(apps, schema_editor):
    Quotation = apps.get_model("sources", "Quotation")
    SourceVersion = apps.get_model("sources", "SourceVersion")
    paged = Quotation.objects.filter(page__isnull=False).order_by("version_id", "pk")
    offsets = {}
    changed = []
    for quotation in paged.only("pk", "version_id", "end").iterator(chunk_size=CHUNK):
        if quotation.version_id not in offsets:
            offsets[quotation.version_id] = (
                SourceVersion.objects.filter(pk=quotation.version_id)
                .values_list("page_offsets", flat=True)
                .get()
            )
        # As SourceVersion.page_at(end - 1): the page that holds the last character.
        quotation.end_page = (
            bisect.bisect_right(offsets[quotation.version_id], quotation.end - 1) or 1
        )
        changed.append(quotation)
        if len(changed) == CHUNK:
            Quotation.objects.bulk_update(changed, ["end_page"])
            changed = []
    Quotation.objects.bulk_update(changed, ["end_page"])


class Migration(migrations.Migration):
    dependencies = [("sources", "0005_source_list_order")]

    operations = [
        migrations.AddField(
            model_name="quotation",
            name="end_page",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(fill_end_pages, migrations.RunPython.noop),
    ]
