from django.contrib.auth.decorators import login_not_required, permission_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render

from claims.models import Case, ClaimStatus
from claims.selectors import (
    case_claims,
    case_list,
    claim_status_summary,
    published_corrections,
    reviews_for,
)
from sources.highlighting import mark_spans

CASES_PER_PAGE = 20
REVIEWS_PER_PAGE = 25
CORRECTIONS_PER_PAGE = 20


@permission_required("claims.view_case", raise_exception=True)
def case_list_view(request):
    page = Paginator(case_list(), CASES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "claims/case_list.html", {"page": page})


@permission_required("claims.view_case", raise_exception=True)
def case_detail_view(request, slug):
    case = get_object_or_404(
        Case.objects.select_related("source_under_check", "lead_editor"), slug=slug
    )
    status = request.GET.get("status", "")
    if status not in ClaimStatus.values:
        status = ""
    all_claims = case_claims(case)
    claims = [claim for claim in all_claims if claim.status == status] if status else all_claims
    context = {"case": case, "claims": claims, "status": status}
    if request.htmx:
        return render(request, "claims/case_detail.html#claim-list", context)

    version = case.source_under_check.latest_version
    spans = [
        (claim.quotation.start, claim.quotation.end, claim)
        for claim in all_claims
        if version and claim.quotation.version_id == version.pk
    ]
    context |= {
        "version": version,
        "paragraphs": mark_spans(version.extracted_text, spans) if version else [],
        "summary": claim_status_summary(case),
    }
    return render(request, "claims/case_detail.html", context)


def my_reviews_view(request):
    page = Paginator(reviews_for(request.user), REVIEWS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "claims/my_reviews.html", {"page": page})


@login_not_required
def corrections_log_view(request):
    page = Paginator(published_corrections(), CORRECTIONS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return render(request, "claims/corrections_log.html", {"page": page})
