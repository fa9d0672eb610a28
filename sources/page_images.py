"""
Quotations drawn on their page: the evidence where it stands.

A quotation of a PDF, or of a scan or screenshot read by OCR, is drawn on the page (or
pages) it stands on, its characters highlighted by their own boxes, once, by the task
worker, when the quotation is made (``sources.tasks.draw_quotation_pages``); the images are
kept, as the quotation is. The drawing runs in the sandboxed child ``sources._render_child``,
started as the extraction child is (``sources.extraction``): the file is an upload.

This module holds the runner (``draw_pages``), the service (``quotation_draw_pages``), the
reads the pages need and the source pages' two views; the public claim page serves its
images itself (``claims.views.public``).
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, BinaryIO

from django.conf import settings
from django.contrib.auth.decorators import permission_required
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.http import FileResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.decorators.http import condition, require_GET, require_safe

from factcheck.audit import record
from factcheck.http import found_or_404
from sources.extraction import (
    PAGE_SEPARATOR,
    ExtractionFailed,
    _bwrap_for,
    _reply_from,
    _run_child,
    bwrap_options,
)
from sources.models import MediaType, Quotation, QuotationPageImage

if TYPE_CHECKING:
    from sources.models import SourceVersion

#: A quotation across more pages than this is drawn on its first ones only.
MAX_PAGES_DRAWN = 3
#: The largest image drawn, in pixels: readable in a column, and a few hundred kilobytes.
MAX_WIDTH = 1600
MAX_HEIGHT = 2400
#: How long a browser keeps a page image before asking again: it never changes.
IMAGE_MAX_AGE = 3600

_RENDER_CHILD = "sources._render_child"


# --------------------------------------------------------------------------------------------
# Which pages, and what the child is asked
# --------------------------------------------------------------------------------------------


def drawable(version: SourceVersion) -> bool:
    """Whether ``version``'s quotations are drawn on its pages: a PDF with a text layer, or
    a scan or image read by OCR (with where its words stand). Not text, HTML or Word files."""
    if version.read_by_ocr:
        return bool(version.ocr_layout.get("words"))
    return version.media_type == MediaType.PDF and bool(version.page_offsets)


def pages_to_draw(quotation: Quotation) -> list[int]:
    """The pages (from 1) ``quotation`` stands on, at most :data:`MAX_PAGES_DRAWN` of them;
    none when its version is not :func:`drawable`. An image is one page."""
    if not drawable(quotation.version):
        return []
    first = quotation.page or 1
    last = max(first, quotation.end_page or first)
    return list(range(first, last + 1))[:MAX_PAGES_DRAWN]


def _page_span(version: SourceVersion, page: int) -> tuple[int, int]:
    """Where page ``page`` (from 1) lies in the version's text, its separator left out."""
    offsets = version.page_offsets
    start = offsets[page - 1]
    if page < len(offsets):
        return start, offsets[page] - len(PAGE_SEPARATOR)
    return start, len(version.extracted_text)


def _ocr_page(layout: dict, page: int) -> dict:
    """The size OCR read page ``page`` (from 1) at, in pixels."""
    pages = layout.get("pages") or []
    return pages[page - 1] if 0 < page <= len(pages) else {}


def _ocr_boxes(layout: dict, page: int, start: int, end: int) -> list[list[float]]:
    """The boxes of the words OCR read on page ``page`` that overlap ``start``–``end`` of the
    text, in reading order: ``[left, top, right, bottom]`` in pixels of the page's image."""
    # Each word is [page (from 1), start, end, left, top, right, bottom], its offsets in
    # the version's whole text (sources._extract_child._ocr_result).
    words = sorted(
        (word for word in layout.get("words", ()) if word[0] == page),
        key=lambda word: (word[1], word[2]),
    )
    return [list(word[3:7]) for word in words if word[1] < end and word[2] > start]


def drawing_request(quotation: Quotation, pages: list[int]) -> dict:
    """What the drawing child is asked for ``quotation`` on ``pages`` (see
    ``sources._render_child``). A page holding none of the quotation's words (a quotation
    that starts in a page break) is left out."""
    version = quotation.version
    request = {"max_width": MAX_WIDTH, "max_height": MAX_HEIGHT, "pages": []}
    if version.read_by_ocr:
        request["kind"] = "image" if version.is_image else "pdf_ocr"
        for page in pages:
            size = _ocr_page(version.ocr_layout, page)
            boxes = _ocr_boxes(version.ocr_layout, page, quotation.start, quotation.end)
            if boxes and size.get("width") and size.get("height"):
                request["pages"].append(
                    {"page": page, "width": size["width"], "height": size["height"], "boxes": boxes}
                )
        return request
    request["kind"] = "pdf"
    text = version.extracted_text
    for page in pages:
        page_start, page_end = _page_span(version, page)
        start, end = max(quotation.start, page_start), min(quotation.end, page_end)
        if start < end and text[start:end].strip():
            request["pages"].append(
                {
                    "page": page,
                    "text": text[page_start:page_end],
                    "start": start - page_start,
                    "end": end - page_start,
                }
            )
    return request


# --------------------------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnPage:
    """One page as the child drew it: the PNG and its size, and the highlighted boxes
    (``rects``, see ``sources._render_child``); or why it could not be drawn (``error``)."""

    page: int
    png: bytes = b""
    width: int = 0
    height: int = 0
    rects: list[list[float]] = field(default_factory=list)
    error: str = ""


class _HeaderThen(io.RawIOBase):
    """A line of JSON, then a stored file read a chunk at a time: the child's stdin."""

    def __init__(self, header: bytes, file: BinaryIO):
        self._header = header
        self._file = file

    def read(self, size: int = -1) -> bytes:
        if self._header:
            chunk, self._header = self._header, b""
            return chunk
        return self._file.read(size)


def draw_pages(
    content: bytes | BinaryIO,
    request: dict,
    *,
    time_limit: float = 30,
    memory_limit_mb: int = 512,
    sandbox: str = "auto",
) -> list[DrawnPage]:
    """The pages ``request`` asks for (``drawing_request``) drawn from the file ``content``
    (bytes, or a binary file streamed to the child) in the sandboxed child, with the same
    limits and sandbox as extraction. A page the child could not draw comes back with its
    ``error``; the child failing as a whole (a damaged file, a limit) raises
    :class:`~sources.extraction.ExtractionFailed`, and a sandbox that is required but cannot
    run :class:`~sources.extraction.SandboxUnavailable`.
    """
    bwrap = _bwrap_for(sandbox)
    args = [
        *([bwrap, *bwrap_options(), "--"] if bwrap else []),
        sys.executable,
        "-m",
        _RENDER_CHILD,
        repr(float(time_limit)),
        str(int(memory_limit_mb)),
    ]
    header = json.dumps(request).encode() + b"\n"
    data = header + content if isinstance(content, bytes) else _HeaderThen(header, content)
    run = _run_child(args, data, time_limit, sandboxed=bool(bwrap))
    reply = _reply_from(run, time_limit, memory_limit_mb)
    body = memoryview(run.stdout)[run.stdout.find(b"\n") + 1 :]
    drawn, position = [], 0
    for page in reply["pages"]:
        if not page.get("ok"):
            drawn.append(DrawnPage(page=page["page"], error=page.get("reason", "")))
            continue
        png = bytes(body[position : position + page["png_bytes"]])
        position += page["png_bytes"]
        if len(png) != page["png_bytes"]:
            raise ExtractionFailed("The page drawer returned no usable image.", reply["detail"])
        drawn.append(
            DrawnPage(
                page=page["page"],
                png=png,
                width=page["width"],
                height=page["height"],
                rects=page["rects"],
            )
        )
    body.release()
    return drawn


# --------------------------------------------------------------------------------------------
# The service
# --------------------------------------------------------------------------------------------


def quotation_draw_pages(*, quotation: Quotation) -> list[QuotationPageImage]:
    """
    Draw ``quotation`` on the pages it stands on (``pages_to_draw``) and keep the images:
    every page it stands on, drawn or not, in page order. Pages drawn before are kept as
    they are, and not drawn again. A page that cannot be drawn (a damaged or changed file,
    a limit reached) keeps the reason as its ``error``: a bad file never raises here; a
    later run tries that page again, since a limit may have been reached under load. A
    sandbox that is required and cannot run raises ``SandboxUnavailable`` and stores
    nothing, for the task to run again once it is fixed: the file is not at fault.

    The child draws before the transaction that stores what it drew (``_keep_drawn``), so
    that no write lock is held while it runs.
    """
    wanted = pages_to_draw(quotation)
    made = set(quotation.page_images.filter(error="").values_list("page", flat=True))
    missing = [page for page in wanted if page not in made]
    drawn = _draw(quotation, missing) if missing else []
    return _keep_drawn(quotation=quotation, drawn=drawn)


def _draw(quotation: Quotation, pages: list[int]) -> list[DrawnPage]:
    request = drawing_request(quotation, pages)
    asked = {wanted["page"] for wanted in request["pages"]}
    skipped = [
        DrawnPage(page=page, error="The quotation has no words on this page.")
        for page in pages
        if page not in asked
    ]
    if not asked:
        return skipped
    try:
        with quotation.version.file.open("rb") as stored:
            drawn = draw_pages(
                stored,
                request,
                time_limit=settings.EXTRACTION_TIME_LIMIT_SECONDS,
                memory_limit_mb=settings.EXTRACTION_MEMORY_LIMIT_MB,
                sandbox=settings.EXTRACTION_SANDBOX,
            )
    except ExtractionFailed as failure:
        drawn = [DrawnPage(page=page, error=failure.reason) for page in sorted(asked)]
    except OSError as error:
        reason = f"The stored file could not be read ({error.strerror or error})."
        drawn = [DrawnPage(page=page, error=reason) for page in sorted(asked)]
    return sorted([*drawn, *skipped], key=lambda page: page.page)


@transaction.atomic
def _keep_drawn(*, quotation: Quotation, drawn: list[DrawnPage]) -> list[QuotationPageImage]:
    # Locked, then read again: two workers drawing the same quotation store it once.
    Quotation.objects.select_for_update().filter(pk=quotation.pk).first()
    stored = {image.page: image for image in quotation.page_images.all()}
    kept, failed = [], {}
    for page in drawn:
        image = stored.get(page.page)
        if image is not None and not image.error:
            continue
        if image is None:
            image = QuotationPageImage(quotation=quotation, page=page.page)
        elif page.error == image.error:
            continue  # failed again, for the same reason: nothing new to record
        image.error = page.error
        if not page.error:
            image.width, image.height = page.width, page.height
            image.image.save("page.png", ContentFile(page.png), save=False)
            kept.append(page.page)
        else:
            failed[str(page.page)] = page.error
        image.save()
    if kept or failed:
        record(
            actor=None,
            action="quotation.draw_pages",
            target=quotation,
            changes={"drawn": kept, "failed": failed},
        )
    return list(quotation.page_images.order_by("page"))


# --------------------------------------------------------------------------------------------
# Reads
# --------------------------------------------------------------------------------------------


def drawn_pages():
    """The page images drawn without error, in page order: those the pages show."""
    return QuotationPageImage.objects.filter(error="").exclude(image="").order_by("page")


def drawn_pages_of(lookup: str) -> Prefetch:
    """A prefetch of the drawn pages of the quotations at ``lookup`` (say
    ``"evidence__quotation"``), as each quotation's ``drawn_pages``: one query for all."""
    return Prefetch(f"{lookup}__page_images", queryset=drawn_pages(), to_attr="drawn_pages")


def quotation_on_its_pages(source_pk: int, quotation_pk: int) -> dict:
    """
    What the quotation's page shows: the quotation ``quotation_pk`` of the source
    ``source_pk`` (Quotation.DoesNotExist otherwise), its drawn pages (``images``), the
    pages that could not be drawn (``failures``), whether it is drawn at all (``drawable``)
    and whether pages are still to come (``drawing``).
    """
    quotation = (
        Quotation.objects.select_related("version__source")
        .defer("version__extracted_text")
        .get(pk=quotation_pk, version__source_id=source_pk)
    )
    rows = list(quotation.page_images.order_by("page"))
    images = [row for row in rows if not row.error and row.image]
    wanted = pages_to_draw(quotation)
    return {
        "quotation": quotation,
        "version": quotation.version,
        "source": quotation.version.source,
        "images": images,
        "failures": [row for row in rows if row.error],
        "drawable": bool(wanted),
        # A quotation's pages come within moments of it; one older than that without them
        # was made before pages were drawn, or while the worker was down, and is said so
        # rather than waited for forever.
        "drawing": bool(wanted) and not rows and quotation.created_at > drawing_deadline(),
        "not_drawn": bool(wanted) and not rows and quotation.created_at <= drawing_deadline(),
    }


#: How long a quotation's page is waited for before the page says it was not drawn.
DRAWING_WAIT = timedelta(minutes=10)


def drawing_deadline():
    return timezone.now() - DRAWING_WAIT


def quotations_not_drawn():
    """The quotations of versions with pages that have no drawn page at all, oldest first."""
    return (
        Quotation.objects.filter(
            Q(version__media_type=MediaType.PDF) | Q(version__ocr_confidence__isnull=False)
        )
        .exclude(Exists(QuotationPageImage.objects.filter(quotation=OuterRef("pk"), error="")))
        .order_by("pk")
    )


def page_image(source_pk: int, quotation_pk: int, page: int) -> QuotationPageImage:
    """The drawn page ``page`` of the quotation ``quotation_pk`` of the source ``source_pk``;
    QuotationPageImage.DoesNotExist when it is not drawn (or the quotation is not there)."""
    return drawn_pages().get(
        quotation_id=quotation_pk, quotation__version__source_id=source_pk, page=page
    )


# --------------------------------------------------------------------------------------------
# Views
# --------------------------------------------------------------------------------------------


@require_GET
@permission_required("sources.view_source", raise_exception=True)
def quotation_page_view(request, pk, quotation_pk):
    """A quotation drawn on its page(s); while they are being drawn, a part that asks again."""
    context = found_or_404(quotation_on_its_pages, pk, quotation_pk)
    template = "sources/quotation_page.html"
    if request.htmx:
        template += "#page-figures"
    return render(request, template, context)


def _image_of_request(request, pk, quotation_pk, page):
    # Read once for the conditions and the answer.
    if not hasattr(request, "_page_image"):
        request._page_image = found_or_404(page_image, pk, quotation_pk, page)
    return request._page_image


def _image_etag(request, pk, quotation_pk, page):
    return page_image_etag(_image_of_request(request, pk, quotation_pk, page))


def _image_made(request, pk, quotation_pk, page):
    return _image_of_request(request, pk, quotation_pk, page).made_at


def page_image_etag(image: QuotationPageImage) -> str:
    """An image's ETag: it never changes once drawn, so its row and date name it."""
    return f"page-{image.pk}-{image.made_at.timestamp():.6f}"


def page_image_response(image: QuotationPageImage) -> FileResponse:
    """The PNG of a drawn page, never sniffed as anything else."""
    response = FileResponse(image.image.open("rb"), content_type="image/png")
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
@permission_required("sources.view_source", raise_exception=True)
@condition(etag_func=_image_etag, last_modified_func=_image_made)
def quotation_page_image_view(request, pk, quotation_pk, page):
    """The PNG of a quotation drawn on one page, for the desk: kept by the browser only."""
    response = page_image_response(_image_of_request(request, pk, quotation_pk, page))
    patch_cache_control(response, private=True, max_age=IMAGE_MAX_AGE)
    return response
