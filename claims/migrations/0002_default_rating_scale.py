"""Seed the default rating scale. Editors can change it in the admin."""

from decimal import Decimal

from django.db import migrations

DEFAULT_SCALE = [
    (
        1,
        "False",
        Decimal(1),
        "The claim is wrong: the evidence contradicts it.",
    ),
    (
        2,
        "Misleading",
        Decimal(2),
        "The claim contains some truth but leaves a false impression, for example "
        "by dropping conditions, comparing unlike things or taking figures out of context.",
    ),
    (
        3,
        "Missing context",
        Decimal(3),
        "The claim is accurate as far as it goes but needs context a reader would "
        "want before relying on it.",
    ),
    (
        4,
        "Mostly accurate",
        Decimal(4),
        "The claim is accurate apart from a minor detail that does not change its meaning.",
    ),
    (
        5,
        "Accurate",
        Decimal(5),
        "The claim is accurate and the evidence supports it as stated.",
    ),
    (
        6,
        "Unproven",
        None,
        "The available evidence neither confirms nor refutes the claim, for example a "
        "vendor's own measurement that nobody has reproduced.",
    ),
]


def create_default_scale(apps, schema_editor):
    Rating = apps.get_model("claims", "Rating")
    for order, label, value, meaning in DEFAULT_SCALE:
        Rating.objects.get_or_create(
            label=label, defaults={"order": order, "value": value, "meaning": meaning}
        )


def remove_default_scale(apps, schema_editor):
    Rating = apps.get_model("claims", "Rating")
    labels = [label for _order, label, _value, _meaning in DEFAULT_SCALE]
    Rating.objects.filter(label__in=labels, claims__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("claims", "0001_initial")]

    operations = [migrations.RunPython(create_default_scale, remove_default_scale)]
