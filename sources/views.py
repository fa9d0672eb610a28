from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from factcheck.http import found_or_404
from factcheck.pagination import Paginator
from sources import anchoring
from sources.capture import declared_charset, source_capture, source_fetch_again, version_capture
from sources.diffs import CHANGES_PER_PAGE, word_diff
from sources.forms import (
    CaptureForm,
    LanguageForm,
    QuoteFinderForm,
    SelectionForm,
    SourceCaptureForm,
    SourceForm,
    UploadForm,
)
from sources.highlighting import offset_in_text
from sources.models import AnchoringStatus, MediaType, Reanchoring, Source, SourceVersion
from sources.selectors import (
    captured_version,
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


def capture_form(data=None):
    """The form that adds a version from a web address (prefixed: it shares pages with others)."""
    return CaptureForm(data, prefix="capture")


def source_capture_form(data=None):
    return SourceCaptureForm(data, prefix="capture")


def redirect_to(request, url):
    """A redirect that htmx follows as a full page load."""
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def add_refusal(form, refused, field="url"):
    """A service's ValidationError shown on ``form``: at its own fields, else at ``field``."""
    if hasattr(refused, "error_dict"):
        for name, errors in refused.error_dict.items():
            form.add_error(name if name in form.fields else None, errors)
    else:
        form.add_error(field, refused)


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
    context = {"form": form, "upload": upload, "capture": source_capture_form()}
    template = (
        "sources/source_form.html#source-form" if request.htmx else "sources/source_form.html"
    )
    return render(request, template, context, status=status)


@permission_required("sources.add_source", raise_exception=True)
def source_capture_view(request):
    """A new source from a web address: its first version is the page, fetched now."""
    if request.method != "POST":
        # A reload of the address a refused form was shown at.
        return redirect("sources:source_create")
    capture = source_capture_form(request.POST)
    if capture.is_valid():
        typed = capture.cleaned_data
        try:
            source = source_capture(
                actor=request.user, url=typed["url"], title=typed["title"], role=typed["role"]
            )
        except ValidationError as refused:
            add_refusal(capture, refused)
        else:
            said = _(
                "Source “%(source)s” fetched from its address: the Versions table below says "
                "when its text is ready."
            ) % {"source": source}
            if not typed["title"].strip():
                said += " " + _("It was given no title, so it is named after its address.")
            messages.success(request, said)
            return redirect_to(request, source.get_absolute_url())
    context = {
        "form": SourceForm(),
        "upload": upload_form(require_document=False),
        "capture": capture,
    }
    template = (
        "sources/source_form.html#capture-form" if request.htmx else "sources/source_form.html"
    )
    return render(request, template, context, status=422)


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
    context |= {"upload": upload_form(), "capture": capture_form(), "finder": QuoteFinderForm()}
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
        "capture": capture_form(),
        "finder": QuoteFinderForm(),
    }
    template = (
        "sources/source_detail.html#upload-form" if request.htmx else "sources/source_detail.html"
    )
    return render(request, template, context, status=422)


def say_fetched(request, version, created):
    """The message after a page was fetched as a version of its source, or found unchanged."""
    if not created:
        when = date_format(
            timezone.localtime(version.fetched_at or version.uploaded_at), "DATETIME_FORMAT"
        )
        if version.captured:
            said = _("Unchanged since version %(number)s (fetched %(date)s): no new version.")
        else:
            said = _(
                "The page is the same as version %(number)s (uploaded %(date)s): no new version."
            )
        messages.info(request, said % {"number": version.number, "date": when})
        return
    if version.number == 1:
        said = _("Version 1 fetched: the Versions table below says when its text is ready.")
    else:
        said = _(
            "Version %(number)s fetched: the page changed since version %(previous)s; "
            "its quotations are carried over once its text is read."
        ) % {"number": version.number, "previous": version.number - 1}
    if earlier := earlier_version_with_same_bytes(version):
        said += " " + _(
            "Its bytes are those of version %(number)s (same SHA-256): the page went back to them."
        ) % {"number": earlier.number}
    messages.success(request, said)


def source_page_refused(request, source, *, fragment, **context):
    """The source page (or one of its fragments, for htmx) with a refused form in it."""
    context = (
        source_reader(source, user=request.user)
        | {"upload": upload_form(), "capture": capture_form(), "finder": QuoteFinderForm()}
        | context
    )
    template = (
        f"sources/source_detail.html#{fragment}" if request.htmx else "sources/source_detail.html"
    )
    return render(request, template, context, status=422)


@permission_required("sources.add_sourceversion", raise_exception=True)
def version_capture_view(request, pk):
    """A new version of a source from a web address: the page, fetched now."""
    source = get_object_or_404(Source, pk=pk)
    if request.method != "POST":
        return redirect(source.get_absolute_url())
    capture = capture_form(request.POST)
    if capture.is_valid():
        try:
            version, created = version_capture(
                source=source, url=capture.cleaned_data["url"], actor=request.user
            )
        except ValidationError as refused:
            add_refusal(capture, refused)
        else:
            say_fetched(request, version, created)
            return redirect_to(request, source.get_absolute_url())
    return source_page_refused(request, source, fragment="capture-form", capture=capture)


@permission_required("sources.add_sourceversion", raise_exception=True)
def version_fetch_again_view(request, pk):
    """
    The address of the source's latest captured version, fetched again: a new version
    if the page changed (its quotations carried over once its text is read), else a
    word that it did not.
    """
    source = get_object_or_404(Source, pk=pk)
    if request.method != "POST":
        return redirect(source.get_absolute_url())
    try:
        version, created = source_fetch_again(source=source, actor=request.user)
    except ValidationError as refused:
        return source_page_refused(
            request, source, fragment="fetch-again", fetch_error=" ".join(refused.messages)
        )
    say_fetched(request, version, created)
    return redirect_to(request, source.get_absolute_url())


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
        context |= source_reader(version.source, user=request.user) | {
            "upload": upload_form(),
            "capture": capture_form(),
        }
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


#: How an archived page is shown in its frame: the stored types a browser shows as they are.
ARCHIVE_SHOWN_AS = {
    MediaType.HTML: "text/html",
    MediaType.TEXT: "text/plain",
    MediaType.MARKDOWN: "text/plain",
}

#: The archived page runs nothing and asks the web for nothing: no script, no request (its
#: images and style sheets elsewhere stay away, so the live site learns nothing of who
#: reads the copy), its own origin that reaches nothing of ours; framed only by our page.
ARCHIVE_POLICY = (
    "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'"
)


@require_GET
@permission_required("sources.view_sourceversion", raise_exception=True)
def version_archive_view(request, pk, number):
    """
    A captured version as it was fetched: where from, when, with what status, and the
    stored page itself in a sandboxed frame (a PDF's archived copy is its download).
    """
    version = found_or_404(captured_version, pk, number)
    context = {
        "source": version.source,
        "version": version,
        "framed": version.media_type in ARCHIVE_SHOWN_AS,
    }
    return render(request, "sources/version_archive.html", context)


@xframe_options_sameorigin
@require_GET
@permission_required("sources.view_sourceversion", raise_exception=True)
def version_archive_raw_view(request, pk, number):
    """
    The stored bytes of a captured page, for the frame of ``version_archive_view`` only:
    under a policy that keeps them from running or fetching anything
    (``ARCHIVE_POLICY``), in the charset the response declared.
    """
    version = found_or_404(captured_version, pk, number)
    shown_as = ARCHIVE_SHOWN_AS.get(version.media_type)
    if shown_as is None:
        raise Http404(_("This version's archived copy is its file: download it."))
    if version.media_type == MediaType.HTML:
        charset = declared_charset(version.response_headers)
    else:
        charset = "utf-8"  # text is only accepted as UTF-8
    response = FileResponse(
        version.file.open("rb"),
        content_type=f"{shown_as}; charset={charset}" if charset else shown_as,
    )
    response["Content-Security-Policy"] = ARCHIVE_POLICY
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    return response


@require_GET
@permission_required("sources.view_sourceversion", raise_exception=True)
def version_warc_view(request, pk, number):
    """A captured version's WARC record (request and response), as an attachment."""
    version = found_or_404(captured_version, pk, number)
    if not version.warc:
        raise Http404
    filename = f"{slugify(version.source.title)[:80] or 'source'}-v{version.number}.warc.gz"
    response = FileResponse(
        version.warc.open("rb"),
        as_attachment=True,
        filename=filename,
        content_type="application/warc",
    )
    response["Content-Security-Policy"] = "sandbox; default-src 'none'"
    response["X-Content-Type-Options"] = "nosniff"
    return response
