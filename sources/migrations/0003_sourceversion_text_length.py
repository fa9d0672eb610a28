import importlib

from django.db import migrations, models
from django.db.models.functions import Length

from factcheck.migration_sql import run_sql_for_vendor

trigger = importlib.import_module("sources.migrations.0002_sourceversion_immutable_trigger")

# SQLite adds a NOT NULL column by rebuilding the table, which drops its
# triggers: the immutability trigger is created again after each rebuild.
recreate_sqlite_trigger = run_sql_for_vendor(
    {"sqlite": trigger.SQLITE_BACKWARD + trigger.SQLITE_FORWARD}
)


def count_characters(apps, schema_editor):
    # Only text_length changes: the immutability trigger lets this through.
    SourceVersion = apps.get_model("sources", "SourceVersion")
    SourceVersion.objects.update(text_length=Length("extracted_text"))


class Migration(migrations.Migration):
    dependencies = [
        ("sources", "0002_sourceversion_immutable_trigger"),
    ]

    operations = [
        # Unapplied last, after the column is gone (and the table rebuilt again).
        migrations.RunPython(migrations.RunPython.noop, recreate_sqlite_trigger),
        migrations.AddField(
            model_name="sourceversion",
            name="text_length",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(recreate_sqlite_trigger, migrations.RunPython.noop),
        migrations.RunPython(count_characters, migrations.RunPython.noop),
    ]
