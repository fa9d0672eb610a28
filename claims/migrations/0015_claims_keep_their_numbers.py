from django.db import migrations, models
from django.db.models import F, Max, Window
from django.db.models.functions import RowNumber


def number_existing_claims(apps, schema_editor):
    """
    Each case's claims numbered in the order the piece makes them, as they were
    shown; each case's ``last_claim_number`` its highest.
    """
    Claim = apps.get_model("claims", "Claim")
    numbered = (
        Claim.objects.using(schema_editor.connection.alias)
        .annotate(
            place=Window(
                RowNumber(),
                partition_by=[F("case_id")],
                order_by=[F("quotation__start"), F("quotation__end"), F("id")],
            )
        )
        .values_list("pk", "place")
    )
    claims = [Claim(pk=pk, number=place) for pk, place in numbered]
    Claim.objects.using(schema_editor.connection.alias).bulk_update(
        claims, ["number"], batch_size=2000
    )
    Case = apps.get_model("claims", "Case")
    cases = Case.objects.using(schema_editor.connection.alias)
    highest = cases.values("pk").annotate(highest=Max("claims__number")).order_by()
    cases.bulk_update(
        [Case(pk=row["pk"], last_claim_number=row["highest"] or 0) for row in highest],
        ["last_claim_number"],
        batch_size=2000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("claims", "0014_reviews_awaiting_a_decision_by_due_date"),
    ]

    operations = [
        migrations.AddField(
            model_name="case",
            name="last_claim_number",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="claim",
            name="number",
            field=models.PositiveIntegerField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(number_existing_claims, migrations.RunPython.noop, elidable=True),
        migrations.AlterField(
            model_name="claim",
            name="number",
            field=models.PositiveIntegerField(blank=True, editable=False),
        ),
        migrations.AddConstraint(
            model_name="claim",
            constraint=models.UniqueConstraint(
                fields=("case", "number"), name="claim_number_in_case"
            ),
        ),
    ]
