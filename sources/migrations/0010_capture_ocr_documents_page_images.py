"""
Sources by URL, by OCR, from Word and OpenDocument files, and quotations drawn on
their pages (issue 39).

A captured version's fetch (URL, time, status, headers, WARC record) is as fixed
as its bytes, and an OCR'd text's confidence and word boxes as its text: the
immutability trigger of 0002 is made again with them. On SQLite it must be made
again anyway: widening ``media_type`` rebuilds the table, which drops its triggers.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import sources.models
from factcheck.migration_sql import run_sql_for_vendor

IMMUTABLE_COLUMNS = [
    "source_id",
    "number",
    "file",
    "media_type",
    "byte_size",
    "sha256",
    "original_filename",
    "uploaded_by_id",
    "uploaded_at",
    "requested_url",
    "final_url",
    "fetched_at",
    "http_status",
    "response_headers",
    "warc",
]
TEXT_COLUMNS = ["extracted_text", "page_offsets", "sections", "ocr_confidence", "ocr_layout"]
MESSAGE = "a saved source version cannot be changed: upload a new version instead"


def sqlite_trigger(immutable, text):
    changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in immutable)
    text_changed = " OR ".join(f"OLD.{column} IS NOT NEW.{column}" for column in text)
    return [
        "DROP TRIGGER IF EXISTS sources_sourceversion_immutable",
        f"""
        CREATE TRIGGER sources_sourceversion_immutable
        BEFORE UPDATE ON sources_sourceversion
        WHEN {changed} OR (OLD.extraction_status = 'ready' AND ({text_changed}))
        BEGIN
            SELECT RAISE(ABORT, '{MESSAGE}');
        END
        """,
    ]


def postgresql_trigger(immutable, text):
    changed = " OR ".join(f"NEW.{column} IS DISTINCT FROM OLD.{column}" for column in immutable)
    text_changed = " OR ".join(f"NEW.{column} IS DISTINCT FROM OLD.{column}" for column in text)
    return [
        f"""
        CREATE OR REPLACE FUNCTION sources_sourceversion_refuse_change() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF {changed} OR (OLD.extraction_status = 'ready' AND ({text_changed})) THEN
                RAISE EXCEPTION '{MESSAGE}';
            END IF;
            RETURN NEW;
        END
        $$
        """,
    ]


FORWARD = {
    "sqlite": sqlite_trigger(IMMUTABLE_COLUMNS, TEXT_COLUMNS),
    "postgresql": postgresql_trigger(IMMUTABLE_COLUMNS, TEXT_COLUMNS),
}
BACKWARD = {
    "sqlite": sqlite_trigger(IMMUTABLE_COLUMNS[:9], TEXT_COLUMNS[:3]),
    "postgresql": postgresql_trigger(IMMUTABLE_COLUMNS[:9], TEXT_COLUMNS[:3]),
}


class Migration(migrations.Migration):
    dependencies = [
        ("sources", "0009_sourceversion_language"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="QuotationPageImage",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("page", models.PositiveIntegerField()),
                (
                    "image",
                    models.FileField(
                        blank=True, max_length=300, upload_to=sources.models.page_image_upload_to
                    ),
                ),
                ("width", models.PositiveIntegerField(default=0)),
                ("height", models.PositiveIntegerField(default=0)),
                ("error", models.TextField(blank=True)),
                ("made_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["quotation", "page"],
            },
        ),
        migrations.RemoveConstraint(
            model_name="sourceversion",
            name="sourceversion_media_type_valid",
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="fetched_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="fetched"),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="final_url",
            field=models.URLField(blank=True, max_length=2000, verbose_name="final URL"),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="http_status",
            field=models.PositiveSmallIntegerField(
                blank=True, null=True, verbose_name="HTTP status"
            ),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="ocr_confidence",
            field=models.FloatField(blank=True, null=True, verbose_name="OCR confidence"),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="ocr_layout",
            field=models.JSONField(blank=True, default=dict),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="requested_url",
            field=models.URLField(blank=True, max_length=2000, verbose_name="requested URL"),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="response_headers",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="sourceversion",
            name="warc",
            field=models.FileField(
                blank=True, max_length=300, upload_to=sources.models.warc_upload_to
            ),
        ),
        migrations.AlterField(
            model_name="sourceversion",
            name="media_type",
            field=models.CharField(
                choices=[
                    ("application/pdf", "PDF"),
                    ("text/html", "HTML"),
                    ("text/plain", "Plain text"),
                    ("text/markdown", "Markdown"),
                    (
                        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                        "Word document",
                    ),
                    ("application/vnd.oasis.opendocument.text", "OpenDocument text"),
                    ("image/png", "PNG image"),
                    ("image/jpeg", "JPEG image"),
                    ("image/webp", "WebP image"),
                ],
                max_length=100,
            ),
        ),
        migrations.AddConstraint(
            model_name="sourceversion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "media_type__in",
                        [
                            "application/pdf",
                            "text/html",
                            "text/plain",
                            "text/markdown",
                            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                            "application/vnd.oasis.opendocument.text",
                            "image/png",
                            "image/jpeg",
                            "image/webp",
                        ],
                    )
                ),
                name="sourceversion_media_type_valid",
            ),
        ),
        migrations.AddField(
            model_name="quotationpageimage",
            name="quotation",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="page_images",
                to="sources.quotation",
            ),
        ),
        migrations.AddConstraint(
            model_name="quotationpageimage",
            constraint=models.UniqueConstraint(
                fields=("quotation", "page"), name="quotationpageimage_once_per_page"
            ),
        ),
        migrations.RunPython(run_sql_for_vendor(FORWARD), run_sql_for_vendor(BACKWARD)),
    ]
