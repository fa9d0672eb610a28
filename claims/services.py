"""Writes for the claims app. Each function records what it did in the audit trail."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from claims import notifications
from claims.models import (
    Case,
    Claim,
    ClaimFlag,
    ClaimStatus,
    Comment,
    Decision,
    Evidence,
    ReviewAssignment,
    own_passage_carried_on,
)
from claims.workflow import (
    Action,
    and_list,
    claim_digest,
    claim_missing,
    claim_transition,
    own_work_refusal,
    refuse_own_work,
)
from factcheck import search
from factcheck.audit import acting_user, record
from factcheck.exceptions import Conflict, NotAllowed
from factcheck.roles import REVIEWER, can_sign_off, is_editor, require_editor
from sources.models import SourceVersion
from sources.services import check_language, quotation_create_from_selection

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.db.models import QuerySet

    from sources.models import Quotation, Source


@transaction.atomic
def case_create(
    *,
    title: str,
    slug: str,
    source_under_check: Source,
    lead_editor: User | None,
    actor: User,
    language: str = "",
) -> Case:
    """
    Open a case checking ``source_under_check``, in ``language`` (a code of
    factcheck.languages); without one, in the language of the piece's current
    version, as detected or set on the source page ("" while not known).
    """
    check_language(language)
    case = Case(
        title=title,
        slug=slug,
        source_under_check=source_under_check,
        lead_editor=lead_editor,
        language=language or piece_language(source_under_check),
    )
    case.full_clean()
    case.save()
    record(
        actor=actor,
        action="case.create",
        target=case,
        changes={"title": title, "language": case.language},
    )
    return case


def piece_language(source: Source) -> str:
    """The language of ``source``'s current version ("" before one is read, or when not known)."""
    return (
        SourceVersion.objects.filter(source_id=source.pk)
        .current_first()
        .values_list("language", flat=True)
        .first()
        or ""
    )


@transaction.atomic
def case_set_language(*, case: Case, language: str, actor: User) -> Case:
    """
    Say which language ``case`` is written in (a code of factcheck.languages, or
    "" for not known): its public pages are served in it, and its claims are
    searched in it, so they are indexed again. Only an editor may (NotAllowed);
    an unknown code is a ValidationError, and nothing changes.
    """
    if not actor.has_perm("claims.change_case"):
        raise NotAllowed(_("Only an editor can change a case's language."), code="not_editor")
    check_language(language)
    old = (
        Case.objects.select_for_update().filter(pk=case.pk).values_list("language", flat=True).get()
    )
    case.language = language
    if old == language:
        return case
    Case.objects.filter(pk=case.pk).update(language=language, updated_at=timezone.now())
    record(actor=actor, action="case.language", target=case, changes={"language": [old, language]})
    for claim in case.claims.select_related("quotation"):
        claim.case = case
        index_claim(claim)
    return case


@transaction.atomic
def claim_create(
    *,
    case: Case,
    quotation: Quotation,
    statement: str,
    claimant: str = "",
    rationale: str = "",
    author: User,
) -> Claim:
    """
    Create a draft claim in ``case``, made where ``quotation`` (a quotation of
    the case's piece under check) stands.
    """
    claim = Claim(
        case=case,
        quotation=quotation,
        statement=statement,
        claimant=claimant,
        rationale=rationale,
        author=acting_user(author),
    )
    claim.full_clean()
    claim.save()
    record(
        actor=author,
        action="claim.create",
        target=claim,
        changes={"statement": statement, "quotation": quotation.pk},
    )
    index_claim(claim)
    return claim


def index_claim(claim: Claim) -> None:
    """
    Make the claim findable by its statement, claimant, quoted words and
    rationale, in its case's language.
    """
    search.replace_entries(
        kind="claim",
        object_id=claim.pk,
        language=claim.case.language,
        passages=[
            search.Passage(
                title=claim.statement,
                body="\n".join(
                    part
                    for part in (claim.claimant, claim.quotation.exact, claim.rationale)
                    if part
                ),
                url=claim.get_absolute_url(),
                location=str(claim.case),
            )
        ],
    )


#: The fields an editor edits in place; everything else changes through actions.
EDITABLE_FIELDS = ("statement", "claimant", "verdict", "rationale")
READ_ONLY_STATES = {ClaimStatus.PUBLISHED, ClaimStatus.WITHDRAWN}


class EditConflict(Conflict):
    """A save against an older version of the claim than the one stored (``current``)."""

    def __init__(self, current: Claim):
        super().__init__(
            _("The claim was changed by someone else (now version %(version)s).")
            % {"version": current.version},
            code="edit_conflict",
        )
        self.current = current


def _refuse_if_read_only(claim: Claim) -> None:
    if claim.status == ClaimStatus.PUBLISHED:
        raise ValidationError(
            _(
                "A published claim is read-only; a change after publication goes through a "
                "correction."
            ),
            code="read_only",
        )
    if claim.status in READ_ONLY_STATES:
        raise ValidationError(
            _("A %(status)s claim is read-only.") % {"status": claim.get_status_display().lower()},
            code="read_only",
        )


def _lock_claim(claim: Claim) -> None:
    """
    Take ``claim``'s row lock first, before anything else in the transaction,
    and read it afresh under the lock.
    Every write to a claim's content, evidence or sign-offs starts here, so two
    of them on one claim run one after the other: neither holds a weaker lock
    (the one adding a row that points at the claim takes) that the other must
    wait for to lock the claim itself (a deadlock), each sees what the other
    did (a sign-off is voided once, and told once), and no reviewer signs off
    content that is being changed.
    """
    claim.refresh_from_db(from_queryset=Claim.objects.select_for_update())


def _bump_version(claim: Claim, expected_version: int, **fields: Any) -> None:
    """Write ``fields`` and the next version, if the claim is still at ``expected_version``."""
    rows = Claim.objects.filter(pk=claim.pk, version=expected_version)
    updated = rows.update(version=F("version") + 1, updated_at=timezone.now(), **fields)
    if not updated:
        raise EditConflict(Claim.objects.select_related("verdict").get(pk=claim.pk))
    claim.refresh_from_db()


@transaction.atomic
def claim_update(*, claim: Claim, editor: User, expected_version: int, **fields: Any) -> Claim:
    """
    Save an editor's changes to ``claim`` if nobody saved since the editor
    opened it at ``expected_version``; else raise EditConflict carrying the
    stored claim, and nothing is written. Voids sign-offs the change affects.
    A save that changes nothing writes nothing: no new version, which would
    turn another editor's next save into a conflict over nothing.
    """
    unknown = set(fields) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"Not editable in place: {', '.join(sorted(unknown))}")
    require_editor(editor, "edit a claim")
    _lock_claim(claim)
    _refuse_if_read_only(claim)
    if not fields.get("statement", claim.statement).strip():
        raise ValidationError(
            {"statement": ValidationError(_("A claim needs a statement."), code="blank")},
            code="blank",
        )
    before = {name: getattr(claim, name) for name in fields}
    changed = {name: value for name, value in fields.items() if before[name] != value}
    if not changed:
        return claim
    _bump_version(claim, expected_version, **changed)
    changes = {name: [_plain(before[name]), _plain(getattr(claim, name))] for name in changed}
    record(actor=editor, action="claim.update", target=claim, changes=changes)
    signoffs_revalidate(claim=claim, reason=gettext_noop("the claim was edited"), actor=editor)
    index_claim(claim)
    return claim


def _plain(value: Any) -> Any:
    return str(value) if value is not None and not isinstance(value, str) else value


def _refuse_piece_as_evidence(claim: Claim, source_id: int) -> None:
    if source_id == claim.case.source_under_check_id:
        raise ValidationError(
            _(
                "Evidence comes from the sources a claim is checked against, not from the piece "
                "under check itself."
            ),
            code="evidence_from_piece",
        )


@transaction.atomic
def evidence_add(
    *, claim: Claim, quotation: Quotation, stance: str, note: str = "", editor: User
) -> Evidence:
    """Attach ``quotation`` as evidence with a ``stance``; voids sign-offs it affects."""
    require_editor(editor, "change evidence")
    _lock_claim(claim)
    _refuse_if_read_only(claim)
    _refuse_piece_as_evidence(claim, quotation.version.source_id)
    if claim.evidence.filter(quotation=quotation).exists():
        raise ValidationError(_("This quotation is already evidence for the claim."), code="dup")
    evidence = Evidence(claim=claim, quotation=quotation, stance=stance, note=note)
    evidence.added_by = acting_user(editor)
    evidence.full_clean()
    evidence.save()
    # No version bump: the version guards the typed fields against lost edits, and
    # evidence is not typed into that form (the digest still sees the change).
    record(
        actor=editor,
        action="evidence.add",
        target=claim,
        changes={"quotation": quotation.exact, "stance": stance, "note": note},
    )
    signoffs_revalidate(claim=claim, reason=gettext_noop("evidence was added"), actor=editor)
    return evidence


@transaction.atomic
def evidence_remove(*, evidence: Evidence, editor: User) -> None:
    """Detach ``evidence`` from its claim; voids sign-offs it affects."""
    claim = evidence.claim
    require_editor(editor, "change evidence")
    _lock_claim(claim)
    _refuse_if_read_only(claim)
    record(
        actor=editor,
        action="evidence.remove",
        target=claim,
        changes={"quotation": evidence.quotation.exact, "stance": evidence.stance},
    )
    evidence.delete()
    signoffs_revalidate(claim=claim, reason=gettext_noop("evidence was removed"), actor=editor)


@transaction.atomic
def claim_flags_clear(*, claim: Claim, editor, flag_ids: list[int]) -> list[ClaimFlag]:
    """
    Clear the open review flags ``flag_ids`` of ``claim`` that an editor has
    dealt with (as the claim page showed them): a changed quotation clears its
    own flag when confirmed, but nothing else clears one about evidence whose
    words are gone from a new version (the editor removes or re-quotes it, and
    says so here). A flag raised since the page was read, or cleared meanwhile,
    is left alone. The claim's own passage changed or gone in the piece is not
    dealt with by clearing: refused (a changed one is confirmed on the source
    page; for one that is gone, the claim is withdrawn or made again from the
    current text). The audit trail keeps what was cleared; returns the flags.
    """
    require_editor(editor, "clear a claim's review flag")
    _lock_claim(claim)
    if own_passage_carried_on(claim.quotation_id).exists():
        raise ValidationError(
            _(
                "This claim's own passage changed or is gone in the current version of the "
                "piece, so its flag stays: confirm a changed passage on the piece's source page; "
                "for one that is gone, withdraw the claim, or make it again from the current text."
            ),
            code="passage_out_of_date",
        )
    cleared = list(
        claim.flags.open()
        .filter(pk__in=flag_ids)
        .select_related("quotation", "version__source", "reanchoring__new_quotation")
        .defer("version__extracted_text")
    )
    if cleared:
        now = timezone.now()
        ClaimFlag.objects.filter(pk__in=[flag.pk for flag in cleared]).update(
            cleared_at=now, cleared_by=editor
        )
        record(
            actor=editor,
            action="claim.flags_cleared",
            target=claim,
            changes={"reasons": "\n".join(flag.reason for flag in cleared)},
        )
    return cleared


def reviewer_already_assigned(*, reviewer: User) -> ValidationError:
    """The refusal of a second assignment of ``reviewer`` to the same claim."""
    return ValidationError(
        _("%(name)s is already assigned to review this claim."),
        code="already_assigned",
        params={"name": reviewer.get_username()},
    )


@transaction.atomic
def reviewer_assign(
    *, claim: Claim, reviewer: User, editor: User, due_on: datetime.date | None = None
) -> ReviewAssignment:
    """
    Ask ``reviewer`` (a member of Reviewer who has not written or changed the
    claim's content since it was last in draft: ``own_work_refusal``) to review
    ``claim``. An approved claim goes back to review: it is published only once
    every assigned reviewer has approved it, the new one too.
    """
    require_editor(editor, "assign reviewers")
    if not reviewer.groups.filter(name=REVIEWER).exists():
        raise ValidationError(
            _("%(name)s is not a reviewer.") % {"name": reviewer.get_username()},
            code="not_reviewer",
        )
    _lock_claim(claim)
    _refuse_if_read_only(claim)
    if claim.assignments.filter(reviewer=reviewer).exists():
        raise reviewer_already_assigned(reviewer=reviewer)
    # A wrong choice of reviewer, not a lack of permission: said beside the form, like the above.
    if refusal := own_work_refusal(claim=claim, user=reviewer, doing="review", asked_by=editor):
        raise ValidationError({"reviewer": ValidationError(refusal, code="own_work")})
    assignment = ReviewAssignment(
        claim=claim, reviewer=reviewer, assigned_by=acting_user(editor), due_on=due_on
    )
    assignment.full_clean()
    assignment.save()
    record(
        actor=editor,
        action="assignment.create",
        target=claim,
        changes={"reviewer": reviewer.get_username(), "due_on": due_on},
    )
    # A no-op unless the claim is approved; the mail tells of the status it leaves.
    assignment.claim = claim_transition(
        claim=claim,
        action=Action.REOPEN,
        actor=None,
        reason=f"{reviewer.get_username()} was asked to review it too",
    )
    notifications.review_assigned(assignment)
    return assignment


@transaction.atomic
def claim_submit_for_review(*, claim: Claim, editor: User) -> Claim:
    """
    Send ``claim`` to its reviewers. Decisions that no longer hold (changes
    requested, or approvals of other content) start again as pending.
    """
    claim = claim_transition(claim=claim, action=Action.SUBMIT, actor=editor)
    digest = claim_digest(claim)
    asked = claim.assignments.exclude(decision=Decision.APPROVED, signed_digest=digest)
    reviewers = [assignment.reviewer for assignment in asked.select_related("reviewer")]
    asked.update(decision=Decision.PENDING, decided_at=None, signed_digest="")
    notifications.review_requested(claim, reviewers)
    return claim


def review_refusal(*, claim: Claim, digest_seen: str) -> ValidationError | None:
    """
    Why a decision on ``claim``, made on the content whose digest is
    ``digest_seen``, cannot be recorded now (a ValidationError), or None: the
    claim has left review, or its content changed since it was read.
    """
    if claim.status == ClaimStatus.CHANGES_REQUESTED:
        return ValidationError(
            _(
                "Another reviewer has requested changes, so the claim is back with its editor "
                "and your decision was not recorded. You will be asked again when it returns to "
                "review."
            ),
            code="not_in_review",
        )
    if claim.status != ClaimStatus.IN_REVIEW:
        return ValidationError(
            _(
                "The claim is no longer in review (it is %(status)s), so your decision was not "
                "recorded."
            )
            % {"status": claim.get_status_display().lower()},
            code="not_in_review",
        )
    if digest_seen != claim_digest(claim):
        return ValidationError(
            _(
                "The claim changed while you were reading it. Read the current version and "
                "decide again."
            ),
            code="stale",
        )
    return None


@transaction.atomic
def review_decide(
    *,
    assignment: ReviewAssignment,
    reviewer: User,
    decision: str,
    comment: str = "",
    digest_seen: str,
) -> ReviewAssignment:
    """
    Record ``reviewer``'s decision on the content they saw (``digest_seen``). A
    decision on content that has changed since is refused, and so is one by a
    reviewer who wrote or changed that content (``refuse_own_work``). Approval by the last
    reviewer approves the claim; a request for changes sends it back.
    """
    _lock_claim(assignment.claim)
    assignment = ReviewAssignment.objects.select_for_update().get(pk=assignment.pk)
    claim = assignment.claim
    if assignment.reviewer_id != reviewer.pk:
        raise NotAllowed(
            _("Only the assigned reviewer can decide on this review."), code="not_assigned"
        )
    refuse_own_work(claim=claim, user=reviewer, doing="review")
    if not can_sign_off(reviewer, assignment):
        raise NotAllowed(_("Only a member of Reviewer can sign off."), code="not_assigned")
    if refusal := review_refusal(claim=claim, digest_seen=digest_seen):
        raise refusal
    digest = claim_digest(claim)
    if decision == Decision.APPROVED and (missing := claim_missing(claim)):
        raise ValidationError(
            _(
                "You cannot approve the claim as it stands: it needs %(missing)s. Request "
                "changes instead, saying so."
            )
            % {"missing": and_list(missing)},
            code="incomplete",
        )
    if decision == Decision.CHANGES_REQUESTED and not comment.strip():
        raise ValidationError(
            {"comment": ValidationError(_("Say what needs to change."), code="comment_required")},
            code="comment_required",
        )
    if decision not in {Decision.APPROVED, Decision.CHANGES_REQUESTED}:
        raise ValidationError(_("Approve or request changes."), code="bad_decision")
    if decision == Decision.CHANGES_REQUESTED:
        claim_transition(
            claim=claim, action=Action.REQUEST_CHANGES, actor=reviewer, decision_of=assignment
        )
    assignment.decision = decision
    assignment.decided_at = timezone.now()
    assignment.comment = comment
    assignment.signed_digest = digest if decision == Decision.APPROVED else ""
    assignment.save(update_fields=["decision", "decided_at", "comment", "signed_digest"])
    record(
        actor=reviewer,
        action=f"assignment.{decision}",
        target=claim,
        changes={"digest": assignment.signed_digest, "comment": comment},
    )
    if comment.strip():
        Comment.objects.create(claim=claim, author=reviewer, body=comment)
    if (
        decision == Decision.APPROVED
        and not claim.assignments.exclude(decision=Decision.APPROVED, signed_digest=digest).exists()
    ):
        claim_transition(claim=claim, action=Action.APPROVE, actor=reviewer, decision_of=assignment)
    notifications.review_decided(assignment)
    return assignment


@transaction.atomic
def signoffs_revalidate(
    *, claim: Claim, reason: str, actor: User | None = None, force: bool = False
) -> list[ReviewAssignment]:
    """
    Void every approval whose digest is not the claim's current content (or
    every approval, with ``force``, when something outside the digest changed,
    such as a quoted passage that disappeared). An approved claim goes back to
    review; each reviewer whose sign-off was voided is told. A published or
    withdrawn claim keeps its sign-offs: they are the record of what was
    published (a change to its sources flags it, and a correction answers it).
    """
    if claim.status in READ_ONLY_STATES:
        return []
    digest = claim_digest(claim)
    approvals = claim.assignments.filter(decision=Decision.APPROVED).select_related("reviewer")
    voided = [a for a in approvals if force or a.signed_digest != digest]
    for assignment in voided:
        ReviewAssignment.objects.filter(pk=assignment.pk).update(
            decision=Decision.PENDING, decided_at=None, signed_digest=""
        )
        record(
            actor=actor,
            action="assignment.voided",
            target=claim,
            changes={"reviewer": assignment.reviewer.get_username(), "reason": reason},
        )
        notifications.signoff_voided(assignment, reason)
    if voided:
        claim_transition(claim=claim, action=Action.REOPEN, actor=None, reason=reason)
    return voided


@transaction.atomic
def claims_signoffs_revalidate(*, claims: QuerySet[Claim], actor: User | None, reason: str) -> None:
    """
    ``signoffs_revalidate`` for each of ``claims`` still in the workflow, after
    something they show changed outside the claim itself (a verdict's label or
    value, a quoted source's title): they lose the approvals given before and
    go back to review. Published and withdrawn claims keep theirs.
    """
    # Leaving them out here as well spares reading them.
    for claim in claims.exclude(status__in=READ_ONLY_STATES).distinct():
        signoffs_revalidate(claim=claim, reason=reason, actor=actor)


@transaction.atomic
def comment_add(*, claim: Claim, author: User, body: str) -> Comment:
    """Add ``author``'s message to the claim's discussion (editors and its reviewers)."""
    if not (is_editor(author) or claim.assignments.filter(reviewer=author).exists()):
        raise NotAllowed(
            _("Only editors and the claim's reviewers take part in its discussion."),
            code="not_participant",
        )
    if not body.strip():
        raise ValidationError(
            {"body": ValidationError(_("Write a comment first."), code="blank")}, code="blank"
        )
    comment = Comment.objects.create(claim=claim, author=author, body=body.strip())
    record(actor=author, action="comment.add", target=claim, changes={"body": comment.body})
    return comment


@transaction.atomic
def claim_create_from_selection(
    *,
    case: Case,
    version: SourceVersion,
    start: int,
    end: int,
    selected_text: str,
    statement: str,
    claimant: str,
    author: User,
) -> Claim:
    """
    Create a draft claim in ``case`` from a passage selected in ``version`` of
    its piece under check: the selection (``start``, ``end``, ``selected_text``,
    see ``quotation_create_from_selection``) is quoted, and the claim is made
    where that quotation stands; both or neither are stored. A selection that
    cannot be quoted is refused with code ``selection`` (its own message kept),
    so that the form asks for the passage again; a claim refused for its own
    fields, with that refusal.
    """
    try:
        quotation, _created = quotation_create_from_selection(
            version=version, start=start, end=end, selected_text=selected_text, actor=author
        )
    except ValidationError as refused:
        raise ValidationError(" ".join(refused.messages), code="selection") from refused
    return claim_create(
        case=case, quotation=quotation, statement=statement, claimant=claimant, author=author
    )


@transaction.atomic
def evidence_add_from_selection(
    *,
    claim: Claim,
    version: SourceVersion,
    start: int,
    end: int,
    selected_text: str | None,
    stance: str,
    note: str = "",
    editor: User,
) -> Evidence:
    """
    Quote a passage selected in ``version`` of a source, beside ``claim``, and
    attach that quotation to the claim as evidence with ``stance`` and ``note``:
    both or neither are stored. The selection is checked as
    ``quotation_create_from_selection`` checks it (a selection not in the text,
    a replaced version); its refusal keeps its own message, with code
    ``selection``. ``selected_text`` is ``None`` for a passage picked among
    those the text's words were found in, which are the text's own. The
    evidence is refused as ``evidence_add`` refuses it (the piece under check,
    a quotation already attached, a read-only claim).
    """
    require_editor(editor, "change evidence")
    _refuse_piece_as_evidence(claim, version.source_id)
    if selected_text is None:
        selected_text = version.extracted_text[start:end]
    try:
        quotation, _created = quotation_create_from_selection(
            version=version, start=start, end=end, selected_text=selected_text, actor=editor
        )
    except ValidationError as refused:
        raise ValidationError(" ".join(refused.messages), code="selection") from refused
    return evidence_add(claim=claim, quotation=quotation, stance=stance, note=note, editor=editor)
