"""Readers' error reports: the form the public pages open, and the desk's inbox."""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required, permission_required
from django.core.exceptions import ValidationError
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from claims.forms import ErrorReportForm, ReplyForm
from claims.models import Case, Claim, ErrorReport, ReportStatus
from claims.reports import TooManyReports, report_close, report_submit
from factcheck.auth import client_address
from factcheck.context_processors import open_reports_for
from factcheck.pagination import Paginator


def _local_path(request, url):
    """Only ever redirect back to a page of this site."""
    if url.startswith("/") and url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return url
    return reverse("claims:corrections_log")


@login_not_required
@require_http_methods(["GET", "POST"])
def report_error_view(request):
    if request.method == "GET":
        # The form the public pages load when a reader opens "Report an error".
        initial = {name: request.GET.get(name, "") for name in ("page_url", "case", "claim")}
        initial["page_url"] = _local_path(request, initial["page_url"])
        if "sent" in request.GET:
            # Its own page: the reader's page may come from their browser's cache,
            # which would never show a message.
            return render(request, "claims/report_error.html", {"sent": initial["page_url"]})
        template = "claims/report_error.html"
        if request.htmx:
            template += "#report-form"
        return render(request, template, {"form": ErrorReportForm(initial=initial)})
    form = ErrorReportForm(request.POST)
    if form.is_valid() and form.cleaned_data["website"]:
        # The honeypot was filled in: a bot. Say nothing useful, keep nothing.
        return HttpResponseBadRequest(_("Your report could not be accepted."))
    if form.is_valid():
        data = form.cleaned_data
        case = Case.objects.filter(slug=data["case"]).first() if data["case"] else None
        claim = (
            Claim.objects.filter(pk=data["claim"], status="published").first()
            if data["claim"]
            else None
        )
        try:
            report_submit(
                page_url=data["page_url"],
                message=data["message"],
                email=data["email"],
                address=client_address(request),
                case=case,
                claim=claim,
            )
        except TooManyReports:
            return render(
                request,
                "claims/report_error.html",
                {"form": form, "too_many": True},
                status=429,
            )
        sent = {"sent": 1, "page_url": _local_path(request, data["page_url"])}
        return redirect(f"{reverse('claims:report_error')}?{urlencode(sent)}")
    return render(request, "claims/report_error.html", {"form": form}, status=422)


@permission_required("claims.view_errorreport", raise_exception=True)
def reports_inbox_view(request, refused=None, status=200):
    """
    The open reports, newest first, or with ``?show=all`` the handled ones too;
    ``refused`` is a reply that could not be sent, kept.
    """
    show_all = request.GET.get("show") == "all"
    reports = ErrorReport.objects.select_related("case", "claim__case", "handled_by", "correction")
    open_count = open_reports_for(request)
    if not show_all:
        reports = reports.filter(status=ReportStatus.OPEN)
    page = Paginator(reports, 25).get_page(request.GET.get("page"))
    context = {"page": page, "refused": refused, "show_all": show_all, "open_count": open_count}
    return render(request, "claims/reports_inbox.html", context, status=status)


@require_POST
@permission_required("claims.change_errorreport", raise_exception=True)
def report_close_view(request, pk):
    report = get_object_or_404(ErrorReport, pk=pk)
    form = ReplyForm(request.POST)
    try:
        if not form.is_valid():
            raise ValidationError(_("Write a reply before closing the report."), code="blank")
        report_close(report=report, editor=request.user, reply=form.cleaned_data["reply"])
    except ValidationError as refused:
        kept = {
            "pk": report.pk,
            "reply": request.POST.get("reply", ""),
            "error": " ".join(refused.messages),
        }
        return reports_inbox_view(
            request, refused=kept, status=409 if getattr(refused, "code", "") == "handled" else 422
        )
    messages.success(
        request,
        _("Report closed; your reply is on its way to the reader.")
        if report.email
        else _("Report closed."),
    )
    return redirect("claims:reports_inbox")
