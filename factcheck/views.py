import sys

from django.conf import settings
from django.contrib.auth.decorators import login_not_required, permission_required
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.views import defaults

from factcheck.database_outage import database_unavailable_response, is_database_unavailable
from factcheck.http import plain_answer
from factcheck.pagination import Paginator
from factcheck.roles import claim_ids_visible_to
from factcheck.search import search

RESULTS_PER_PAGE = 20
#: A search reads this much of what was typed (a whole sentence is plenty to find a passage).
QUERY_CHARS = 200


@permission_required("sources.view_source", raise_exception=True)
def search_view(request):
    typed = request.GET.get("q", "").strip()
    query = typed[:QUERY_CHARS]
    if len(typed) > QUERY_CHARS and " " in query:
        query = query.rsplit(" ", 1)[0]  # whole words: a cut word would match nothing
    page = None
    if query:
        results = search(query, claim_ids=claim_ids_visible_to(request.user))
        results.expect_page(request.GET.get("page"), RESULTS_PER_PAGE)
        page = Paginator(results, RESULTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"query": query, "page": page, "shortened": query != typed}
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


def bad_request(request, exception):
    """
    ``handler400``: a form whose fields are over ``DATA_UPLOAD_MAX_MEMORY_SIZE``
    (a very long pasted text) gets 413 and a sentence saying what to do, in
    plain text, which the page shows above the form it leaves as it was
    (static/js/request_errors.js); anything else gets Django's own 400.
    """
    if isinstance(exception, RequestDataTooBig):
        limit = filesizeformat(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        most = filesizeformat(settings.SOURCE_UPLOAD_MAX_BYTES)
        return plain_answer(
            f"What you sent is over {limit}, the most a form can carry; nothing was saved. "
            f"To add a text this long, save it as a file and upload that (up to {most}).",
            413,
        )
    return defaults.bad_request(request, exception)


def server_error(request):
    """
    ``handler500``: 503 for a lost database (factcheck/database_outage.py), Django's
    own 500 page for anything else.
    """
    if is_database_unavailable(sys.exc_info()[1]):
        return database_unavailable_response()
    return defaults.server_error(request)
