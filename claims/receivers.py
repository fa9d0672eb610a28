"""How claims react to changes in the sources they quote."""

from collections import defaultdict

from django.db import transaction
from django.db.models import Q
from django.dispatch import receiver
from django.utils import timezone
from django.utils.translation import gettext_noop

from claims.models import Claim, ClaimFlag, Evidence, FlagKind
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
        lost_before[earlier.quotation_id].append(earlier)
    for reanchoring in reanchorings:
        gone_before = lost_before[reanchoring.quotation_id]
        if reanchoring.status in {AnchoringStatus.UNCHANGED, AnchoringStatus.MOVED}:
            for claim in repoint_quotation(reanchoring.quotation, reanchoring.new_quotation):
                for earlier in gone_before:
                    flags_clear_for(claim, earlier)
                # Same words, new upload: what the reviewer signed names the old version.
                signoffs_revalidate(
                    claim=claim,
                    reason=f"a quotation was re-anchored to version {version.number} of "
                    f"“{version.source}”",
                )
            continue
        for claim in claims_relying_on(reanchoring.quotation):
            for earlier in gone_before:
                flags_clear_for(claim, earlier)
            flag = flag_raise(claim, reanchoring)
            signoffs_revalidate(claim=claim, reason=flag.reason, force=True)


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
        flags_clear_for(claim, reanchoring)
        signoffs_revalidate(
            claim=claim, reason=gettext_noop("a changed quotation was confirmed"), actor=actor
        )
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
                signoffs_revalidate(
                    claim=claim, reason=gettext_noop("a changed quotation was confirmed")
                )
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


def flags_clear_for(claim, reanchoring):
    """
    Clear ``claim``'s open flag about what ``reanchoring`` found (the text came
    back, or a person confirmed the change): the system clears it, nobody did.
    """
    kind = (
        FlagKind.QUOTATION_CHANGED
        if reanchoring.status == AnchoringStatus.CHANGED
        else FlagKind.QUOTATION_GONE
    )
    cleared = ClaimFlag.objects.open().filter(
        claim=claim,
        kind=kind,
        quotation_id=reanchoring.quotation_id,
        version_id=reanchoring.version_id,
    )
    cleared.update(cleared_at=timezone.now())


@transaction.atomic
def flag_raise(claim, reanchoring):
    """
    Flag ``claim`` for review because of what ``reanchoring`` found (a quotation
    it relies on changed or is gone); one open flag for each reason. The audit
    trail records each raising.
    """
    kind = (
        FlagKind.QUOTATION_CHANGED
        if reanchoring.status == AnchoringStatus.CHANGED
        else FlagKind.QUOTATION_GONE
    )
    flag, _created = ClaimFlag.objects.get_or_create(
        claim=claim,
        kind=kind,
        quotation_id=reanchoring.quotation_id,
        version_id=reanchoring.version_id,
        cleared_at=None,
        defaults={"reanchoring": reanchoring},
    )
    record(
        actor=None,
        action="claim.flag",
        target=claim,
        changes={"kind": kind, "reason": flag.reason},
    )
    return flag
