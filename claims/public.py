"""
The public site's data: what readers, search engines and other newsrooms see
of published work. Nothing unpublished ever leaves these functions.
"""

import json

from django.core.cache import cache
from django.db.models import Count, Max, Min, OuterRef, Prefetch, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from claims.corrections import GENESIS, chain_head, verify_chain
from claims.models import Case, Claim, ClaimStatus, Correction, CorrectionStatus, Evidence, Rating
from factcheck.models import Organisation
from factcheck.templatetags.links import web_url

CHAIN_CHECK_SECONDS = 60


def published_claims():
    return (
        Claim.objects.filter(status=ClaimStatus.PUBLISHED)
        .select_related("case", "quotation__version__source", "verdict")
        # The versions' texts (up to megabytes each) are not shown: never fetch them.
        .defer("quotation__version__extracted_text", "quotation__version__ocr_layout")
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=Evidence.objects.select_related("quotation__version__source")
                .defer("quotation__version__extracted_text", "quotation__version__ocr_layout")
                .order_by("id"),
            ),
            Prefetch(
                "corrections",
                queryset=with_superseding_entry(
                    Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
                )
                .select_related("old_verdict", "new_verdict")
                .order_by("published_at"),
            ),
        )
        .order_by("quotation__start", "id")
    )


def public_case(slug):
    """A case with its published claims; 404 when it has none (nothing to show yet)."""
    case = get_object_or_404(Case.objects.select_related("source_under_check"), slug=slug)
    claims = list(published_claims().filter(case=case))
    if not claims:
        raise Http404(_("This case has no published fact-checks."))
    return case, claims


def public_claim(slug, pk):
    return get_object_or_404(published_claims(), case__slug=slug, pk=pk)


def with_superseding_entry(corrections):
    """
    ``corrections`` with the first published entry that supersedes each:
    ``superseded_in`` (its number in the log) and ``superseded_by_id``; None
    for an entry that still stands.
    """
    superseding = Correction.objects.filter(
        supersedes=OuterRef("pk"), status=CorrectionStatus.PUBLISHED
    ).order_by("sequence")
    return corrections.annotate(
        superseded_in=Subquery(superseding.values("sequence")[:1]),
        superseded_by_id=Subquery(superseding.values("pk")[:1]),
    )


def published_corrections(*, case_slug="", kind=""):
    corrections = with_superseding_entry(
        Correction.objects.filter(status=CorrectionStatus.PUBLISHED)
    ).select_related("case", "claim", "old_verdict", "new_verdict", "supersedes")
    if case_slug:
        corrections = corrections.filter(case__slug=case_slug)
    if kind:
        corrections = corrections.filter(kind=kind)
    return corrections.order_by("-sequence")


def shown_on_every_page():
    """
    What every public page shows besides its own rows, for its ETag, in one
    query: the corrections chain's head and when it was published, when a
    case, a rating or the organisation was last changed, and how many ratings
    there are (deleting one changes no date).
    """

    def latest_change(model):
        return Subquery(model.objects.order_by("-updated_at").values("updated_at")[:1])

    head = Correction.objects.filter(status=CorrectionStatus.PUBLISHED).order_by("-sequence")
    state = Rating.objects.aggregate(
        ratings=Count("id"),
        ratings_changed=Max("updated_at"),
        # One row however many ratings: each subquery gives the same value on every row.
        head=Max(Subquery(head.values("sha256")[:1])),
        head_published=Max(Subquery(head.values("published_at")[:1])),
        cases_changed=Max(latest_change(Case)),
        organisation_changed=Max(latest_change(Organisation)),
    )
    if not state["ratings"]:
        # No rows to aggregate over, so the subqueries gave nothing: ask for each.
        state |= {
            "head": chain_head(),
            "head_published": log_last_modified(),
            "cases_changed": Case.objects.aggregate(last=Max("updated_at"))["last"],
            "organisation_changed": Organisation.objects.aggregate(last=Max("updated_at"))["last"],
        }
    # An empty log has no head row: its head is GENESIS, as chain_head() says.
    state["head"] = state["head"] or GENESIS
    return state


def chain_status():
    """The chain's head hash and whether it verifies (cached briefly: it walks every entry)."""
    head = chain_head()
    return {"head": head, "verifies": chain_verifies(head), "empty": head == GENESIS}


def chain_verifies(head):
    """Whether the chain that ends at ``head`` verifies (kept a minute: it walks every entry)."""
    return cache.get_or_set(
        f"corrections-chain-verifies:{head}", lambda: verify_chain().ok, CHAIN_CHECK_SECONDS
    )


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
    # Search engines show this address as a link: only ever a web address.
    if appearance_url := web_url(source.url):
        appearance["url"] = appearance_url
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
        "itemReviewed": {"@type": "Claim", "appearance": [appearance]},
    }
    # The case's language is the review's and the claim's (it is the piece's by default).
    if language := claim.case.language_tag:
        review["inLanguage"] = language
        review["itemReviewed"]["inLanguage"] = language
    # Who made the claim, when anyone is named: an empty name is worse than none.
    if claimant := claim.claimant or source.publisher:
        review["itemReviewed"]["author"] = {"@type": "Organization", "name": claimant}
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
    # Safe: every <, > and & is a JSON escape above, so nothing can close the element.
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308


def organisation():
    return Organisation.current()


def web_annotation(quotation, *, annotation_id, body, motivation="assessing"):
    """A quotation as a W3C Web Annotation, so annotation tools can anchor it on the source."""
    version = quotation.version
    return {
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "id": annotation_id,
        "type": "Annotation",
        "motivation": motivation,
        "body": {"type": "TextualBody", "value": body, "format": "text/plain"},
        "target": {
            "source": version.source.url or f"urn:sha256:{version.sha256}",
            "selector": [
                {
                    "type": "TextQuoteSelector",
                    "exact": quotation.exact,
                    "prefix": quotation.prefix,
                    "suffix": quotation.suffix,
                },
                {"type": "TextPositionSelector", "start": quotation.start, "end": quotation.end},
            ],
        },
    }


def case_export(case, claims, *, absolute):
    """A published case for other tools: claims, verdicts, evidence and Web Annotations."""
    exported = []
    for claim in claims:
        claim_url = absolute(claim.get_public_url())
        retraction = claim.retraction
        exported.append(
            {
                "id": claim.pk,
                "url": claim_url,
                "statement": claim.statement,
                "claimant": claim.claimant,
                # A retracted fact-check stands by no verdict.
                "verdict": claim.verdict.label if claim.verdict and not retraction else None,
                "retracted": absolute(retraction.get_absolute_url()) if retraction else None,
                "rationale": claim.rationale,
                "published_at": claim.published_at.isoformat(),
                "made_in": web_annotation(
                    claim.quotation,
                    annotation_id=f"{claim_url}#made-in",
                    body=claim.statement,
                    motivation="highlighting",
                ),
                "evidence": [
                    {
                        "stance": item.stance,
                        "note": item.note,
                        "source": {
                            "title": item.quotation.version.source.title,
                            "publisher": item.quotation.version.source.publisher,
                            "url": item.quotation.version.source.url,
                            "version_sha256": item.quotation.version.sha256,
                        },
                        "annotation": web_annotation(
                            item.quotation,
                            annotation_id=f"{claim_url}#evidence-{item.pk}",
                            body=_("%(stance)s: %(statement)s")
                            % {"stance": item.get_stance_display(), "statement": claim.statement},
                        ),
                    }
                    for item in claim.evidence.all()
                ],
                "corrections": [
                    absolute(correction.get_absolute_url())
                    for correction in claim.corrections.all()
                ],
            }
        )
    return {
        "case": case.title,
        "slug": case.slug,
        "piece_under_check": case.source_under_check.title,
        "organisation": organisation().name,
        "claims": exported,
    }


def page_etag(request, *parts):
    """
    An ETag for a public page: its address, what it shows (``parts``), the
    query string, the language it is in, and who is looking (a logged-in
    reader sees their own menu, with its counts).
    The address keeps one page's tag from answering for another (an entry of
    the log that does not exist is a 404, not a 304 with the log's tag).
    """
    import hashlib

    from factcheck.context_processors import menu_counts

    key = "|".join(
        [
            request.path,
            *(str(part) for part in parts),
            request.META.get("QUERY_STRING", ""),
            # The same address answers in each reader's language: a browser holding
            # the English page must not be told its copy still holds for Spanish.
            get_language() or "",
            str(getattr(request.user, "pk", None)),
        ]
    )
    # A logged-in reader's menu counts what waits for them: a new count is a new page.
    if counts := menu_counts(request):
        key += "|" + repr(sorted(counts.items()))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def log_last_modified():
    return Correction.objects.filter(status=CorrectionStatus.PUBLISHED).aggregate(
        last=Max("published_at")
    )["last"]
