"""The corrections desk: drafts of corrections, their approval, publication or discarding."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from claims.corrections import (
    correction_approve,
    correction_discard,
    correction_draft,
    correction_draft_from_report,
    correction_publish,
    discarded_meanwhile,
)
from claims.forms import CorrectionForm
from claims.models import Claim, ClaimStatus, Correction, ErrorReport, ReportStatus
from factcheck.context_processors import open_reports_for
from factcheck.http import id_or_none, post_or_back_to
from factcheck.roles import is_editor


@permission_required("claims.view_correction", raise_exception=True)
def corrections_desk_view(request, form=None, status=200):
    """Drafts and approved corrections awaiting the next step, and a form for a new draft."""
    initial, report_handled = {}, None
    if report_pk := id_or_none(request.GET.get("report")):
        report = ErrorReport.objects.filter(pk=report_pk).first()
        if report and report.status == ReportStatus.OPEN:
            initial = {
                "report": report.pk,
                "case": report.case_id,
                "claim": report.claim_id,
                "what_was_wrong": report.message,
            }
        else:
            report_handled = report_pk
    elif claim_pk := id_or_none(request.GET.get("claim")):
        claim = Claim.objects.filter(pk=claim_pk, status=ClaimStatus.PUBLISHED).first()
        if claim:
            initial = {"claim": claim.pk, "case": claim.case_id}
    pending = (
        Correction.objects.exclude(status="published")
        .select_related("case", "claim__verdict", "created_by", "approved_by", "new_verdict")
        .order_by("-created_at")
    )
    context = {
        "form": form or CorrectionForm(initial=initial),
        # A link from the inbox to a report someone handled meanwhile: say so, not an empty form.
        "report_handled": report_handled,
        "pending": pending,
        "can_draft": is_editor(request.user),
        # Where corrections start: what readers reported and nobody has handled yet.
        "open_reports": open_reports_for(request),
    }
    return render(request, "claims/corrections_desk.html", context, status=status)


@permission_required("claims.add_correction", raise_exception=True)
@post_or_back_to("claims:corrections_desk")
def correction_draft_view(request):
    form = CorrectionForm(request.POST)
    if form.is_valid():
        fields = dict(form.cleaned_data)
        report_pk = fields.pop("report")
        report = ErrorReport.objects.filter(pk=report_pk).first() if report_pk else None
        try:
            if report is not None:
                correction = correction_draft_from_report(
                    report=report, editor=request.user, **fields
                )
            else:
                correction = correction_draft(editor=request.user, **fields)
        except ValidationError as invalid:
            if getattr(invalid, "code", None) == "handled":
                # Kept without the link to the report, so that saving again keeps the draft.
                form = CorrectionForm(request.POST.dict() | {"report": ""})
                form.full_clean()
                invalid = ValidationError(
                    _(
                        "%(refusal)s Your draft was not saved; save it again to keep it without "
                        "the link to the report."
                    )
                    % {"refusal": " ".join(invalid.messages)},
                    code="handled",
                )
            form.add_error(None, invalid)
        else:
            messages.success(
                request,
                _("%(kind)s drafted. A second person must approve it.")
                % {"kind": correction.get_kind_display()},
            )
            return redirect("claims:corrections_desk")
    status = 409 if form.has_error(NON_FIELD_ERRORS, "handled") else 422
    return corrections_desk_view(request, form=form, status=status)


@permission_required("claims.view_correction", raise_exception=True)
@post_or_back_to("claims:corrections_desk")
def correction_step_view(request, pk, step):
    # Published or discarded meanwhile (another tab): the step refuses it and says so.
    correction = Correction.objects.filter(pk=pk).first()
    try:
        if correction is None:
            raise discarded_meanwhile()
        if step == "approve":
            correction_approve(correction=correction, approver=request.user)
            messages.success(
                request,
                _("%(kind)s approved; an editor can publish it now.")
                % {"kind": correction.get_kind_display()},
            )
        elif step == "discard":
            correction_discard(correction=correction, editor=request.user)
            messages.success(
                request, _("%(kind)s discarded.") % {"kind": correction.get_kind_display()}
            )
        else:
            correction = correction_publish(correction=correction, editor=request.user)
            messages.success(
                request,
                _("%(kind)s published as entry %(sequence)s.")
                % {"kind": correction.get_kind_display(), "sequence": correction.sequence},
            )
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
        return corrections_desk_view(request, status=409)
    return redirect("claims:corrections_desk")
