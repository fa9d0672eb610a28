"""
The public site's data: what readers, search engines and other newsrooms see
of published work. Nothing unpublished ever leaves these functions.
"""

import json

from django.core.cache import cache
from django.db.models import Max, Min, Prefetch
from django.http import Http404
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from claims.corrections import chain_head, verify_chain
from claims.models import Case, Claim, ClaimStatus, Correction, CorrectionStatus, Evidence, Rating
from factcheck.models import Organisation

CHAIN_CHECK_SECONDS = 60


def published_claims():
    return (
        Claim.objects.filter(status=ClaimStatus.PUBLISHED)
        .select_related("case", "quotation__version__source", "verdict")
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=Evidence.objects.select_related("quotation__version__source").order_by(
                    "id"
                ),
            ),
            Prefetch(
                "corrections",
                queryset=Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
                .select_related("old_verdict", "new_verdict")
                .order_by("published_at"),
            ),
        )
        .order_by("quotation__start", "id")
    )


def public_case(slug):
    """A case with its published claims; 404 when it has none (nothing to show yet)."""
    try:
        case = Case.objects.select_related("source_under_check").get(slug=slug)
    except Case.DoesNotExist:
        raise Http404("No such case.") from None
    claims = list(published_claims().filter(case=case))
    if not claims:
        raise Http404("This case has no published fact-checks.")
    return case, claims


def public_claim(slug, pk):
    try:
        return published_claims().get(case__slug=slug, pk=pk)
    except Claim.DoesNotExist:
        raise Http404("No such published claim.") from None


def published_corrections(*, case_slug="", kind=""):
    corrections = Correction.objects.filter(status=CorrectionStatus.PUBLISHED).select_related(
        "case", "claim", "old_verdict", "new_verdict", "supersedes"
    )
    if case_slug:
        corrections = corrections.filter(case__slug=case_slug)
    if kind:
        corrections = corrections.filter(kind=kind)
    return corrections.order_by("-sequence")


def chain_status():
    """The chain's head hash and whether it verifies (cached briefly: it walks every entry)."""
    head = chain_head()
    verifies = cache.get_or_set(
        f"corrections-chain-verifies:{head}", lambda: verify_chain().ok, CHAIN_CHECK_SECONDS
    )
    return {"head": head, "verifies": verifies}


def rating_scale():
    bounds = Rating.objects.filter(value__isnull=False).aggregate(
        best=Max("value"), worst=Min("value")
    )
    return bounds["best"], bounds["worst"]


def _number(value):
    return int(value) if value == int(value) else float(value)


def claim_review(claim, *, claim_url, organisation, scale):
    """schema.org ClaimReview for one published claim (one per page, as search engines take)."""
    best, worst = scale
    source = claim.quotation.version.source
    author = {"@type": "Organization", "name": organisation.name}
    if organisation.url:
        author["url"] = organisation.url
    if organisation.logo_url:
        author["logo"] = {"@type": "ImageObject", "url": organisation.logo_url}
    rating = {"@type": "Rating", "alternateName": claim.verdict.label if claim.verdict else ""}
    if claim.verdict and claim.verdict.value is not None:
        rating |= {"ratingValue": _number(claim.verdict.value)}
    if best is not None:
        rating |= {"bestRating": _number(best), "worstRating": _number(worst)}
    appearance = {"@type": "CreativeWork", "headline": source.title}
    if source.url:
        appearance["url"] = source.url
    if source.published_on:
        appearance["datePublished"] = source.published_on.isoformat()
    review = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": claim_url,
        "claimReviewed": claim.statement,
        "datePublished": claim.published_at.date().isoformat(),
        "author": author,
        "reviewRating": rating,
        "itemReviewed": {
            "@type": "Claim",
            "author": {"@type": "Organization", "name": claim.claimant or source.publisher},
            "appearance": [appearance],
        },
    }
    corrections = [
        {
            "@type": "CorrectionComment",
            "text": correction.what_is_right,
            "datePublished": correction.published_at.isoformat(),
        }
        for correction in claim.corrections.all()
    ]
    if corrections:
        review["correction"] = corrections
    return review


def json_ld(data):
    """A <script type="application/ld+json"> whose content cannot close the element."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    for character, escape in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(character, escape)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))


def organisation():
    return Organisation.current()
