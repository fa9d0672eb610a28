"""
Search entries of a source's text made before the reader showed a long text a
part at a time link to the source page as such, which opens on the first part.
Each now links to the part that holds it (``?at=``), as entries made since do:
from its first character where the entry names it ("characters 1200–2400"),
else from the start of its page ("p. 7"), the nearest the entry can tell.
"""

import re

from django.db import migrations

CHARACTERS = re.compile(r"characters (\d+)–")
PAGE = re.compile(r"^version (\d+), p\. (\d+)$")
BATCH = 1000


def link_entries_to_their_part(apps, schema_editor):
    SearchEntry = apps.get_model("factcheck", "SearchEntry")
    SourceVersion = apps.get_model("sources", "SourceVersion")
    page_starts = {}

    def page_start(source_id, number, page):
        if (source_id, number) not in page_starts:
            page_starts[source_id, number] = (
                SourceVersion.objects.filter(source_id=source_id, number=number)
                .values_list("page_offsets", flat=True)
                .first()
                or []
            )
        offsets = page_starts[source_id, number]
        return offsets[page - 1] if 0 < page <= len(offsets) else 0

    entries = (
        SearchEntry.objects.filter(kind="source")
        .exclude(url__contains="?at=")
        .only("id", "object_id", "url", "location")
        .order_by("id")
    )
    last = 0
    # A batch at a time, by id: no cursor stays open over the rows being updated.
    while batch := list(entries.filter(id__gt=last)[:BATCH]):
        last = batch[-1].id
        changed = []
        for entry in batch:
            if characters := CHARACTERS.search(entry.location):
                at = int(characters[1])
            elif page := PAGE.match(entry.location):
                at = page_start(entry.object_id, int(page[1]), int(page[2]))
            else:
                at = 0
            # At 0 the entry is in the first part, where its link already leads.
            if at:
                entry.url = f"{entry.url}?at={at}"
                changed.append(entry)
        SearchEntry.objects.bulk_update(changed, ["url"])


class Migration(migrations.Migration):
    dependencies = [
        ("sources", "0003_sourceversion_text_length"),
        ("factcheck", "0007_search_index_without_pending_list"),
    ]

    operations = [
        # Backwards, the links stay: the reader reads ?at= whatever the migration state.
        migrations.RunPython(link_entries_to_their_part, migrations.RunPython.noop),
    ]
