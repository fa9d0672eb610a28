import sys

from django.conf import settings
from django.contrib.auth.decorators import login_not_required, permission_required
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig, ValidationError
from django.db import connection
from django.db.models import Min, Q
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import last_modified, require_POST
from django.views.i18n import JavaScriptCatalog
from django_tasks_db.models import DBTaskResult, get_date_max

from factcheck.database_outage import database_unavailable_response, is_database_unavailable
from factcheck.http import plain_answer
from factcheck.pagination import Paginator
from factcheck.preferences import (
    LanguageForm,
    preferences_set_language,
    remember_language,
    set_language_cookie,
)
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


def _back_to(request, url):
    """``url`` (the form's ``next``, else the referrer) if it is a page of this site, else home."""
    for candidate in (url, request.headers.get("referer", "")):
        if candidate and url_has_allowed_host_and_scheme(
            candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return candidate
    # A reader who is not signed in has no desk: their home is the public log.
    return reverse("home" if request.user.is_authenticated else "claims:corrections_log")


def _language_refused(request, messages):
    message = " ".join(messages) or _("Choose a language.")
    if request.htmx:
        return plain_answer(message, 400)
    return render(request, "refused.html", {"exception": message}, status=400)


def _set_language(request):
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return _language_refused(request, form.errors.get("language", []))
    language = form.cleaned_data["language"]
    if request.user.is_authenticated:
        try:
            preferences_set_language(user=request.user, language=language)
        except ValidationError as refused:
            return _language_refused(request, refused.messages)
        remember_language(request, language)
    url = _back_to(request, form.cleaned_data["next"])
    if request.htmx:
        # The whole page changes language: htmx loads it, not a part of it.
        response = HttpResponse(status=204, headers={"HX-Redirect": url})
    else:
        response = HttpResponseRedirect(url)
    set_language_cookie(response, language)
    return response


@login_not_required
@csrf_exempt
@require_POST
def set_language_view(request):
    """
    The language menu. A signed-in user's choice is kept on their account; anyone
    else's in the language cookie alone. Then back to the page the menu was on.

    The CSRF check is for signed-in users, whose account it writes to: a public
    page carries no token (it is the same page for every reader, and cached), and
    a forged post could only change a reader's language cookie.
    """
    if request.user.is_authenticated:
        return csrf_protect(_set_language)(request)
    return _set_language(request)


class LanguageCatalog(JavaScriptCatalog):
    """
    Django's JavaScript catalogue in the language its address names
    (``?language=``, as base.html writes it: the page's own, which a public page
    may take from its case), else in the request's.
    """

    def get(self, request, *args, **kwargs):
        language = request.GET.get("language", "")
        if language not in dict(settings.LANGUAGES):
            return super().get(request, *args, **kwargs)
        with translation.override(language):
            return super().get(request, *args, **kwargs)


#: When this process started: the catalogues change only with a deployment (they are
#: compiled at set-up), so a browser asks again with If-Modified-Since and gets a 304.
CATALOGUES_LOADED = timezone.now()

javascript_catalog_view = login_not_required(
    last_modified(lambda request, **kwargs: CATALOGUES_LOADED)(LanguageCatalog.as_view())
)


@login_not_required
def healthz_view(request):
    """
    "ok" from a running app server, without touching the database: for load
    balancers' health checks (and the page benchmark's floor).
    """
    return HttpResponse("ok", content_type="text/plain")


def oldest_waiting_task_seconds():
    """
    How long the oldest task that could run now has waited, in seconds (0 for
    none): since it was enqueued, or for one deferred, since it fell due.
    """
    now = timezone.now()
    ready = DBTaskResult.objects.ready()
    oldest = ready.aggregate(
        enqueued=Min("enqueued_at", filter=Q(run_after=get_date_max())),
        due=Min("run_after", filter=~Q(run_after=get_date_max())),
    )
    since = [moment for moment in oldest.values() if moment is not None]
    return max(0.0, (now - min(since)).total_seconds()) if since else 0.0


@login_not_required
def readyz_view(request):
    """
    Readiness, for an orchestrator deciding whether to send traffic here: the
    database answers, the cache keeps a value, and no task has waited longer than
    ``READINESS_MAX_TASK_WAIT_SECONDS`` (a worker is running and keeping up).
    200 or 503, with JSON saying what was checked and what failed.
    """
    checks, failed = {}, []
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        checks["database"] = "ok"
    except Exception as error:  # any failure means not ready; say which
        checks["database"] = f"failed: {type(error).__name__}"
        failed.append("database")
    try:
        probe = f"readyz:{timezone.now().timestamp()}"
        cache.set(probe, "ok", 10)
        if cache.get(probe) != "ok":
            raise RuntimeError("a value written was not read back")
        cache.delete(probe)
        checks["cache"] = "ok"
    except Exception as error:  # likewise
        checks["cache"] = f"failed: {type(error).__name__}: {error}"[:200]
        failed.append("cache")
    if "database" not in failed:
        limit = settings.READINESS_MAX_TASK_WAIT_SECONDS
        try:
            waited = oldest_waiting_task_seconds()
        except Exception as error:  # the task table unreadable: not ready either
            checks["tasks"] = f"failed: {type(error).__name__}"
            failed.append("tasks")
        else:
            checks["tasks"] = {
                "oldest_waiting_seconds": round(waited, 1),
                "limit_seconds": limit,
            }
            if waited > limit:
                failed.append("tasks")
    return JsonResponse(
        {"status": "failed" if failed else "ok", "failed": failed, "checks": checks},
        status=503 if failed else 200,
        headers={"Cache-Control": "no-store"},
    )


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
            _(
                "What you sent is over %(limit)s, the most a form can carry; nothing was saved. "
                "To add a text this long, save it as a file and upload that (up to %(most)s)."
            )
            % {"limit": limit, "most": most},
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
