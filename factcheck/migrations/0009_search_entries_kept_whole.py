"""
PostgreSQL: a search entry's row keeps its passage and ``document`` in the
table itself instead of moving one of them out to the TOAST table.

A passage (``chunk_text``, about 1,200 characters) with its tsvector makes a
row of 2.2 to 2.8 KB, over the 2 KB at which PostgreSQL moves values out of
line by default. Ranking reads ``document`` for every match, so a search whose
pages were not in memory read two blocks a match, and decompressed the value
from the second; on the scale dataset a search for a new name (200 matches)
took 7.5 ms in the database. With rows of up to 4 KB kept whole it reads one
block a match and takes 1.8 ms.

Rows written before this stay as they were until they are written again (a
source's text indexed again) or the table is rewritten: ``VACUUM FULL
factcheck_searchentry``, which locks it while it runs (README, "Production").
"""

from django.db import migrations

from factcheck.migration_sql import run_sql_for_vendor

POSTGRESQL_FORWARD = ["ALTER TABLE factcheck_searchentry SET (toast_tuple_target = 4080)"]
POSTGRESQL_BACKWARD = ["ALTER TABLE factcheck_searchentry RESET (toast_tuple_target)"]


class Migration(migrations.Migration):
    dependencies = [("factcheck", "0008_organisation_updated_at")]

    operations = [
        migrations.RunPython(
            run_sql_for_vendor({"postgresql": POSTGRESQL_FORWARD}),
            run_sql_for_vendor({"postgresql": POSTGRESQL_BACKWARD}),
        ),
    ]
