"""
A case is published with its first published claim (claims.workflow). Cases
whose claims were published before that rule still read "open": they take the
date of their first published claim.
"""

from django.db import migrations
from django.db.models import Min, Q


def publish_cases_with_published_claims(apps, schema_editor):
    Case = apps.get_model("claims", "Case")
    cases = Case.objects.filter(status="open").annotate(
        first_published=Min("claims__published_at", filter=Q(claims__status="published"))
    )
    for case in cases.filter(first_published__isnull=False):
        Case.objects.filter(pk=case.pk).update(
            status="published", published_at=case.first_published
        )


class Migration(migrations.Migration):
    dependencies = [("claims", "0011_correction_kind_retraction")]

    operations = [
        migrations.RunPython(publish_cases_with_published_claims, migrations.RunPython.noop),
    ]
