"""
The corrections workflow and its tamper-evident chain.

An editor drafts a correction; a second person (another editor or a
reviewer) approves it; an editor publishes it. Publishing appends it to a
chain: each published entry stores a SHA-256 over its own content and the
previous entry's hash, so rewriting any published entry breaks every hash after
it. ``verify_chain`` walks the chain and names the first entry that does not
match; ``manage.py verify_corrections`` runs it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from claims.models import (
    Case,
    Claim,
    ClaimStatus,
    Correction,
    CorrectionKind,
    CorrectionStatus,
    ErrorReport,
    Rating,
    ReportStatus,
)
from claims.reports import report_convert
from factcheck.audit import acting_user, record
from factcheck.exceptions import NotAllowed
from factcheck.roles import is_editor, is_reviewer, require_editor

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.db.models import QuerySet

#: The hash of "nothing before": the first entry's previous_sha256.
GENESIS = "0" * 64


def correction_content(correction: Correction) -> dict[str, Any]:
    """What a published entry's hash covers, as plain data."""
    return {
        "sequence": correction.sequence,
        "previous_sha256": correction.previous_sha256,
        "case": correction.case.slug,
        "claim": correction.claim_id,
        "kind": correction.kind,
        "what_was_wrong": correction.what_was_wrong,
        "what_is_right": correction.what_is_right,
        "reason": correction.reason,
        "old_verdict": correction.old_verdict.label if correction.old_verdict else None,
        "new_verdict": correction.new_verdict.label if correction.new_verdict else None,
        "supersedes": correction.supersedes.sha256 if correction.supersedes else None,
        "published_at": correction.published_at.isoformat() if correction.published_at else None,
    }


def correction_hash(correction: Correction) -> str:
    canonical = json.dumps(
        correction_content(correction), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def published_chain() -> QuerySet[Correction]:
    return Correction.objects.filter(status=CorrectionStatus.PUBLISHED).select_related(
        "case", "old_verdict", "new_verdict", "supersedes"
    )


def chain_head() -> str:
    """The newest published entry's hash (GENESIS for an empty log)."""
    # Only the hash: every public page's ETag asks for it, and published_chain()'s
    # joins would cost the planner more than the row.
    head = (
        Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
        .order_by("-sequence")
        .values_list("sha256", flat=True)
        .first()
    )
    return head or GENESIS


@dataclass
class ChainReport:
    ok: bool
    checked: int
    head: str
    broken: Correction | None = None
    problem: str = ""


def verify_chain() -> ChainReport:
    """Walk the published entries in order; report the first that does not match."""
    previous = GENESIS
    checked = 0
    for expected_sequence, correction in enumerate(
        published_chain().order_by("sequence").iterator(chunk_size=500), start=1
    ):
        problem = ""
        if correction.sequence != expected_sequence:
            problem = f"is number {correction.sequence} where {expected_sequence} was expected"
        elif correction.previous_sha256 != previous:
            problem = "does not point at the entry before it"
        elif correction_hash(correction) != correction.sha256:
            problem = "does not match its hash: its content was changed after publication"
        if problem:
            return ChainReport(False, checked, previous, correction, problem)
        previous = correction.sha256
        checked += 1
    return ChainReport(True, checked, previous)


@transaction.atomic
def correction_draft(
    *,
    case: Case,
    editor: User,
    kind: str,
    what_was_wrong: str,
    what_is_right: str,
    reason: str = "",
    claim: Claim | None = None,
    new_verdict: Rating | None = None,
    supersedes: Correction | None = None,
) -> Correction:
    """
    Draft a correction of a published ``case`` (one with a published claim) or
    of one of its published claims. An entry it ``supersedes`` is a published
    one about the same case (and claim, when both name one): the public log is
    append-only, so nothing it could not show is let into a draft.
    """
    require_editor(editor, "draft a correction")
    if claim is not None and claim.status != ClaimStatus.PUBLISHED:
        raise ValidationError(
            _("Only a published claim is corrected; edit a draft claim directly."),
            code="claim_not_published",
        )
    if claim is not None and claim.case_id != case.pk:
        raise ValidationError(
            _("The claim is not one of the case “%(case)s”.") % {"case": case},
            code="claim_of_another_case",
        )
    if claim is not None:
        _refuse_if_retracted(claim)
    if not case.claims.filter(status=ClaimStatus.PUBLISHED).exists():
        raise ValidationError(
            _("The case “%(case)s” has nothing published yet; a correction is of published work.")
            % {"case": case},
            code="case_not_published",
        )
    if supersedes is not None:
        if supersedes.claim_id is not None:
            # A retraction is the last word on its claim, superseded by nothing.
            _refuse_if_retracted(supersedes.claim)
        if supersedes.status != CorrectionStatus.PUBLISHED:
            raise ValidationError(
                _("Only a published entry can be superseded."), code="supersedes_unpublished"
            )
        if supersedes.case_id != case.pk or (
            claim is not None and supersedes.claim_id not in (None, claim.pk)
        ):
            if supersedes.case_id == case.pk:
                sentence = _(
                    "Entry %(sequence)s is about another claim; a later entry supersedes one "
                    "about the same thing."
                )
            else:
                sentence = _(
                    "Entry %(sequence)s is about another case; a later entry supersedes one "
                    "about the same thing."
                )
            raise ValidationError(
                sentence % {"sequence": supersedes.sequence}, code="supersedes_other"
            )
    correction = Correction(
        case=case,
        claim=claim,
        kind=kind,
        what_was_wrong=what_was_wrong,
        what_is_right=what_is_right,
        reason=reason,
        new_verdict=new_verdict,
        supersedes=supersedes,
        created_by=acting_user(editor),
    )
    correction.full_clean()
    correction.save()
    record(actor=editor, action="correction.draft", target=correction, changes={"kind": kind})
    return correction


def _refuse_if_retracted(claim: Claim) -> None:
    retraction = (
        claim.corrections.published_retractions().values_list("sequence", flat=True).first()
    )
    if retraction is not None:
        raise ValidationError(
            _(
                "This claim's fact-check was retracted in entry %(sequence)s of the log; "
                "nothing more is published about it."
            )
            % {"sequence": retraction},
            code="claim_retracted",
        )


def correction_contributors(correction: Correction) -> set[int]:
    """
    Who wrote ``correction``: the editor who drafted it and whoever turned a
    reader's report into it. The same separation of duties as a claim's
    (``claims.workflow.own_work_refusal``): none of them approves it.
    """
    converted_by = correction.reports.exclude(handled_by=None).values_list("handled_by", flat=True)
    return {correction.created_by_id, *converted_by} - {None}


@transaction.atomic
def correction_approve(*, correction: Correction, approver: User) -> Correction:
    """
    A second person approves a draft: not one who wrote it, by drafting it or
    by turning a reader's report into it (``correction_contributors``).
    """
    correction = _locked(correction)
    _refuse_if_published(correction)
    if correction.status != CorrectionStatus.DRAFT:
        raise ValidationError(_("Only a draft can be approved."), code="not_draft")
    if not (is_editor(approver) or is_reviewer(approver)):
        raise NotAllowed(
            _("Only an editor or a reviewer can approve a correction."), code="not_allowed"
        )
    if approver.pk in correction_contributors(correction):
        raise ValidationError(
            _(
                "A second person must approve a correction, not one who drafted it or turned "
                "the reader's report into it."
            ),
            code="same_person",
        )
    correction.status = CorrectionStatus.APPROVED
    correction.approved_by = approver
    correction.approved_at = timezone.now()
    correction.save(update_fields=["status", "approved_by", "approved_at"])
    record(actor=approver, action="correction.approve", target=correction)
    return correction


@transaction.atomic
def correction_publish(*, correction: Correction, editor: User) -> Correction:
    """
    Publish an approved correction: apply a verdict change to its claim (or
    mark a retracted claim changed, for its public pages), append the entry to
    the chain, and fix its hash. From here on it never changes. Nothing is
    published about a claim whose fact-check a published entry retracted.
    """
    require_editor(editor, "publish a correction")
    correction = _locked(correction)
    _refuse_if_published(correction)
    if correction.status != CorrectionStatus.APPROVED:
        raise ValidationError(
            _("A correction is published once a second person has approved it."),
            code="not_approved",
        )
    # One writer at a time appends to the chain: lock its head.
    head = (
        Correction.objects.select_for_update()
        .filter(status=CorrectionStatus.PUBLISHED)
        .order_by("-sequence")
        .first()
    )
    if correction.claim_id:
        # Two drafts about one claim may both be approved; the first retraction ends it.
        _refuse_if_retracted(correction.claim)
    if correction.supersedes_id and correction.supersedes.claim_id:
        _refuse_if_retracted(correction.supersedes.claim)
    if correction.kind == CorrectionKind.RETRACTION:
        # The entry names the verdict it withdraws: the record, not the claim, keeps it.
        correction.old_verdict = correction.claim.verdict
        Claim.objects.filter(pk=correction.claim_id).update(updated_at=timezone.now())
    if correction.new_verdict_id and correction.claim_id:
        claim = Claim.objects.select_related("verdict").get(pk=correction.claim_id)
        correction.old_verdict = claim.verdict
        Claim.objects.filter(pk=claim.pk).update(
            verdict=correction.new_verdict, updated_at=timezone.now()
        )
        record(
            actor=editor,
            action="claim.verdict_corrected",
            target=claim,
            changes={
                "verdict": [
                    claim.verdict.label if claim.verdict else None,
                    correction.new_verdict.label,
                ]
            },
        )
    correction.sequence = (head.sequence if head else 0) + 1
    correction.previous_sha256 = head.sha256 if head else GENESIS
    correction.published_at = timezone.now()
    correction.status = CorrectionStatus.PUBLISHED
    correction.sha256 = correction_hash(correction)
    # The last save a correction ever gets: the model refuses any after this.
    Correction.objects.filter(pk=correction.pk).update(
        status=correction.status,
        old_verdict=correction.old_verdict,
        sequence=correction.sequence,
        previous_sha256=correction.previous_sha256,
        published_at=correction.published_at,
        sha256=correction.sha256,
    )
    record(
        actor=editor,
        action="correction.publish",
        target=correction,
        changes={"sha256": correction.sha256, "sequence": correction.sequence},
    )
    if correction.kind == CorrectionKind.RETRACTION:
        record(
            actor=editor,
            action="claim.retracted",
            target=correction.claim,
            changes={"correction": correction.pk, "sequence": correction.sequence},
        )
    return correction


def _locked(correction: Correction) -> Correction:
    """``correction`` read afresh under a row lock; refused if it was discarded meanwhile."""
    locked = Correction.objects.select_for_update().filter(pk=correction.pk).first()
    if locked is None:
        raise discarded_meanwhile()
    return locked


def _refuse_if_published(correction: Correction) -> None:
    # A stale page still offers the step: say what happened instead.
    if correction.status == CorrectionStatus.PUBLISHED:
        raise ValidationError(
            _(
                "This correction is already published, as entry %(sequence)s of the log: "
                "nothing was done."
            )
            % {"sequence": correction.sequence},
            code="published",
        )


def discarded_meanwhile() -> ValidationError:
    """The refusal of a step on a correction that is no longer there."""
    return ValidationError(
        _("This correction was discarded meanwhile: nothing was done."), code="gone"
    )


@transaction.atomic
def correction_discard(*, correction: Correction, editor: User) -> None:
    """
    Drop a correction that was never published (a draft, or an approved one
    that a later entry made moot, such as a retraction of its claim). A reader's
    report it was made from is open again, so that it is not lost. Published
    entries are never removed.
    """
    require_editor(editor, "discard a correction")
    correction = _locked(correction)
    if correction.status == CorrectionStatus.PUBLISHED:
        raise ValidationError(
            _("A published entry is never removed; publish a later entry that supersedes it."),
            code="published",
        )
    reopened = list(correction.reports.all())
    for report in reopened:
        report.status = ReportStatus.OPEN
        report.handled_by = None
        report.save(update_fields=["status", "handled_by"])
        record(
            actor=editor,
            action="report.reopen",
            target=report,
            changes={"discarded_correction": correction.pk},
        )
    record(
        actor=editor,
        action="correction.discard",
        target=correction,
        changes={
            "kind": correction.kind,
            "status": correction.status,
            "what_was_wrong": correction.what_was_wrong,
            "what_is_right": correction.what_is_right,
            "reports_reopened": [report.pk for report in reopened],
        },
    )
    correction.delete()


@transaction.atomic
def correction_draft_from_report(
    *,
    report: ErrorReport,
    case: Case,
    editor: User,
    kind: str,
    what_was_wrong: str,
    what_is_right: str,
    reason: str = "",
    claim: Claim | None = None,
    new_verdict: Rating | None = None,
    supersedes: Correction | None = None,
) -> Correction:
    """
    Draft a correction (see ``correction_draft``) from a reader's ``report``,
    which is marked as turned into it: both or neither are stored. A report
    another editor handled meanwhile is refused (code ``handled``), and the
    draft with it.
    """
    correction = correction_draft(
        case=case,
        editor=editor,
        kind=kind,
        what_was_wrong=what_was_wrong,
        what_is_right=what_is_right,
        reason=reason,
        claim=claim,
        new_verdict=new_verdict,
        supersedes=supersedes,
    )
    report_convert(report=report, correction=correction, editor=editor)
    return correction
