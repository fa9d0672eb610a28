"""
The background-task stack that `make run` and production use: Django's tasks
framework with django-tasks-db's database backend, run by its real `db_worker`.
"""

import pytest
from django.core.management import call_command
from django.db import transaction
from django.tasks import TaskResultStatus
from django.test import override_settings
from django_tasks_db.models import DBTaskResult

from claims.models import ClaimStatus, Decision
from claims.services import claim_submit_for_review, review_decide, reviewer_assign
from claims.workflow import claim_digest
from factcheck.models import AuditEvent
from sources.models import ExtractionStatus
from sources.services import source_version_upload
from tests import sample_files
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    EvidenceFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
    SourceFactory,
)
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


def run_worker():
    call_command("db_worker", "--batch", "--no-startup-delay", "--queue-name", "*")


@pytest.mark.django_db(transaction=True)
def test_review_mail_goes_out_from_the_worker_and_only_about_a_change_that_was_committed(
    mailoutbox,
):
    editor = EditorFactory()
    claim = ClaimFactory(author=editor)
    assigned, rolled_back = ReviewerFactory(), ReviewerFactory()
    with override_settings(TASKS=DATABASE_TASKS):
        reviewer_assign(claim=claim, reviewer=assigned, editor=editor)
        with pytest.raises(RuntimeError), transaction.atomic():
            reviewer_assign(claim=claim, reviewer=rolled_back, editor=editor)
            raise RuntimeError("the request failed after assigning")
        assert mailoutbox == []  # the request sent nothing itself

        run_worker()

    assert [message.to for message in mailoutbox] == [[assigned.email]]
    assert list(claim.assignments.values_list("reviewer", flat=True)) == [assigned.pk]


@pytest.mark.django_db(transaction=True)
def test_a_mail_server_that_is_down_neither_fails_nor_undoes_a_review_decision(
    settings, mailoutbox
):
    editor = EditorFactory()
    claim = ClaimFactory(author=editor, verdict=RatingFactory())
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    reviewer = ReviewerFactory()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            # Nothing listens there: every connection is refused.
            "OPTIONS": {"host": "127.0.0.1", "port": 1, "timeout": 5},
        }
    }
    with override_settings(TASKS=DATABASE_TASKS):
        assignment = reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
        claim = claim_submit_for_review(claim=claim, editor=editor)

        review_decide(
            assignment=assignment,
            reviewer=reviewer,
            decision=Decision.CHANGES_REQUESTED,
            comment="Cite the table, not the abstract.",
            digest_seen=claim_digest(claim),
        )
        run_worker()

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.CHANGES_REQUESTED
    assert claim.comments.get().body == "Cite the table, not the abstract."
    mail_tasks = DBTaskResult.objects.filter(task_path="claims.notifications.send_mail_task")
    # Assigned, sent to review, changes requested (to the claim's author and to the
    # case's lead editor, a mail each): four mails, none sent.
    assert sorted(mail_tasks.values_list("status", flat=True)) == ["FAILED"] * 4
    assert mailoutbox == []
