"""
The desk's pages: cases and their claims, a claim's evidence, reviewers and
discussion, the reviewer's sign-off page and My reviews.
"""

import functools
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from claims.figures import missing_figures
from claims.forms import (
    AssignForm,
    CaseForm,
    ClaimCreateForm,
    ClaimForm,
    CommentForm,
    DecisionForm,
    EvidenceForm,
    EvidenceQuoteForm,
    PassageFinderForm,
)
from claims.models import Case, Claim, ClaimStatus, Evidence, ReviewAssignment
from claims.selectors import (
    case_claim_index,
    case_filter_choices,
    case_in_reach,
    case_list,
    case_marked_part,
    case_with_piece_in_reach,
    claim_at,
    claim_for_page,
    claim_history,
    claim_rows_key,
    claim_status_summary,
    claims_for_rows,
    claims_reviewed_by,
    evidence_reader,
    quotations_for_evidence,
    reviews_for,
    sources_for_evidence,
    with_evidence_pages,
)
from claims.services import (
    EDITABLE_FIELDS,
    READ_ONLY_STATES,
    EditConflict,
    case_create,
    case_set_language,
    claim_create_from_selection,
    claim_flags_clear,
    claim_submit_for_review,
    claim_update,
    comment_add,
    evidence_add,
    evidence_add_from_selection,
    evidence_remove,
    review_decide,
    review_refusal,
    reviewer_assign,
)
from claims.workflow import (
    Action,
    allowed_actions,
    claim_content,
    claim_digest,
    claim_transition,
    contributors_since_draft,
    own_work_refusal,
)
from factcheck.http import found_or_404, id_or_none
from factcheck.languages import LANGUAGE_CHOICES
from factcheck.pagination import Paginator
from factcheck.roles import claims_visible_to, is_editor, sees_every_case
from sources.forms import LanguageForm
from sources.highlighting import offset_in_text
from sources.models import Source
from sources.selectors import passage_occurrences

CASES_PER_PAGE = 20
#: Claims listed beside the article at a time; the article marks all of them.
CLAIMS_PER_PAGE = 50
REVIEWS_PER_PAGE = 25
#: Matches the case page's passage finder lists; more, and the words are too common.
PASSAGE_MATCHES_SHOWN = 20


@permission_required("claims.view_case", raise_exception=True)
def case_list_view(request):
    page = Paginator(case_list(request.user), CASES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "claims/case_list.html", {"page": page})


def _filtered(case, rows, *, status, verdict, reviewer):
    if status:
        rows = [row for row in rows if row["status"] == status]
    if verdict:
        rows = [row for row in rows if str(row["verdict_id"]) == verdict]
    if reviewer:
        # Anything but an id the database can hold is a reviewer of nothing.
        reviewer_id = id_or_none(reviewer)
        reviewed = claims_reviewed_by(case, reviewer_id) if reviewer_id else set()
        rows = [row for row in rows if row["pk"] in reviewed]
    return rows


@permission_required("claims.view_case", raise_exception=True)
def case_detail_view(request, slug, create_form=None, status_code=200):
    case, version = found_or_404(case_with_piece_in_reach, slug, request.user)
    filters = {
        "status": request.GET.get("status", ""),
        "verdict": request.GET.get("verdict", ""),
        "reviewer": request.GET.get("reviewer", ""),
    }
    if filters["status"] not in ClaimStatus.values:
        filters["status"] = ""
    # The part of the piece being read; a passage picked without a mouse opens its own.
    at = offset_in_text(request.GET.get("at") or request.GET.get("start"))
    index = case_claim_index(case, request.user)
    page = Paginator(_filtered(case, index, **filters), CLAIMS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {
        "case": case,
        "page": page,
        # Called by the template only when the rows it keeps (claim_rows_key) have changed.
        "claims": functools.partial(claims_for_rows, case, page.object_list),
        "claim_rows_key": claim_rows_key(case, page.object_list),
        "filtered": any(filters.values()),
        # Paging through the claims without JavaScript stays in the same part.
        "filter_query": urlencode(
            {name: value for name, value in filters.items() if value} | ({"at": at} if at else {})
        ),
        "at": at,
        # A page of the list swapped in by htmx takes the focus (a keyboard user
        # pressed Previous or Next, which the swap removed); a filter change does not.
        "focus_list": bool(request.htmx and "page" in request.GET),
        **filters,
    }
    if request.htmx and request.htmx.target == "claim-list":
        return render(request, "claims/case_detail.html#claim-list", context)

    every_claim = sees_every_case(request.user)
    # Without a mouse: words found in the piece, then a match picked into the claim form.
    # An emptied box is no search: what it found before goes, with no reproach.
    finder = PassageFinderForm(request.GET if request.GET.get("passage") else None)
    occurrences = []
    if version and version.is_ready and finder.is_valid():
        occurrences = passage_occurrences(
            version, finder.cleaned_data["passage"], limit=PASSAGE_MATCHES_SHOWN
        )
    create_form = create_form or ClaimCreateForm.for_passage(version, request.GET)
    context |= {
        "version": version,
        "finder": finder,
        "occurrences": occurrences,
        "more_not_shown": len(occurrences) == PASSAGE_MATCHES_SHOWN,
        "create_form": create_form or ClaimCreateForm(),
        "can_add_claim": request.user.has_perm("claims.add_claim"),
        # Nothing picked, found or sent: the piece and its blank forms can be stored.
        "reader_is_blank": create_form is None and not finder.is_bound,
    }
    if request.htmx and request.htmx.target in ("passage-results", "claim-create"):
        return render(request, f"claims/case_detail.html#{request.htmx.target}", context)

    # What the filter can show; a reviewer's index holds only their claims, and the
    # summary above counts them all.
    status_choices = claim_status_summary(case, index=index)
    context |= {
        "part": case_marked_part(case, version, index, at=at)
        if version and version.is_ready
        else None,
        "summary": status_choices if every_claim else claim_status_summary(case),
        "status_choices": status_choices,
        "language_choices": LANGUAGE_CHOICES,
        **case_filter_choices(case, reviewers=every_claim),
    }
    return render(request, "claims/case_detail.html", context, status=status_code)


@require_http_methods(["GET", "POST"])
@permission_required("claims.add_claim", raise_exception=True)
def claim_create_view(request, slug):
    """A claim from a selection of the piece under check; its quotation is the selection."""
    if request.method == "GET":
        # The address a refused claim's page shows, opened again: the case's page.
        return redirect(get_object_or_404(Case, slug=slug))
    case = get_object_or_404(Case.objects.select_related("source_under_check"), slug=slug)
    form = ClaimCreateForm(request.POST)
    version = case.source_under_check.latest_version
    if form.is_valid() and form.cleaned_data["version"] and version is not None:
        # Quoted from the version the page showed: one replaced since is refused, saying so.
        version = (
            case.source_under_check.versions.filter(number=form.cleaned_data["version"]).first()
            or version
        )
    if form.is_valid() and version is not None:
        try:
            claim = claim_create_from_selection(
                case=case,
                version=version,
                start=form.cleaned_data["start"],
                end=form.cleaned_data["end"],
                selected_text=form.cleaned_data["selected_text"],
                statement=form.cleaned_data["statement"],
                claimant=form.cleaned_data["claimant"],
                author=request.user,
            )
        except ValidationError as invalid:
            if getattr(invalid, "code", None) == "selection":
                form.forget_selection()
            form.add_error(None, invalid)
        else:
            messages.success(request, _("Claim created. Add its evidence, verdict and reviewers."))
            return redirect(claim.get_absolute_url())
    elif version is None:
        form.add_error(None, _("The piece under check has no text to quote yet."))
    return case_detail_view(request, slug, create_form=form, status_code=422)


@permission_required("claims.add_case", raise_exception=True)
def case_create_view(request):
    form = CaseForm(request.POST or None, initial={"source_under_check": request.GET.get("source")})
    if request.method == "POST" and form.is_valid():
        case = case_create(actor=request.user, **form.cleaned_data)
        messages.success(request, _("Case “%(case)s” opened.") % {"case": case})
        return redirect(case.get_absolute_url())
    status = 422 if request.method == "POST" else 200
    return render(request, "claims/case_form.html", {"form": form}, status=status)


@require_POST
@permission_required("claims.change_case", raise_exception=True)
def case_language_view(request, slug):
    """The language of a case, which its public pages are served in and its claims searched in."""
    case = _case(request, slug)
    form = LanguageForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.refusal())
        return redirect(case.get_absolute_url())
    language = form.cleaned_data["language"]
    case_set_language(case=case, language=language, actor=request.user)
    if language:
        said = _("The case is now marked as written in %(language)s.") % {
            "language": case.get_language_display()
        }
    else:
        said = _("The case's language is now marked as not known.")
    messages.success(request, said)
    return redirect(case.get_absolute_url())


@permission_required("claims.view_reviewassignment", raise_exception=True)
def my_reviews_view(request):
    """
    The reviews awaiting the user's decision (the ones the navigation counts),
    or with ``?show=all`` every assignment: drafts not in review yet, decided
    and withdrawn ones too.
    """
    show_all = request.GET.get("show") == "all"
    page = Paginator(
        reviews_for(request.user, awaiting_only=not show_all), REVIEWS_PER_PAGE
    ).get_page(request.GET.get("page"))
    context = {"page": page, "show_all": show_all}
    return render(request, "claims/my_reviews.html", context)


def _claim_context(request, case, pk, *, claim=None, **extra):
    """The claim page's context; ``claim`` if the caller read it (``claim_at``)."""
    claim = claim or found_or_404(claim_for_page, case, pk, request.user)
    # Each quotation read in its own text's language, the statement in the case's.
    evidence_texts = [
        (item.quotation.exact, _figure_language(item.quotation.version.language or case.language))
        for item in claim.evidence.all()
    ]
    can_edit = is_editor(request.user) and claim.status not in READ_ONLY_STATES
    context = {
        "case": case,
        "claim": claim,
        "comment_form": CommentForm(),
        "actions": [
            (action, Action(action).label) for action in allowed_actions(claim, request.user)
        ],
        "missing_figures": missing_figures(
            claim.statement, evidence_texts, language=_figure_language(case.language)
        ),
        # What a reviewer signs off: it changes with the statement, verdict or evidence.
        "digest": claim_digest(claim),
        "history": claim_history(claim),
        "can_edit": can_edit,
    }
    if can_edit:
        # The page shows the editing forms only then (a published claim is read,
        # not edited), and building them costs more than the rest of the context.
        context |= {
            "form": ClaimForm(instance=claim),
            "evidence_form": EvidenceForm(claim=claim),
            "evidence_sources": functools.partial(sources_for_evidence, case),
            "assign_form": _assign_form(claim),
        }
    return context | extra


def _figure_language(code):
    # The figure check reads "" (not known) as it reads any code it does not know:
    # without words. A text in no known language was read as English before.
    return code or "en"


def _assign_form(claim):
    """
    The form to assign a reviewer, offering only those ``reviewer_assign`` accepts:
    not who wrote or changed the claim's content since draft. (A form posted back
    keeps every reviewer, so that the service says why one is refused.)
    """
    form = AssignForm(claim=claim)
    field = form.fields["reviewer"]
    field.queryset = field.queryset.exclude(pk__in=contributors_since_draft(claim))
    return form


def _case(request, slug):
    """The case, if ``request.user`` may open it (``cases_visible_to``); else 404."""
    return found_or_404(case_in_reach, slug, request.user)


def _submit(request, case, claim, *, form, form_key, partial, action, done, kept=dict):
    """
    Run ``action`` with a valid form's data and render ``partial`` (see
    ``_changed``, with the message ``done``); a refusal shows next to the form,
    which keeps what the user typed (422), with the context ``kept()`` gives for
    what the form alone does not hold.
    """
    if form.is_valid():
        try:
            action(form.cleaned_data)
        except ValidationError as invalid:
            form.add_error(None, invalid)
    if not form.errors:
        return _changed(request, case, claim, partial, done=done)
    context = _claim_context(request, case, claim.pk, **{form_key: form} | kept())
    return _partial(request, partial, context, _refusal_status(form))


def _changed(request, case, claim, partial, done="", **extra):
    """
    The answer to a change made to ``claim`` (as read before the change), with
    the message ``done``: for htmx, the redrawn ``partial`` with the page's
    header and history beside it; or, when the claim's status moved meanwhile
    (an approval of the earlier content no longer holds, a new reviewer has yet
    to approve), the whole page again, saying so. Without htmx, the page again.
    """
    status = Claim.objects.filter(pk=claim.pk).values_list("status", flat=True).get()
    url = reverse("claims:claim_detail", args=[case.slug, claim.pk])
    if status != claim.status:
        label = ClaimStatus(status).label.lower()
        if status == ClaimStatus.IN_REVIEW:
            done = _(
                "Saved. The claim is now %(status)s: every assigned reviewer must approve its "
                "current content before it can be published."
            ) % {"status": label}
        else:
            done = _("Saved. The claim is now %(status)s.") % {"status": label}
    elif request.htmx and partial != "claim-fields":
        # The redrawn part shows the change itself, and has no place for a message,
        # which would wait for the next whole page.
        done = ""
    if done:
        messages.success(request, done)
    if not request.htmx:
        return redirect(url)
    if status != claim.status:
        return HttpResponseClientRedirect(url)
    context = _claim_context(request, case, claim.pk, refresh_around=True, **extra)
    return _partial(request, partial, context)


def _refusal_status(form):
    """409 when the claim's state refused the change (it became read-only meanwhile), else 422."""
    return 409 if form.has_error(NON_FIELD_ERRORS, "read_only") else 422


def _partial(request, name, context, status=200):
    """
    The claim page's part ``name`` for htmx, else the whole page. A conflict
    (409: the claim moved on since the page was read) redraws the page's header
    and history beside the part, so that they do not contradict its message.
    """
    if request.htmx and status == 409:
        context["refresh_around"] = True
    template = f"claims/claim_detail.html#{name}" if request.htmx else "claims/claim_detail.html"
    return render(request, template, context, status=status)


@permission_required("claims.view_claim", raise_exception=True)
def claim_detail_view(request, slug, pk):
    claim = found_or_404(claim_at, slug, pk, request.user)
    return render(
        request, "claims/claim_detail.html", _claim_context(request, claim.case, pk, claim=claim)
    )


@require_POST
@permission_required("claims.change_claim", raise_exception=True)
def claim_edit_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    form = ClaimForm(request.POST, instance=Claim.objects.get(pk=claim.pk))
    if not form.is_valid():
        return _partial(request, "claim-fields", _claim_context(request, case, pk, form=form), 422)
    fields = {name: form.cleaned_data[name] for name in EDITABLE_FIELDS}
    try:
        claim_update(
            claim=claim,
            editor=request.user,
            expected_version=form.cleaned_data["version"],
            **fields,
        )
    except EditConflict as conflict:
        # Keep the user's text; show theirs beside it; saving again is a deliberate choice.
        theirs = conflict.current
        typed = form.typed_fields()
        label = {name: ClaimForm.base_fields[name].label for name in EDITABLE_FIELDS}
        differs = [name for name in EDITABLE_FIELDS if getattr(theirs, name) != fields[name]]
        context = _claim_context(
            request,
            case,
            pk,
            form=ClaimForm.reopened(request.POST, current=theirs, keep=typed),
            conflict=theirs,
            # Who saved in between, and when (the audit trail's latest save), to name them.
            conflict_saved=next(
                (event for event in claim_history(theirs) if event.action == "claim.update"), None
            ),
            conflict_fields=[
                (label[name], getattr(theirs, name), fields[name])
                for name in differs
                if name in typed
            ],
            conflict_taken=[label[name] for name in differs if name not in typed],
        )
        return _partial(request, "claim-fields", context, 409)
    except ValidationError as invalid:
        form.add_error(None, invalid)
        context = _claim_context(request, case, pk, form=form)
        return _partial(request, "claim-fields", context, _refusal_status(form))
    return _changed(request, case, claim, "claim-fields", done=_("Claim saved."))


@permission_required("claims.change_evidence", raise_exception=True)
def quotation_search_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    return render(
        request,
        "claims/claim_detail.html#quotation-results",
        {"case": case, "claim": claim, "searched": True}
        | _quotation_search(case, request.GET.get("q", "")),
    )


def _quotation_search(case, query):
    """The evidence picker's search box and its results, for the words ``query``."""
    query = query.strip()
    results, more = quotations_for_evidence(case, query) if len(query) >= 2 else ([], False)
    return {"query": query, "results": results, "more_results": more}


@require_POST
@permission_required("claims.add_evidence", raise_exception=True)
def evidence_add_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    return _submit(
        request,
        case,
        claim,
        form=EvidenceForm(request.POST, claim=claim),
        form_key="evidence_form",
        partial="evidence",
        action=lambda data: evidence_add(claim=claim, editor=request.user, **data),
        done=_("Evidence attached."),
        # A refused attach shows the same search again, the picked quotation still picked.
        kept=lambda: _quotation_search(case, request.POST.get("q", "")),
    )


@require_POST
@permission_required("claims.delete_evidence", raise_exception=True)
def evidence_remove_view(request, slug, pk, evidence_pk):
    case = _case(request, slug)
    evidence = get_object_or_404(
        Evidence.objects.select_related("claim"), pk=evidence_pk, claim__case=case, claim_id=pk
    )
    try:
        evidence_remove(evidence=evidence, editor=request.user)
    except ValidationError as refused:
        context = _claim_context(request, case, pk, evidence_error=" ".join(refused.messages))
        return _partial(request, "evidence", context, 409)
    return _changed(request, case, evidence.claim, "evidence", done=_("Evidence removed."))


def _source_beside(request, slug, pk, source_pk):
    """The case, the claim and the source whose text is opened beside it to quote evidence."""
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    return case, claim, get_object_or_404(Source, pk=source_pk)


def _reader(case, source, *, at=0):
    reader = evidence_reader(case, source, at=at)
    if reader is None:
        # Never offered: the piece under check is what the claims are made in.
        raise Http404(_("The piece under check is not evidence for its own claims."))
    return reader


def _part_or_page(request, case, claim, name, extra):
    """
    For htmx, the claim page's part ``name`` from ``extra`` alone (it needs no
    more); otherwise the whole claim page with ``extra`` in it.
    """
    if request.htmx:
        context = {"case": case, "claim": claim} | extra
        return render(request, f"claims/claim_detail.html#{name}", context)
    context = _claim_context(request, case, claim.pk, **extra)
    return render(request, "claims/claim_detail.html", context)


@permission_required("claims.add_evidence", raise_exception=True)
def evidence_sources_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    query = request.GET.get("q", "").strip()
    found = {"source_query": query, "evidence_sources": sources_for_evidence(case, query)}
    return _part_or_page(request, case, claim, "evidence-sources", found)


@permission_required("claims.add_evidence", raise_exception=True)
def evidence_reader_view(request, slug, pk, source_pk):
    case, claim, source = _source_beside(request, slug, pk, source_pk)
    reader = _reader(case, source, at=offset_in_text(request.GET.get("at")))
    opened = {"reader": reader, "quote_form": EvidenceQuoteForm()}
    return _part_or_page(request, case, claim, "evidence-reader", opened)


@permission_required("claims.add_evidence", raise_exception=True)
def evidence_find_view(request, slug, pk, source_pk):
    """The keyboard's way to a passage of the source opened beside the claim: its words."""
    case, claim, source = _source_beside(request, slug, pk, source_pk)
    query = request.GET.get("q", "").strip()
    version = source.versions.filter(number=id_or_none(request.GET.get("version"))).first()
    passages = []
    if version is not None and version.is_ready and len(query) >= 2:
        passages = passage_occurrences(version, query, limit=PASSAGE_MATCHES_SHOWN + 1)
    context = {
        "case": case,
        "claim": claim,
        "passage_query": query,
        "passages": passages[:PASSAGE_MATCHES_SHOWN],
        "more_passages": len(passages) > PASSAGE_MATCHES_SHOWN,
    }
    return render(request, "claims/claim_detail.html#evidence-passages", context)


@require_POST
@permission_required("claims.add_evidence", raise_exception=True)
def evidence_quote_view(request, slug, pk, source_pk):
    case, claim, source = _source_beside(request, slug, pk, source_pk)
    form = EvidenceQuoteForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        version = source.versions.filter(number=data["version"]).first()
        try:
            if version is None:
                raise ValidationError(_("That version of the source is not there any more."))
            evidence_add_from_selection(
                claim=claim,
                version=version,
                start=data["start"],
                end=data["end"],
                selected_text=data["selected_text"],
                stance=data["stance"],
                note=data["note"],
                editor=request.user,
            )
        except ValidationError as refused:
            form.add_error(None, refused)
    if not form.errors:
        # The reader comes again beside the redrawn evidence, its new quotation marked.
        at = form.cleaned_data["start"]
        again = {"reader": _reader(case, source, at=at), "quote_form": EvidenceQuoteForm()}
        return _changed(request, case, claim, "evidence", reader_again=True, **again)
    # Shown in the reader, where the passage and the note are: the note as typed.
    at = offset_in_text(request.POST.get("start") or request.POST.get("passage", "").split("-")[0])
    context = _claim_context(
        request, case, pk, reader=_reader(case, source, at=at), quote_form=form
    )
    response = _partial(request, "evidence-reader", context, _refusal_status(form))
    if request.htmx:
        response = reswap(retarget(response, "#evidence-reader"), "outerHTML")
    return response


def _refused_over_unsaved_edits(request, case, claim, *, refusal):
    """
    A 409 with the claim's edit form as sent, when the page sent it along
    (``hx-include``) holding changes not saved: an action on the claim must not
    drop them. None otherwise. ``refusal`` says so, and what to do again once
    they are saved (a whole sentence, for translators).
    """
    if "version" not in request.POST:
        return None
    form = ClaimForm(request.POST, instance=Claim.objects.get(pk=claim.pk))
    if not form.typed_fields():
        return None
    messages.error(request, refusal)
    return _partial(
        request, "claim-fields", _claim_context(request, case, claim.pk, form=form), 409
    )


@require_POST
@permission_required("claims.change_claim", raise_exception=True)
def claim_flags_clear_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(Claim, pk=pk, case=case)
    refusal = _(
        "The claim's form holds changes that are not saved: save them (or reload the page to "
        "drop them), then clear the flag again."
    )
    if refused := _refused_over_unsaved_edits(request, case, claim, refusal=refusal):
        return refused
    try:
        cleared = claim_flags_clear(
            claim=claim,
            editor=request.user,
            flag_ids=[pk for pk in map(id_or_none, request.POST.getlist("flag")) if pk],
        )
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
        return _partial(request, "claim-fields", _claim_context(request, case, pk), 409)
    if not cleared:
        messages.info(request, _("Nothing you were shown is flagged any more."))
    # The header (without the flag) and the history are redrawn beside the form,
    # which holds the message: no reload that would send the focus to the top.
    return _changed(
        request,
        case,
        claim,
        "claim-fields",
        done=_("The review flag is cleared; the history keeps what it said.") if cleared else "",
    )


@require_POST
@permission_required("claims.assign_reviewer", raise_exception=True)
def reviewer_assign_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    return _submit(
        request,
        case,
        claim,
        form=AssignForm(request.POST, claim=claim),
        form_key="assign_form",
        partial="assignments",
        action=lambda data: reviewer_assign(claim=claim, editor=request.user, **data),
        done=_("Reviewer assigned."),
    )


@require_POST
@permission_required("claims.view_claim", raise_exception=True)
def claim_transition_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    action = request.POST.get("action", "")
    if action not in Action.values or action == Action.REOPEN:
        return HttpResponseBadRequest(_("Unknown action."))
    refusal = _(
        "The claim's form holds changes that are not saved: save them (or reload the page to "
        "drop them), then press “%(action)s” again."
    ) % {"action": Action(action).label}
    if refused := _refused_over_unsaved_edits(request, case, claim, refusal=refusal):
        return refused
    try:
        if action == Action.SUBMIT:
            claim_submit_for_review(claim=claim, editor=request.user)
        else:
            claim_transition(claim=claim, action=action, actor=request.user)
    except ValidationError as refused:
        # Refused by the claim's state or content; an actor who may not act is a 403
        # (NotAllowed, answered by factcheck.middleware.RefusalMiddleware).
        messages.error(request, " ".join(refused.messages))
        return _partial(request, "claim-fields", _claim_context(request, case, pk), 409)
    claim.refresh_from_db(fields=["status"])
    messages.success(
        request,
        _("%(action)s: the claim is now %(status)s.")
        % {"action": Action(action).label, "status": claim.get_status_display().lower()},
    )
    url = reverse("claims:claim_detail", args=[case.slug, claim.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@require_POST
@permission_required("claims.add_comment", raise_exception=True)
def comment_add_view(request, slug, pk):
    case = _case(request, slug)
    claim = get_object_or_404(claims_visible_to(request.user), case=case, pk=pk)
    return _submit(
        request,
        case,
        claim,
        form=CommentForm(request.POST),
        form_key="comment_form",
        partial="comments",
        action=lambda data: comment_add(claim=claim, author=request.user, body=data["body"]),
        done=_("Comment posted."),
    )


@permission_required("claims.sign_off_claim", raise_exception=True)
def review_view(request, assignment_pk):
    """The reviewer's page: exactly what they sign, and their decision."""
    assignment = get_object_or_404(
        ReviewAssignment.objects.select_related("claim__case__source_under_check"),
        pk=assignment_pk,
        reviewer=request.user,
    )
    claim = with_evidence_pages(claim_for_page(assignment.claim.case, assignment.claim_id))
    digest = claim_digest(claim)
    form = DecisionForm(initial={"digest": digest})
    status = 200
    if request.method == "POST":
        # Re-shown, the page carries the current content's digest; the decision
        # itself is checked against the digest the reviewer actually saw.
        data = request.POST.copy()
        data["digest"] = digest
        form = DecisionForm(data)
        if form.is_valid():
            try:
                review_decide(
                    assignment=assignment,
                    reviewer=request.user,
                    decision=form.cleaned_data["decision"],
                    comment=form.cleaned_data["comment"],
                    digest_seen=request.POST.get("digest", ""),
                )
            except ValidationError as invalid:
                form.add_error(None, invalid)
            else:
                messages.success(request, _("Your decision is recorded."))
                return redirect("claims:my_reviews")
        elif refusal := review_refusal(claim=claim, digest_seen=request.POST.get("digest", "")):
            # Said with the form's own errors: the page now shows other content than was read.
            form.add_error(None, refusal)
        status = 422
    context = {
        "assignment": assignment,
        "claim": claim,
        "case": claim.case,
        "digest": digest,
        "form": form,
        "content": claim_content(claim),
        # Why the reviewer may not decide (``review_decide`` refuses it), said instead of the form.
        "own_work": own_work_refusal(claim=claim, user=request.user, doing="review"),
        # Closed as read, or found closed when the decision was refused (a change meanwhile).
        "review_closed": claim.status != ClaimStatus.IN_REVIEW
        or form.has_error(NON_FIELD_ERRORS, "not_in_review"),
    }
    return render(request, "claims/review.html", context, status=status)
