"""
E-mail to the people a claim's workflow concerns, through Django's mailers,
sent by the task worker.

A mail is a task enqueued in the transaction of the change it tells of. With
the database task backend its row commits with the change or not at all: no
mail goes out about a change that was rolled back, and a mail server that is
down or slow cannot undo a decision, hold the page up or turn it into an error.
The worker records a mail it could not send as a failed task (admin, Tasks).
"""

from django.conf import settings
from django.core import mail
from django.tasks import task

from claims.models import ClaimStatus


@task
def send_mail_task(*, subject, body, to):
    """Send one mail to the addresses ``to`` through the default mailer."""
    mail.send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, to)


def mail_with_change(subject, body, addresses):
    """
    Mail each of ``addresses`` once the caller's transaction commits (see the
    module): a mail of its own, so that nobody is shown the others' addresses.
    """
    for address in sorted(set(filter(None, addresses))):
        send_mail_task.enqueue(subject=f"[factcheck] {subject}", body=body, to=[address])


def _send(subject, body, recipients):
    mail_with_change(subject, body, [user.email for user in recipients if user is not None])


def _claim_line(claim):
    return f"“{claim.statement[:200]}” in the case “{claim.case}”"


def review_assigned(assignment):
    due = f" It is due on {assignment.due_on:%d %B %Y}." if assignment.due_on else ""
    if assignment.claim.status == ClaimStatus.IN_REVIEW:
        now = "Find it under My reviews."
    else:
        # Nothing to decide before the editor submits it: that sends its own mail.
        now = "It is not in review yet: you will get another mail when it is submitted."
    _send(
        "A claim for you to review",
        f"You have been asked to review {_claim_line(assignment.claim)}.{due}\n{now}",
        [assignment.reviewer],
    )


def review_requested(claim, reviewers):
    """The claim went to review: ``reviewers`` (those yet to decide on it) can decide now."""
    _send(
        "A claim is ready for your review",
        f"{_claim_line(claim)} was sent for review. Decide on it under My reviews.",
        reviewers,
    )


def review_decided(assignment):
    claim = assignment.claim
    comment = f"\n\nTheir comment:\n{assignment.comment}" if assignment.comment else ""
    _send(
        f"Review decision: {assignment.get_decision_display()}",
        f"{assignment.reviewer.get_username()} decided “{assignment.get_decision_display()}” "
        f"on {_claim_line(claim)}.{comment}",
        [claim.author, claim.case.lead_editor],
    )


def signoff_voided(assignment, reason):
    # Told before the claim goes back: an approved one returns to review now; one that
    # another reviewer sent back for changes waits for its editor to submit it again.
    if assignment.claim.status in (ClaimStatus.APPROVED, ClaimStatus.IN_REVIEW):
        now = "Please review it again under My reviews."
    else:
        now = "It is not in review now: you will get another mail when it is submitted again."
    _send(
        "Your sign-off no longer holds",
        f"Your approval of {_claim_line(assignment.claim)} was voided because the content "
        f"changed: {reason.rstrip('.')}.\n{now}",
        [assignment.reviewer],
    )
