"""Readers' error reports: accepted with a honeypot and a per-address rate limit."""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from claims import notifications
from claims.models import ErrorReport, ReportStatus
from factcheck.audit import record

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from claims.models import Case, Claim, Correction

#: At most this many reports from one address in the window.
REPORTS_PER_WINDOW = 5
WINDOW_SECONDS = 3600


class TooManyReports(Exception):
    """The sender's address has sent too many reports recently."""


def open_report_count() -> int:
    """How many readers' reports nobody has handled yet."""
    return ErrorReport.objects.filter(status=ReportStatus.OPEN).count()


def sender_key(address: str) -> str:
    """A keyed hash of the sender's address: enough to rate-limit, not to identify."""
    return hmac.new(
        settings.SECRET_KEY.encode(), (address or "").encode(), hashlib.sha256
    ).hexdigest()


@transaction.atomic
def report_submit(
    *,
    page_url: str,
    message: str,
    email: str = "",
    address: str,
    case: Case | None = None,
    claim: Claim | None = None,
) -> ErrorReport:
    """Store a reader's report; TooManyReports when the address floods."""
    key = sender_key(address)
    counter = f"error-reports:{key}"
    cache.add(counter, 0, WINDOW_SECONDS)
    if cache.incr(counter) > REPORTS_PER_WINDOW:
        raise TooManyReports
    if not message.strip():
        raise ValidationError(
            {"message": ValidationError(_("Say what is wrong."), code="blank")}, code="blank"
        )
    return ErrorReport.objects.create(
        page_url=page_url[:500],
        message=message.strip(),
        email=email,
        sender_key=key,
        case=case,
        claim=claim,
    )


def _still_open(report: ErrorReport) -> ErrorReport:
    """
    ``report`` read again under its row lock, if it is still open; a report that
    another editor handled meanwhile is refused (code ``handled``).
    """
    report = (
        ErrorReport.objects.select_for_update(of=("self",))
        .select_related("handled_by")
        .get(pk=report.pk)
    )
    if report.status != ReportStatus.OPEN:
        status = report.get_status_display().lower()
        if report.handled_by:
            raise ValidationError(
                _("This report was %(status)s by %(name)s meanwhile.")
                % {"status": status, "name": report.handled_by.get_username()},
                code="handled",
            )
        raise ValidationError(
            _("This report was %(status)s meanwhile.") % {"status": status}, code="handled"
        )
    return report


@transaction.atomic
def report_close(*, report: ErrorReport, editor: User, reply: str) -> ErrorReport:
    """
    Close an open report with a reply, mailed to the reader when they left an
    address. A report handled meanwhile is refused (``handled``).
    """
    if not reply.strip():
        raise ValidationError(
            {"reply": ValidationError(_("Write the reply first."), code="blank")}, code="blank"
        )
    report = _still_open(report)
    report.status = ReportStatus.CLOSED
    report.reply = reply.strip()
    report.handled_by = editor
    report.save(update_fields=["status", "reply", "handled_by"])
    record(actor=editor, action="report.close", target=report, changes={"reply": report.reply})
    # The reader has no account to say their language: the site's.
    with translation.override(notifications.recipient_language(None)):
        notifications.mail_with_change(
            _("About the error you reported"),
            _("You wrote:\n%(message)s\n\nOur reply:\n%(reply)s")
            % {"message": report.message, "reply": report.reply},
            [report.email],
        )
    return report


@transaction.atomic
def report_convert(*, report: ErrorReport, correction: Correction, editor: User) -> ErrorReport:
    """
    Mark an open report as turned into ``correction`` (a draft). A report
    handled meanwhile is refused (``handled``).
    """
    report = _still_open(report)
    report.status = ReportStatus.CONVERTED
    report.correction = correction
    report.handled_by = editor
    report.save(update_fields=["status", "correction", "handled_by"])
    record(
        actor=editor, action="report.convert", target=report, changes={"correction": correction.pk}
    )
    return report
