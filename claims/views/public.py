"""
The public site: published cases and claims, their JSON exports, and the
corrections log (its pages, entries and JSON; its feeds are claims/feeds.py,
with this log's caching).
"""

from functools import wraps
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_not_required
from django.core.paginator import InvalidPage
from django.db.models import Count, Max
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition, require_safe

from claims import public as public_reads
from claims.models import Case, Claim, ClaimStatus, Correction
from claims.selectors import published_evidence_page, with_evidence_pages
from factcheck.http import found_or_404
from factcheck.pagination import Paginator
from factcheck.public_pages import public_page
from sources.page_images import page_image_etag, page_image_response

CORRECTIONS_PER_PAGE = 20


def _shown_on_every_page(request):
    """``public_reads.shown_on_every_page()``, read once for a request's ETag and date."""
    if not hasattr(request, "_shown_on_every_page"):
        request._shown_on_every_page = public_reads.shown_on_every_page()
    return request._shown_on_every_page


def _log_etag(request, *args, **kwargs):
    # Whether the chain verifies is shown too: an entry altered in the database
    # leaves the head as it was, and the page kept under its tag would still say it does.
    state = _shown_on_every_page(request)
    return public_reads.page_etag(request, "log", state, public_reads.chain_verifies(state["head"]))


def _log_last_modified(request, *args, **kwargs):
    # The newest entry, or a case's title, a rating or the organisation shown with it.
    state = _shown_on_every_page(request)
    changed = ("head_published", "cases_changed", "ratings_changed", "organisation_changed")
    return max((state[name] for name in changed if state[name]), default=None)


log_conditions = public_page(etag=_log_etag, last_modified=_log_last_modified)


def in_case_language(view):
    """
    Serve a case's public page (``view(request, slug, …)``) in the case's
    language when the site is offered in it, else in the reader's: a Spanish
    fact-check reads as one, whatever the reader's browser prefers. Outside the
    page's conditions and cache (``public_page``), so that its ETag and its
    stored copy are those of the language it is served in.
    """

    @wraps(view)
    def view_in_case_language(request, slug, *args, **kwargs):
        language = _case_page_language(slug)
        if language is None:
            return view(request, slug, *args, **kwargs)
        with translation.override(language):
            request.LANGUAGE_CODE = translation.get_language()
            response = view(request, slug, *args, **kwargs)
        # LocaleMiddleware would name the reader's language, the override being over.
        response.headers["Content-Language"] = request.LANGUAGE_CODE
        return response

    return view_in_case_language


def _case_page_language(slug):
    """The site's language for the case ``slug``'s pages, or None to follow the reader."""
    code = Case.objects.filter(slug=slug).values_list("language", flat=True).first()
    if not code:
        return None
    try:
        # A case in Portuguese is served in the site's Portuguese (pt-br).
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def _claim_etag(request, slug, pk):
    claim = (
        Claim.objects.filter(pk=pk, case__slug=slug)
        .annotate(
            cited_changed=Max("evidence__quotation__version__source__updated_at"),
            # An evidence quotation drawn on its page after the page was stored shows then.
            pages_drawn=Max("evidence__quotation__page_images__made_at"),
        )
        .values(
            "updated_at",
            "status",
            "verdict_id",
            "quotation__version__source__updated_at",
            "cited_changed",
            "pages_drawn",
        )
        .first()
    )
    return public_reads.page_etag(request, "claim", pk, claim, public_reads.shown_on_every_page())


@login_not_required
@log_conditions
def corrections_log_view(request):
    filters = {"case_slug": request.GET.get("case", ""), "kind": request.GET.get("kind", "")}
    if filters["kind"] not in Correction.Kind.values:
        filters["kind"] = ""
    cases = list(Case.objects.filter(corrections__status="published").distinct().order_by("title"))
    # As the menu shows: a case the log has no entry for is no filter (every entry).
    if filters["case_slug"] not in {case.slug for case in cases}:
        filters["case_slug"] = ""
    page = Paginator(public_reads.published_corrections(**filters), CORRECTIONS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {
        "page": page,
        "chain": public_reads.chain_status(),
        "organisation": public_reads.organisation(),
        "cases": cases,
        "kinds": Correction.Kind.choices,
        "case_filter": filters["case_slug"],
        "kind_filter": filters["kind"],
        "extra_query": urlencode(
            {
                name: value
                for name, value in (("case", filters["case_slug"]), ("kind", filters["kind"]))
                if value
            }
        ),
    }
    return render(request, "claims/corrections_log.html", context)


@login_not_required
@log_conditions
def correction_detail_view(request, pk):
    correction = get_object_or_404(
        public_reads.published_corrections().select_related("approved_by"), pk=pk
    )
    # Only published entries: a draft that will supersede this one is not public yet.
    superseded_by = public_reads.published_corrections().filter(supersedes=correction)
    return render(
        request,
        "claims/correction_detail.html",
        {
            "correction": correction,
            "superseded_by": superseded_by.order_by("sequence"),
            "organisation": public_reads.organisation(),
        },
    )


def _entry_json(request, correction):
    return {
        "id": correction.pk,
        "sequence": correction.sequence,
        "url": request.build_absolute_uri(correction.get_absolute_url()),
        "kind": correction.kind,
        "case": correction.case.slug,
        "claim": correction.claim_id,
        "what_was_wrong": correction.what_was_wrong,
        "what_is_right": correction.what_is_right,
        "reason": correction.reason,
        "old_verdict": correction.old_verdict.label if correction.old_verdict else None,
        "new_verdict": correction.new_verdict.label if correction.new_verdict else None,
        "supersedes": correction.supersedes_id,
        "published_at": correction.published_at.isoformat(),
        "previous_sha256": correction.previous_sha256,
        "sha256": correction.sha256,
    }


@login_not_required
@log_conditions
def corrections_json_view(request):
    entries = Paginator(public_reads.published_corrections(), 100)
    try:
        page = entries.page(request.GET.get("page") or 1)
    except InvalidPage:
        # A program reading page after page stops at a 404, not at the last page again.
        return JsonResponse(
            {"error": f"There is no such page: the listing has {entries.num_pages}."},
            status=404,
        )
    chain = public_reads.chain_status()
    return JsonResponse(
        {
            "organisation": public_reads.organisation().name,
            "head_sha256": chain["head"],
            "chain_verifies": chain["verifies"],
            "count": page.paginator.count,
            "page": page.number,
            "pages": page.paginator.num_pages,
            "entries": [_entry_json(request, correction) for correction in page.object_list],
        },
        json_dumps_params={"ensure_ascii": False},
    )


def _case_etag(request, slug):
    claims = Claim.objects.filter(case__slug=slug, status=ClaimStatus.PUBLISHED)
    latest = claims.aggregate(
        last=Max("updated_at"),
        # Distinct: the join to the evidence repeats each claim.
        count=Count("id", distinct=True),
        piece_changed=Max("case__source_under_check__updated_at"),
        # The export names each cited source (its title, publisher and address).
        cited_changed=Max("evidence__quotation__version__source__updated_at"),
    )
    return public_reads.page_etag(request, "case", slug, latest, public_reads.shown_on_every_page())


@login_not_required
@in_case_language
@public_page(etag=_case_etag)
def public_case_view(request, slug):
    case, claims = public_reads.public_case(slug)
    case_corrections = public_reads.published_corrections(case_slug=slug).filter(claim__isnull=True)
    return render(
        request,
        "public/case.html",
        {
            "case": case,
            "claims": claims,
            "case_corrections": case_corrections,
            "organisation": public_reads.organisation(),
        },
    )


@login_not_required
@in_case_language
@public_page(etag=_case_etag)
def public_case_export_view(request, slug):
    case, claims = public_reads.public_case(slug)
    return JsonResponse(
        public_reads.case_export(case, claims, absolute=request.build_absolute_uri),
        json_dumps_params={"ensure_ascii": False, "indent": 2},
    )


@login_not_required
@in_case_language
@public_page(etag=_claim_etag)
def public_claim_view(request, slug, pk):
    claim = with_evidence_pages(public_reads.public_claim(slug, pk))
    organisation = public_reads.organisation()
    # The page's one address, whatever query a link added (utm_source=…).
    canonical_url = request.build_absolute_uri(claim.get_public_url())
    review = public_reads.claim_review(
        claim,
        claim_url=canonical_url,
        organisation=organisation,
        scale=public_reads.rating_scale(),
    )
    return render(
        request,
        "public/claim.html",
        {
            "claim": claim,
            "case": claim.case,
            "organisation": organisation,
            "canonical_url": canonical_url,
            "json_ld": public_reads.json_ld(review),
        },
    )


def _evidence_page(request, slug, pk, quotation_pk, page):
    # Read once for the conditions and the answer.
    if not hasattr(request, "_evidence_page"):
        request._evidence_page = found_or_404(published_evidence_page, slug, pk, quotation_pk, page)
    return request._evidence_page


def _evidence_page_etag(request, slug, pk, quotation_pk, page):
    return page_image_etag(_evidence_page(request, slug, pk, quotation_pk, page))


def _evidence_page_made(request, slug, pk, quotation_pk, page):
    return _evidence_page(request, slug, pk, quotation_pk, page).made_at


@login_not_required
@require_safe
@condition(etag_func=_evidence_page_etag, last_modified_func=_evidence_page_made)
def public_evidence_page_view(request, slug, pk, quotation_pk, page):
    """
    A page drawn with a quotation that a published claim relies on, as its
    public page shows it; 404 for any other. The image never changes, but the
    claim may be withdrawn: caches keep it and ask again each time, which the
    ETag makes a 304 while it is still public.
    """
    response = page_image_response(_evidence_page(request, slug, pk, quotation_pk, page))
    patch_cache_control(response, public=True, no_cache=True)
    return response
