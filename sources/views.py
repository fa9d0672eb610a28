from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from factcheck.http import found_or_404
from factcheck.pagination import Paginator
from sources import anchoring
from sources.diffs import CHANGES_PER_PAGE, word_diff
from sources.forms import LanguageForm, QuoteFinderForm, SelectionForm, SourceForm, UploadForm
from sources.highlighting import offset_in_text
from sources.models import AnchoringStatus, Reanchoring, Source, SourceVersion
from sources.selectors import (
    claims_affected,
    earlier_version_with_same_bytes,
    passage_occurrences,
    source_by_pk,
    source_list,
    source_reader,
    version_comparison,
    version_pair,
)
from sources.services import (
    quotation_create_from_selection,
    reanchoring_confirm,
    source_create,
    source_version_upload,
    version_set_language,
)

SOURCES_PER_PAGE = 25


def upload_form(data=None, files=None, **kwargs):
    return UploadForm(data, files, max_bytes=settings.SOURCE_UPLOAD_MAX_BYTES, **kwargs)


def redirect_to(request, url):
    """A redirect that htmx follows as a full page load."""
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@permission_required("sources.view_source", raise_exception=True)
def source_list_view(request):
    page = Paginator(source_list(), SOURCES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "sources/source_list.html", {"page": page})


@permission_required("sources.add_source", raise_exception=True)
def source_create_view(request):
    if request.method == "POST":
        form = SourceForm(request.POST)
        upload = upload_form(request.POST, request.FILES, require_document=False)
        if form.is_valid() and upload.is_valid():
            source = source_create(
                actor=request.user,
                content=upload.cleaned_data["content"],
                filename=upload.cleaned_data.get("filename", ""),
                **form.cleaned_data,
            )
            messages.success(request, _("Source “%(source)s” registered.") % {"source": source})
            return redirect_to(request, source.get_absolute_url())
        status = 422
    else:
        form, upload, status = SourceForm(), upload_form(require_document=False), 200
    context = {"form": form, "upload": upload}
    template = (
        "sources/source_form.html#source-form" if request.htmx else "sources/source_form.html"
    )
    return render(request, template, context, status=status)


@permission_required("sources.view_source", raise_exception=True)
def source_detail_view(request, pk):
    source = found_or_404(source_by_pk, pk)
    context = source_reader(source, at=offset_in_text(request.GET.get("at")), user=request.user)
    if request.htmx and request.htmx.target == "version-panel":
        # Only the page's poll asks for the panel by GET. Its last answer, once
        # every version is settled, brings the finder the page lacked meanwhile.
        current = context["current"]
        if not context["extracting"]:
            # The poll's last answer: it says how the upload it waited for ended.
            context["settled"] = max(
                context["versions"], key=lambda version: version.number, default=None
            )
            if current is not None and current.is_ready:
                context |= {"finder": QuoteFinderForm(), "finder_arrives": True}
        return render(request, "sources/source_detail.html#version-panel", context)
    context |= {"upload": upload_form(), "finder": QuoteFinderForm()}
    return render(request, "sources/source_detail.html", context)


@require_POST
@permission_required("sources.add_sourceversion", raise_exception=True)
def version_upload_view(request, pk):
    source = get_object_or_404(Source, pk=pk)
    upload = upload_form(request.POST, request.FILES)
    if upload.is_valid():
        version, created = source_version_upload(
            source=source,
            content=upload.cleaned_data["content"],
            filename=upload.cleaned_data["filename"],
            actor=request.user,
        )
        if created:
            # True however soon the worker is done (the page shown next may come after it).
            said = _(
                "Version %(number)s uploaded: the Versions table below says when its text is ready."
            ) % {"number": version.number}
            if earlier := earlier_version_with_same_bytes(version):
                said += " " + _(
                    "Its bytes are those of version %(number)s (same SHA-256): "
                    "the source went back to them."
                ) % {"number": earlier.number}
            messages.success(request, said)
        else:
            messages.info(
                request,
                _(
                    "These exact bytes are already the latest version, %(number)s "
                    "(same SHA-256); no new version was made."
                )
                % {"number": version.number},
            )
        # No fragment: htmx would treat a same-page #anchor as no navigation at all.
        return redirect_to(request, source.get_absolute_url())
    context = source_reader(source, user=request.user) | {
        "upload": upload,
        "finder": QuoteFinderForm(),
    }
    template = (
        "sources/source_detail.html#upload-form" if request.htmx else "sources/source_detail.html"
    )
    return render(request, template, context, status=422)


@require_POST
@permission_required("sources.add_quotation", raise_exception=True)
def quotation_create_view(request, pk, number):
    version = get_object_or_404(SourceVersion, source_id=pk, number=number)
    form = SelectionForm(request.POST)
    error = None
    status = 422
    quotation = None
    if form.is_valid():
        try:
            quotation, _created = quotation_create_from_selection(
                version=version,
                start=form.cleaned_data["start"],
                end=form.cleaned_data["end"],
                selected_text=form.cleaned_data["selected_text"],
                actor=request.user,
            )
        except ValidationError as invalid:
            error = " ".join(invalid.messages)
            status = 409 if getattr(invalid, "code", None) == "superseded" else 422
    else:
        # Translators: “Quote selection” is the label of the source page's button.
        error = _(
            "Nothing was quoted: no passage was selected. Select a passage of the text, "
            "then press “Quote selection”."
        )
    # The part of the text being read: where the selection began.
    at = quotation.start if quotation else offset_in_text(request.POST.get("start"))
    if request.htmx:
        context = source_reader(version.source, at=at, user=request.user) | {
            "quote_error": error,
            "new_quotation": quotation,
        }
        if status == 409 and context["current"] is not None and context["current"].is_ready:
            # The quote finder, outside the panel, searched the replaced version:
            # it comes again for the current one, with the words it was given.
            # (A current version still being read brings it later, with the poll.)
            context |= {
                "finder": QuoteFinderForm(initial={"q": request.POST.get("q", "")}),
                "finder_arrives": True,
            }
        return render(
            request,
            "sources/source_detail.html#version-panel",
            context,
            status=status if error else 200,
        )
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("Quoted %(quotation)s.") % {"quotation": quotation})
    return redirect(version.source.text_url(at))


#: Matches the quote finder lists; more than that, and the words are too common to pick from.
FINDER_MATCHES_SHOWN = 50


@permission_required("sources.view_source", raise_exception=True)
def quote_finder_view(request, pk, number):
    version = get_object_or_404(
        SourceVersion, source_id=pk, number=number, extraction_status="ready"
    )
    if not request.htmx:
        # A page opened before a newer version came shows that version now: the
        # search goes to it, so the results are of the text shown above them.
        current = version.source.versions.current_first().without_text().first()
        if current is not None and current.is_ready and current.number != version.number:
            url = reverse("sources:quote_finder", args=[pk, current.number])
            query = request.GET.urlencode()
            return redirect(f"{url}?{query}" if query else url)
    finder = QuoteFinderForm(request.GET)
    context = {"version": version, "finder": finder, "searched": False}
    if finder.is_valid():
        passage = finder.cleaned_data["q"]
        occurrences = passage_occurrences(version, passage, limit=FINDER_MATCHES_SHOWN)
        context |= {
            "searched": True,
            "occurrences": occurrences,
            "more_not_shown": len(occurrences) == FINDER_MATCHES_SHOWN,
            "closest": []
            if occurrences
            else anchoring.closest_passages(version.extracted_text, passage, limit=3),
        }
    template = "sources/source_detail.html#finder-results"
    if not request.htmx:
        context |= source_reader(version.source, user=request.user) | {"upload": upload_form()}
        template = "sources/source_detail.html"
    return render(request, template, context)


@require_http_methods(["GET", "POST"])
@permission_required("sources.add_quotation", raise_exception=True)
def reanchoring_confirm_view(request, pk, reanchoring_pk):
    """
    GET: a changed quotation's old and new words compared in full, with the
    button that confirms the new ones (with htmx, in place of its item in the
    source page's list). POST: the confirmation.
    """
    reanchoring = get_object_or_404(
        Reanchoring.objects.select_related(
            "quotation__version", "new_quotation", "confirmed_by", "version__source"
        ).defer("version__extracted_text", "quotation__version__extracted_text"),
        pk=reanchoring_pk,
        version__source_id=pk,
    )
    source = reanchoring.version.source
    if request.method == "GET":
        if reanchoring.status != AnchoringStatus.CHANGED:
            raise Http404(_("Only a quotation whose text changed has new wording to confirm."))
        reanchoring.diff = word_diff(reanchoring.quotation.exact, reanchoring.new_quotation.exact)
        context = {
            "source": source,
            "reanchoring": reanchoring,
            "claims": claims_affected([reanchoring], request.user),
        }
        template = "sources/reanchoring_confirm.html"
        if request.htmx:
            template += "#confirm-item"
        return render(request, template, context)
    try:
        reanchoring_confirm(reanchoring=reanchoring, actor=request.user)
    except ValidationError as refused:
        if not request.htmx:
            messages.error(request, " ".join(refused.messages))
            return redirect(source.get_absolute_url())
        context = source_reader(source, user=request.user)
        context["reanchoring_error"] = " ".join(refused.messages)
        return render(request, "sources/source_detail.html#version-panel", context, status=409)
    if request.htmx:
        context = source_reader(source, user=request.user) | {"confirmed": reanchoring}
        return render(request, "sources/source_detail.html#version-panel", context)
    messages.success(
        request,
        _("Confirmed the new wording %(quotation)s.") % {"quotation": reanchoring.new_quotation},
    )
    return redirect(source.get_absolute_url())


@require_POST
@permission_required("sources.change_source", raise_exception=True)
def version_language_view(request, pk, number):
    """The language of a version's text, as an editor puts right what detection guessed."""
    version = get_object_or_404(
        SourceVersion.objects.select_related("source").without_text(), source_id=pk, number=number
    )
    form = LanguageForm(request.POST)
    if not form.is_valid():
        messages.error(request, form.refusal())
        return redirect_to(request, version.source.get_absolute_url())
    language = form.cleaned_data["language"]
    version_set_language(version=version, language=language, actor=request.user)
    if language:
        said = _("Version %(number)s is now marked as written in %(language)s.") % {
            "number": version.number,
            "language": version.get_language_display(),
        }
    else:
        said = _("The language of version %(number)s is now marked as not known.") % {
            "number": version.number
        }
    messages.success(request, said)
    return redirect_to(request, version.source.get_absolute_url())


@require_GET
@permission_required("sources.view_source", raise_exception=True)
def version_diff_view(request, pk, old, new):
    """
    Two versions of a source compared: paragraphs aligned, changed words
    marked, unchanged stretches folded, and beside each change the quotations
    it touched. A page of changes at a time (``?page=``).
    """
    source = found_or_404(source_by_pk, pk)
    older, newer = found_or_404(version_pair, source, old, new)
    current = source.versions.current_first().without_text().only("pk").first()
    context = {
        "source": source,
        "old": older,
        "new": newer,
        "pair": (older, newer),
        "new_is_current": current is not None and current.pk == newer.pk,
        "diff": None,
    }
    if older.is_ready and newer.is_ready:
        diff = version_comparison(older, newer, page=page_number(request.GET.get("page")))
        pages = Paginator(range(diff.total_changes), CHANGES_PER_PAGE)
        context |= {
            "diff": diff,
            "page": pages.get_page(
                (diff.first_change - 1) // CHANGES_PER_PAGE + 1 if diff.total_changes else 1
            ),
        }
    return render(request, "sources/version_diff.html", context)


def page_number(value):
    """A ``?page=`` value as a page number from 1 (anything else: 1)."""
    try:
        return max(1, min(int(value), 10**9))
    except (TypeError, ValueError):
        return 1


@permission_required("sources.view_sourceversion", raise_exception=True)
def version_download_view(request, pk, number):
    """The original file, only ever as an attachment that the browser will not run."""
    version = get_object_or_404(SourceVersion, source_id=pk, number=number)
    extension = SourceVersion.EXTENSIONS.get(version.media_type, "bin")
    filename = f"{slugify(version.source.title)[:80] or 'source'}-v{version.number}.{extension}"
    response = FileResponse(
        version.file.open("rb"),
        as_attachment=True,
        filename=filename,
        content_type="application/octet-stream",
    )
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response["X-Content-Type-Options"] = "nosniff"
    return response
