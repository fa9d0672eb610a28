"""How claims react to changes in the sources they quote."""

from collections import defaultdict

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone

from claims.models import Claim, Evidence
from claims.services import claims_signoffs_revalidate, signoffs_revalidate
from factcheck.audit import record
from sources.models import AnchoringStatus, Reanchoring
from sources.signals import quotations_reanchored, reanchoring_confirmed, source_retitled


@receiver(quotations_reanchored)
def follow_reanchored_quotations(sender, version, reanchorings, **kwargs):
    """
    Claims follow their quotations to a new version of the source. Quotations
    found word for word are followed at once; a claim relying on one whose text
    changed (until a person confirms it) or that is gone is flagged for review.
    Text that an earlier version had lost and this one holds again takes its
    "no longer in version N" flags off the claims.
    """
    # Text an earlier version had lost, back in this one: those flags no longer hold.
    lost_before = defaultdict(list)
    for earlier in (
        Reanchoring.objects.filter(
            quotation__in=[reanchoring.quotation_id for reanchoring in reanchorings],
            status=AnchoringStatus.ORPHANED,
        )
        .exclude(version=version)
        .select_related("version", "quotation")
        .defer("version__extracted_text")
    ):
        lost_before[earlier.quotation_id].append(_gone(earlier))
    for reanchoring in reanchorings:
        gone_before = lost_before[reanchoring.quotation_id]
        if reanchoring.status in {AnchoringStatus.UNCHANGED, AnchoringStatus.MOVED}:
            for claim in repoint_quotation(reanchoring.quotation, reanchoring.new_quotation):
                for what in gone_before:
                    unflag_claim_about_quotation(claim, what)
                # Same words, new upload: what the reviewer signed names the old version.
                signoffs_revalidate(
                    claim=claim,
                    reason=f"a quotation was re-anchored to version {version.number} of "
                    f"“{version.source}”",
                )
            continue
        if reanchoring.status == AnchoringStatus.CHANGED:
            reason = _about_quotation(reanchoring, _changed(reanchoring))
        else:
            reason = _about_quotation(reanchoring, _gone(reanchoring))
        for claim in claims_relying_on(reanchoring.quotation):
            for what in gone_before:
                unflag_claim_about_quotation(claim, what)
            flag_claim(claim, reason)
            signoffs_revalidate(claim=claim, reason=reason, force=True)


#: How a reason about a quotation starts; its source's title follows, as it was then.
QUOTED_FROM = "The text quoted from “"


def _about_quotation(reanchoring, what):
    """Why a claim is flagged: ``reanchoring``'s source named, then ``what`` became of the text."""
    return f"{QUOTED_FROM}{reanchoring.version.source}” {what}"


def _gone(reanchoring):
    return f"is no longer in version {reanchoring.version.number}: “{reanchoring.quotation.exact}”."


def _changed(reanchoring):
    return (
        f"changed in version {reanchoring.version.number}: "
        f"it read “{reanchoring.quotation.exact}” and now reads "
        f"“{reanchoring.new_quotation.exact}”. Confirm the new wording on the source page."
    )


@receiver(reanchoring_confirmed)
def follow_confirmed_quotation(sender, reanchoring, actor, **kwargs):
    """
    Once a person confirms a changed quotation, its claims rely on the new words
    and no longer carry the flag that asked for the confirmation. Confirmed after
    a newer version came, the new words were carried on to it already: the
    claims follow them there, as they would have on its arrival (or are flagged,
    where the newer version changed or lost them).
    """
    claims = repoint_quotation(reanchoring.quotation, reanchoring.new_quotation)
    for claim in claims:
        unflag_claim_about_quotation(claim, _changed(reanchoring))
        signoffs_revalidate(claim=claim, reason="a changed quotation was confirmed", actor=actor)
    quotation = reanchoring.new_quotation if claims else None
    while quotation is not None:
        later = (
            quotation.reanchorings.select_related("version__source")
            .defer("version__extracted_text")
            .order_by("version__number")
            .first()
        )
        if later is None:
            break
        if later.status == AnchoringStatus.CHANGED and later.confirmed_at is not None:
            # Its new words were confirmed already: nothing left to ask, only to follow.
            for claim in repoint_quotation(quotation, later.new_quotation):
                signoffs_revalidate(claim=claim, reason="a changed quotation was confirmed")
            quotation = later.new_quotation
            continue
        follow_reanchored_quotations(sender, version=later.version, reanchorings=[later])
        # Carried on word for word: on to where that copy went in turn.
        carried = later.status in {AnchoringStatus.UNCHANGED, AnchoringStatus.MOVED}
        quotation = later.new_quotation if carried else None


@receiver(source_retitled)
def follow_retitled_source(sender, source, old_title, actor, **kwargs):
    """
    A reviewer signed off on quotations shown with their source's title: claims
    still in the workflow that quote the source go back to review when it is
    renamed. Published claims keep their sign-offs (their pages show the new title).
    """
    claims_signoffs_revalidate(
        claims=Claim.objects.filter(
            Q(quotation__version__source=source) | Q(evidence__quotation__version__source=source)
        ),
        reason=f"the source “{old_title}” was renamed “{source.title}”",
        actor=actor,
    )


def claims_relying_on(quotation):
    # In one order, so that two re-anchorings flagging the same claims lock them in turn.
    return (
        Claim.objects.filter(Q(quotation=quotation) | Q(evidence__quotation=quotation))
        .distinct()
        .order_by("pk")
    )


def repoint_quotation(old, new):
    """Make claims that rely on ``old`` rely on ``new``; returns the claims affected."""
    affected = list(claims_relying_on(old))
    Claim.objects.filter(quotation=old).update(quotation=new)
    # A claim may already cite the new quotation; keep one piece of evidence.
    already = Evidence.objects.filter(quotation=new).values("claim")
    Evidence.objects.filter(quotation=old).exclude(claim__in=already).update(quotation=new)
    # What the claims' pages show changed: their public copies and ETags go with it.
    Claim.objects.filter(pk__in=[claim.pk for claim in affected]).update(updated_at=timezone.now())
    return affected


def _one_line(reason):
    # One reason a line: a quoted passage may hold line breaks of its own.
    return " ".join(reason.split())


def _locked_flags(claim):
    """
    The reasons ``claim`` needs review, one a line, read afresh under its row
    lock: two flaggings at once (two re-anchorings) each keep the other's
    reason. None if the claim is gone.
    """
    # Only the reasons: the caller's other fields stay as it read them. The lock an
    # UPDATE takes (no key update): rows added meanwhile that point at the claim (a
    # comment, evidence) need not wait for it, and flaggings still wait for each
    # other and for _lock_claim's writers.
    try:
        claim.refresh_from_db(
            fields=["needs_attention"],
            from_queryset=Claim.objects.select_for_update(no_key=True),
        )
    except Claim.DoesNotExist:
        return None
    return claim.flag_reasons


@transaction.atomic
def unflag_claim(claim, reason):
    """Take ``reason`` off ``claim``'s flags, its other reasons kept."""
    reason = _one_line(reason)
    reasons = _locked_flags(claim)
    if reasons is not None:
        claim.flag_reasons_save([line for line in reasons if line != reason])


@transaction.atomic
def unflag_claim_about_quotation(claim, what):
    """
    Take off ``claim``'s flags the reason about a quotation that ends in
    ``what`` (``_gone``, ``_changed``), whatever its source was called when the
    flag was written: a source renamed since does not keep the flag.
    """
    ending = "” " + _one_line(what)
    reasons = _locked_flags(claim)
    if reasons is not None:
        claim.flag_reasons_save(
            [
                line
                for line in reasons
                if not (line.startswith(QUOTED_FROM) and line.endswith(ending))
            ]
        )


@transaction.atomic
def flag_claim(claim, reason):
    """Mark ``claim`` as needing review, saying why (the audit trail keeps each reason)."""
    reason = _one_line(reason)
    reasons = _locked_flags(claim)
    if reasons is not None and reason not in reasons:
        claim.flag_reasons_save([*reasons, reason])
    record(actor=None, action="claim.flag", target=claim, changes={"reason": reason})
