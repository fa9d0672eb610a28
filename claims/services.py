"""Writes for the claims app. Each function records what it did in the audit trail."""

from django.db import transaction

from claims.models import Case, Claim
from factcheck import search
from factcheck.audit import acting_user, record


@transaction.atomic
def case_create(*, title, slug, source_under_check, lead_editor, actor):
    """Open a case checking ``source_under_check``."""
    case = Case(
        title=title, slug=slug, source_under_check=source_under_check, lead_editor=lead_editor
    )
    case.full_clean()
    case.save()
    record(actor=actor, action="case.create", target=case, changes={"title": title})
    return case


@transaction.atomic
def claim_create(*, case, quotation, statement, claimant="", rationale="", author):
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


def index_claim(claim):
    """Make the claim findable by its statement, claimant, quoted words and rationale."""
    search.replace_entries(
        kind="claim",
        object_id=claim.pk,
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
