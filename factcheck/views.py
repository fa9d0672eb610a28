from django.contrib.auth.decorators import login_not_required, permission_required
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render

from factcheck.desk_pages import desk_page
from factcheck.roles import claim_ids_visible_to
from factcheck.search import search

RESULTS_PER_PAGE = 20


@permission_required("sources.view_source", raise_exception=True)
@desk_page
def search_view(request):
    query = request.GET.get("q", "").strip()[:200]
    page = None
    if query:
        results = search(query, claim_ids=claim_ids_visible_to(request.user))
        results.expect_page(request.GET.get("page"), RESULTS_PER_PAGE)
        page = Paginator(results, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"query": query, "page": page}
    if request.htmx:
        return render(request, "search.html#results", context)
    return render(request, "search.html", context)


@login_not_required
def healthz_view(request):
    """
    "ok" from a running app server, without touching the database: for load
    balancers' health checks (and the page benchmark's floor).
    """
    return HttpResponse("ok", content_type="text/plain")
