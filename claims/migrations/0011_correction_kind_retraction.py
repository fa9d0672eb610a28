"""
Retraction, a fourth kind of correction.

On SQLite, changing the check constraint rebuilds claims_correction, and a
rebuilt table has lost its triggers: the one that refuses to change a
published entry (0005) is created again after the rebuild, both ways.
"""

import importlib

from django.conf import settings
from django.db import migrations, models

from factcheck.migration_sql import run_sql_for_vendor

immutable = importlib.import_module("claims.migrations.0005_published_correction_immutable")
recreate_trigger_on_sqlite = run_sql_for_vendor(
    {"sqlite": immutable.SQLITE_BACKWARD + immutable.SQLITE_FORWARD}
)


class Migration(migrations.Migration):
    dependencies = [
        ("claims", "0010_statement_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Reversed last: the rebuild undoing this migration drops the trigger too.
        migrations.RunPython(migrations.RunPython.noop, recreate_trigger_on_sqlite),
        migrations.RemoveConstraint(
            model_name="correction",
            name="correction_kind_valid",
        ),
        migrations.AlterField(
            model_name="correction",
            name="kind",
            field=models.CharField(
                choices=[
                    ("correction", "Correction"),
                    ("clarification", "Clarification"),
                    ("update", "Update"),
                    ("retraction", "Retraction"),
                ],
                default="correction",
                max_length=20,
            ),
        ),
        migrations.AddConstraint(
            model_name="correction",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("kind__in", ["correction", "clarification", "update", "retraction"])
                ),
                name="correction_kind_valid",
            ),
        ),
        migrations.RunPython(recreate_trigger_on_sqlite, migrations.RunPython.noop),
    ]
