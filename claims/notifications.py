"""E-mail to the people a claim's workflow concerns, through Django's mailers."""

from django.conf import settings
from django.core import mail


def _send(subject, body, recipients):
    recipients = sorted({user.email for user in recipients if user is not None and user.email})
    if recipients:
        mail.send_mail(f"[factcheck] {subject}", body, settings.DEFAULT_FROM_EMAIL, recipients)


def _claim_line(claim):
    return f"“{claim.statement[:200]}” in the case “{claim.case}”"


def review_assigned(assignment):
    due = f" It is due on {assignment.due_on:%d %B %Y}." if assignment.due_on else ""
    _send(
        "A claim for you to review",
        f"You have been asked to review {_claim_line(assignment.claim)}.{due}\n"
        "Find it under My reviews.",
        [assignment.reviewer],
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
    _send(
        "Your sign-off no longer holds",
        f"Your approval of {_claim_line(assignment.claim)} was voided because the content "
        f"changed: {reason}\nPlease review it again under My reviews.",
        [assignment.reviewer],
    )
