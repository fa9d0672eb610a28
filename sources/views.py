from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import ValidationError
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from factcheck.http import found_or_404
from factcheck.pagination import Paginator
from sources import anchoring
from sources.forms import QuoteFinderForm, SelectionForm, SourceForm, UploadForm
from sources.highlighting import offset_in_text
from sources.models import Reanchoring, Source, SourceVersion
from sources.selectors import (
    earlier_version_with_same_bytes,
    passage_occurrences,
    source_by_pk,
    source_list,
    source_reader,
)
from sources.services import (
    quotation_create_from_selection,
    reanchoring_confirm,
    source_create,
    source_version_upload,
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
            messages.success(request, f"Source “{source}” registered.")
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
    context = source_reader(source, at=offset_in_text(request.GET.get("at")))
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
            said = (
                f"Version {version.number} uploaded: "
                "the Versions table below says when its text is ready."
            )
            if earlier := earlier_version_with_same_bytes(version):
                said += (
                    f" Its bytes are those of version {earlier.number} (same SHA-256): "
                    "the source went back to them."
                )
            messages.success(request, said)
        else:
            messages.info(
                request,
                f"These exact bytes are already the latest version, {version.number} "
                "(same SHA-256); no new version was made.",
            )
        # No fragment: htmx would treat a same-page #anchor as no navigation at all.
        return redirect_to(request, source.get_absolute_url())
    context = source_reader(source) | {"upload": upload, "finder": QuoteFinderForm()}
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
        error = "The selection was incomplete: select a passage of the text, then press Quote."
    # The part of the text being read: where the selection began.
    at = quotation.start if quotation else offset_in_text(request.POST.get("start"))
    if request.htmx:
        context = source_reader(version.source, at=at) | {
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
        messages.success(request, f"Quoted {quotation}.")
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
        context |= source_reader(version.source) | {"upload": upload_form()}
        template = "sources/source_detail.html"
    return render(request, template, context)


@require_POST
@permission_required("sources.add_quotation", raise_exception=True)
def reanchoring_confirm_view(request, pk, reanchoring_pk):
    reanchoring = get_object_or_404(Reanchoring, pk=reanchoring_pk, version__source_id=pk)
    try:
        reanchoring_confirm(reanchoring=reanchoring, actor=request.user)
    except ValidationError as refused:
        if not request.htmx:
            messages.error(request, " ".join(refused.messages))
            return redirect(reanchoring.version.source.get_absolute_url())
        context = source_reader(reanchoring.version.source)
        context["reanchoring_error"] = " ".join(refused.messages)
        return render(request, "sources/source_detail.html#version-panel", context, status=409)
    if request.htmx:
        context = source_reader(reanchoring.version.source) | {"confirmed": reanchoring}
        return render(request, "sources/source_detail.html#version-panel", context)
    messages.success(request, f"Confirmed the new wording {reanchoring.new_quotation}.")
    return redirect(reanchoring.version.source.get_absolute_url())


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
