"""
E-mail to the people a claim's workflow concerns, through Django's mailers,
sent by the task worker.

A mail is a task enqueued in the transaction of the change it tells of. With
the database task backend its row commits with the change or not at all: no
mail goes out about a change that was rolled back, and a mail server that is
down or slow cannot undo a decision, hold the page up or turn it into an error.
The worker records a mail it could not send as a failed task (admin, Tasks).

Each workflow mail names the claim in its subject (its number, its case and
the start of its statement, so that an inbox of them can be told apart) and
carries an absolute link to the page where its recipient acts: ``SITE_URL``,
since the worker has no request to take the site's address from. It is written
twice, as plain text and as HTML (templates/claims/mail/), in its recipient's
language (``recipient_language``).
"""

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.tasks import task
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.functional import lazy
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from claims.models import ClaimStatus, Decision
from factcheck.models import Preferences

#: How much of a statement the subject carries; the body has it whole.
SUBJECT_STATEMENT_CHARS = 60


@task
def send_mail_task(*, subject, body, to, html=None):
    """Send one mail to the addresses ``to`` through the default mailer, with ``html`` beside."""
    message = EmailMultiAlternatives(
        subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=to
    )
    if html:
        message.attach_alternative(html, "text/html")
    message.send()


def mail_with_change(subject, body, addresses, html=None):
    """
    Mail each of ``addresses`` once the caller's transaction commits (see the
    module): a mail of its own, so that nobody is shown the others' addresses.
    """
    for address in sorted(set(filter(None, addresses))):
        send_mail_task.enqueue(subject=f"[factcheck] {subject}", body=body, to=[address], html=html)


def recipient_language(user):
    """
    The language a mail to ``user`` is written in: the one they chose for the
    desk (``Preferences``), else the site's. A reader without an account
    (``None``) gets the site's.
    """
    offered = {code for code, _name in settings.LANGUAGES}
    if user is not None and user.pk is not None:
        chosen = Preferences.objects.filter(user=user).values_list("language", flat=True).first()
        if chosen in offered:
            return chosen
    return settings.LANGUAGE_CODE


def absolute(path):
    """``path`` on this site, as a link that works from a mail: ``SITE_URL`` and the path."""
    return settings.SITE_URL + path


def claim_subject(heading, claim):
    """``heading: claim 3 of “Case title” — start of the statement…``, on one line."""
    statement = Truncator(" ".join(claim.statement.split())).chars(SUBJECT_STATEMENT_CHARS)
    # A subject is one header line: a line break in a title would be refused by the mailer.
    case = " ".join(claim.case.title.split())
    return _("%(heading)s: claim %(number)s of “%(case)s” — %(statement)s") % {
        "heading": heading,
        "number": claim.number,
        "case": case,
        "statement": statement,
    }


def _notify(template, heading, claim, recipients, **context):
    """
    Mail ``template`` (text and HTML) to each ``(user, path)`` of ``recipients``,
    ``path`` being the page where that user acts; one mail per address, in the
    recipient's language, its subject ``claim_subject(heading, claim)``
    (``heading`` and any lazy ``context`` are translated for each of them).
    """
    sent = set()
    for user, path in recipients:
        if user is None or not user.email or user.email in sent:
            continue
        sent.add(user.email)
        values = context | {"claim": claim, "recipient": user, "link": absolute(path)}
        with translation.override(recipient_language(user)):
            send_mail_task.enqueue(
                subject=f"[factcheck] {claim_subject(heading, claim)}",
                body=render_to_string(f"claims/mail/{template}.txt", values),
                html=render_to_string(f"claims/mail/{template}.html", values),
                to=[user.email],
            )


def _review_page(assignment):
    return reverse("claims:review", args=[assignment.pk])


def review_assigned(assignment):
    claim = assignment.claim
    _notify(
        "review_assigned",
        gettext_lazy("Review requested"),
        claim,
        [(assignment.reviewer, _review_page(assignment))],
        assignment=assignment,
        # Nothing to decide before the editor submits it: that sends its own mail.
        in_review=claim.status == ClaimStatus.IN_REVIEW,
    )


def review_requested(claim, reviewers):
    """The claim went to review: ``reviewers`` (those yet to decide on it) can decide now."""
    assignments = claim.assignments.filter(reviewer__in=[user for user in reviewers if user])
    _notify(
        "review_requested",
        gettext_lazy("Ready for your review"),
        claim,
        [
            (assignment.reviewer, _review_page(assignment))
            for assignment in assignments.select_related("reviewer")
        ],
    )


def review_decided(assignment):
    claim = assignment.claim
    _notify(
        "review_decided",
        # The decision's label (lazy): said in each recipient's language.
        Decision(assignment.decision).label,
        claim,
        [(user, claim.get_absolute_url()) for user in (claim.author, claim.case.lead_editor)],
        assignment=assignment,
    )


#: A message id known only when the code runs, translated when the mail is written.
_said_later = lazy(_, str)


def signoff_voided(assignment, reason):
    """
    Tell the reviewer their approval was voided, and why: ``reason`` is in
    English, as the audit trail keeps it; one the services mark for translation
    (``gettext_noop``) is said in the reviewer's language, any other as it is.
    """
    claim = assignment.claim
    _notify(
        "signoff_voided",
        gettext_lazy("Your sign-off no longer holds"),
        claim,
        [(assignment.reviewer, _review_page(assignment))],
        reason=_said_later(reason.rstrip(".")),
        # Told before the claim goes back: an approved one returns to review now; one that
        # another reviewer sent back for changes waits for its editor to submit it again.
        in_review=claim.status in (ClaimStatus.APPROVED, ClaimStatus.IN_REVIEW),
    )
