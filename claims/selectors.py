"""Reads for the claims app: what the pages list, with their queries bounded."""

from django.db.models import Count, F, Q

from claims.models import Case, Claim, ClaimStatus, Correction, CorrectionStatus, ReviewAssignment


def case_list():
    """Every case with its claim counts, newest first."""
    return (
        Case.objects.select_related("source_under_check", "lead_editor")
        .annotate(
            claim_count=Count("claims", distinct=True),
            published_count=Count(
                "claims", filter=Q(claims__status=ClaimStatus.PUBLISHED), distinct=True
            ),
        )
        .order_by("-created_at", "-id")
    )


def case_claims(case):
    """
    The claims of ``case`` in the order the article makes them, each with an
    ``ordinal`` (1, 2, …) that stays the same whatever list it is shown in.
    """
    claims = list(
        Claim.objects.filter(case=case)
        .select_related("quotation", "verdict", "author")
        .order_by("quotation__start", "quotation__end", "id")
    )
    for ordinal, claim in enumerate(claims, start=1):
        claim.ordinal = ordinal
    return claims


def claim_status_summary(case):
    """``[(status, label, count)]`` for every claim status, in workflow order."""
    counts = dict(
        Claim.objects.filter(case=case)
        .values_list("status")
        .annotate(count=Count("id"))
        .values_list("status", "count")
    )
    return [(value, label, counts.get(value, 0)) for value, label in ClaimStatus.choices]


def reviews_for(user):
    """The review assignments of ``user``: pending ones first, then by due date."""
    return (
        ReviewAssignment.objects.filter(reviewer=user)
        .select_related("claim", "claim__case", "assigned_by")
        .order_by(F("decided_at").desc(nulls_first=True), F("due_on").asc(nulls_last=True), "id")
    )


def published_corrections():
    """Published corrections, newest first."""
    return (
        Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
        .select_related("case", "claim")
        .order_by("-published_at", "-id")
    )
