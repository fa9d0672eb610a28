"""
The background-task stack that `make run` and production use: Django's tasks
framework with django-tasks-db's database backend, run by its real `db_worker`.
"""

import pytest
from django.core.management import call_command
from django.tasks import TaskResultStatus
from django.test import override_settings

from factcheck.models import AuditEvent
from sources.models import ExtractionStatus
from sources.services import source_version_upload
from tests import sample_files
from tests.factories import SourceFactory
from tests.worker_tasks import record_worker_heartbeat

DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.mark.django_db(transaction=True)
def test_a_task_enqueued_in_the_database_is_run_by_db_worker():
    source = SourceFactory()
    with override_settings(TASKS=DATABASE_TASKS):
        result = record_worker_heartbeat.enqueue(source.pk)
        assert result.status == TaskResultStatus.READY
        assert not AuditEvent.objects.filter(action="worker.heartbeat").exists()

        call_command("db_worker", "--batch", "--no-startup-delay", "--queue-name", "*")

        result.refresh()
        assert result.status == TaskResultStatus.SUCCESSFUL
        assert result.return_value == source.pk
    assert AuditEvent.objects.filter(action="worker.heartbeat", target_id=str(source.pk)).exists()


@pytest.mark.django_db(transaction=True)
def test_an_uploaded_pdf_waits_for_the_worker_and_is_then_extracted():
    source = SourceFactory()
    pdf = sample_files.make_text_pdf(["First page words.", "Second page words."])
    with override_settings(TASKS=DATABASE_TASKS):
        version, _created = source_version_upload(
            source=source, content=pdf, filename="paper.pdf", actor=None
        )
        version.refresh_from_db()
        assert version.extraction_status == ExtractionStatus.PENDING

        call_command("db_worker", "--batch", "--no-startup-delay", "--queue-name", "*")

    version.refresh_from_db()
    assert version.extraction_status == ExtractionStatus.READY
    assert version.extracted_text.startswith("First page words.")
    assert version.page_at(version.extracted_text.index("Second")) == 2
