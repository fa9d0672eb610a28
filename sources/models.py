import bisect
import hashlib

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import Exact
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from factcheck.languages import LANGUAGE_CHOICES, OTHER

#: How many characters of context a quotation keeps on each side. The W3C Web
#: Annotation model calls these the prefix and suffix of a TextQuoteSelector.
QUOTATION_CONTEXT_CHARS = 32


#: Languages written from right to left: their text is shown with ``dir="rtl"``.
RIGHT_TO_LEFT = frozenset({"ar", "fa", "he", "ur"})


class WrittenInLanguage:
    """
    For a model with a ``language`` (a code of factcheck.languages): what a
    page's ``lang`` and ``dir`` attributes say of its text, for screen readers
    and the browser's hyphenation.
    """

    @property
    def language_tag(self):
        """The text's BCP 47 tag for ``lang``, or "" when it is not known or not listed."""
        return "" if self.language in ("", OTHER) else self.language

    @property
    def right_to_left(self):
        return self.language in RIGHT_TO_LEFT


class ImmutableRecordError(Exception):
    """Raised when code tries to change a saved version's content or a saved quotation."""


class SourceRole(models.TextChoices):
    UNDER_CHECK = "under_check", gettext_lazy("Piece under check")
    PRIMARY = "primary", gettext_lazy("Primary source")
    SECONDARY = "secondary", gettext_lazy("Secondary source")


class Source(models.Model):
    """A document the desk quotes: the piece under check or a source it cites."""

    Role = SourceRole

    title = models.CharField(max_length=500)
    publisher = models.CharField(max_length=300, blank=True)
    authors = models.CharField(
        max_length=500, blank=True, help_text=gettext_lazy("As credited, separated by commas.")
    )
    url = models.URLField(gettext_lazy("URL"), max_length=2000, blank=True)
    published_on = models.DateField(gettext_lazy("published"), null=True, blank=True)
    accessed_on = models.DateField(gettext_lazy("accessed"), null=True, blank=True)
    role = models.CharField(max_length=20, choices=Role, default=Role.PRIMARY)
    notes = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["title", "id"]
        # The source list's order: its pages are read from the index, not sorted.
        indexes = [models.Index(fields=["title", "id"], name="source_title_order")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(role__in=SourceRole.values),
                name="source_role_valid",
            ),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("sources:source_detail", args=[self.pk])

    def text_url(self, at=0):
        """The source page showing the part of its current text that holds the offset ``at``."""
        url = self.get_absolute_url()
        return f"{url}?at={at}" if at else url

    @property
    def latest_version(self):
        """The current version (``SourceVersionQuerySet.current_first``); None before an upload."""
        return self.versions.current_first().first()


def version_upload_to(version, filename):
    # Our own name, never the uploader's: the digest is unique per content and
    # the extension comes from the detected media type.
    extension = SourceVersion.EXTENSIONS.get(version.media_type, "bin")
    return f"sources/{version.sha256[:2]}/{version.sha256}.{extension}"


def warc_upload_to(version, filename):
    # One record per fetch: the same page fetched twice has the same bytes but not the
    # same exchange (time, headers).
    name = f"{version.sha256}-{version.source_id}-{version.number}"
    return f"captures/{version.sha256[:2]}/{name}.warc.gz"


class MediaType(models.TextChoices):
    PDF = "application/pdf", gettext_lazy("PDF")
    HTML = "text/html", gettext_lazy("HTML")
    TEXT = "text/plain", gettext_lazy("Plain text")
    MARKDOWN = "text/markdown", gettext_lazy("Markdown")
    DOCX = (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        gettext_lazy("Word document"),
    )
    ODT = "application/vnd.oasis.opendocument.text", gettext_lazy("OpenDocument text")
    PNG = "image/png", gettext_lazy("PNG image")
    JPEG = "image/jpeg", gettext_lazy("JPEG image")
    WEBP = "image/webp", gettext_lazy("WebP image")


#: Media types whose text is read by OCR: images always, and PDFs without a text layer.
IMAGE_TYPES = (MediaType.PNG, MediaType.JPEG, MediaType.WEBP)


class ExtractionStatus(models.TextChoices):
    PENDING = "pending", gettext_lazy("Waiting")
    EXTRACTING = "extracting", gettext_lazy("Extracting")
    READY = "ready", gettext_lazy("Ready")
    NO_TEXT = "no_text", gettext_lazy("No extractable text")
    FAILED = "failed", gettext_lazy("Failed")


#: Extraction outcomes that leave a version with no text to read or quote.
UNREADABLE = (ExtractionStatus.FAILED, ExtractionStatus.NO_TEXT)


class SourceVersionQuerySet(models.QuerySet):
    def without_text(self):
        """
        Versions with their extracted text (and a scan's word boxes) left in
        the database: they can run to megabytes, and a cached rendering usually
        stands in for them. Its
        length is ``text_length``; reading ``extracted_text`` loads it.
        """
        return self.defer("extracted_text", "ocr_layout")

    def current_first(self):
        """
        Newest first, except that a version whose text could not be read comes
        after every other: the first is the source's current version, the one
        that is read and quoted. A bad upload does not take a source's text away;
        a version still being extracted is current, to show its progress (the
        page polls for it, and shows its text once it is ready).
        """
        unreadable = models.Case(
            models.When(extraction_status__in=UNREADABLE, then=models.Value(1)),
            default=models.Value(0),
        )
        return self.order_by(unreadable, "-number")


class SourceVersion(WrittenInLanguage, models.Model):
    """
    One uploaded state of a source: the file exactly as received, and its text.

    The uploaded content (file, media type, size, digest, uploader) never
    changes once saved; a changed document is a new version. Extraction fills
    in the text once, in the background, and the text is frozen as soon as it is
    ready, because quotations point into it by offset.
    """

    MediaType = MediaType

    EXTENSIONS = {
        MediaType.PDF: "pdf",
        MediaType.HTML: "html",
        MediaType.TEXT: "txt",
        MediaType.MARKDOWN: "md",
        MediaType.DOCX: "docx",
        MediaType.ODT: "odt",
        MediaType.PNG: "png",
        MediaType.JPEG: "jpg",
        MediaType.WEBP: "webp",
    }

    ExtractionStatus = ExtractionStatus

    #: Fields fixed at upload. A database trigger guards them too (migration 0002).
    IMMUTABLE_FIELDS = (
        "source_id",
        "number",
        "file",
        "media_type",
        "byte_size",
        "sha256",
        "original_filename",
        "uploaded_by_id",
        "uploaded_at",
        "requested_url",
        "final_url",
        "fetched_at",
        "http_status",
        "response_headers",
        "warc",
    )
    #: Fields written once by extraction and frozen when it is ready.
    TEXT_FIELDS = ("extracted_text", "page_offsets", "sections", "ocr_confidence", "ocr_layout")

    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField(
        help_text=gettext_lazy("1 for the first upload, then 2, 3, …")
    )
    file = models.FileField(upload_to=version_upload_to, max_length=300)
    media_type = models.CharField(max_length=100, choices=MediaType)
    byte_size = models.PositiveBigIntegerField()
    sha256 = models.CharField(gettext_lazy("SHA-256"), max_length=64)
    original_filename = models.CharField(
        max_length=255,
        blank=True,
        help_text=gettext_lazy("As the uploader named it; shown, never used as a path."),
    )
    extracted_text = models.TextField(blank=True)
    #: ``len(extracted_text)``, kept by ``save()``: pages show it without
    #: reading (or, in PostgreSQL, decompressing) a megabyte of text.
    text_length = models.PositiveIntegerField(default=0, editable=False)
    page_offsets = models.JSONField(
        default=list,
        blank=True,
        help_text=gettext_lazy(
            "For PDFs: the offset in the extracted text where each page starts."
        ),
    )
    sections = models.JSONField(
        default=list,
        blank=True,
        help_text=gettext_lazy(
            "For HTML: where the title, the page description and the body text lie "
            "in the extracted text, as [{kind, start, end}]."
        ),
    )
    extractor = models.CharField(max_length=100, blank=True)
    #: For a text read by OCR: the mean of Tesseract's word confidences, 0 to 100.
    #: None for a text the file itself holds.
    ocr_confidence = models.FloatField(gettext_lazy("OCR confidence"), null=True, blank=True)
    #: For a text read by OCR: where each word stands on its page image, for drawing a
    #: quotation on the scan: {"pages": [{"width", "height", "dpi"}], "words":
    #: [[page, start, end, left, top, right, bottom], ...]} (pixels of that page's image).
    ocr_layout = models.JSONField(default=dict, blank=True)
    extracted_at = models.DateTimeField(null=True, blank=True)
    extraction_status = models.CharField(
        max_length=20, choices=ExtractionStatus, default=ExtractionStatus.PENDING
    )
    extraction_error = models.TextField(blank=True)
    #: The language its text is written in (factcheck.languages), "" while not
    #: known: guessed when extraction finishes, corrected by the desk. Not part
    #: of the upload, so not frozen: a wrong guess must be put right.
    language = models.CharField(
        gettext_lazy("language"), max_length=16, blank=True, choices=LANGUAGE_CHOICES
    )
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    # A version captured from the web (sources.capture) says where and when it was fetched,
    # and keeps the exchange as a WARC record; all of it is as fixed as the bytes.
    requested_url = models.URLField(gettext_lazy("requested URL"), max_length=2000, blank=True)
    final_url = models.URLField(gettext_lazy("final URL"), max_length=2000, blank=True)
    fetched_at = models.DateTimeField(gettext_lazy("fetched"), null=True, blank=True)
    http_status = models.PositiveSmallIntegerField(
        gettext_lazy("HTTP status"), null=True, blank=True
    )
    #: The response's headers as sent, in order: [[name, value], ...].
    response_headers = models.JSONField(default=list, blank=True)
    warc = models.FileField(upload_to=warc_upload_to, max_length=300, blank=True)

    objects = SourceVersionQuerySet.as_manager()

    class Meta:
        ordering = ["source", "number"]
        get_latest_by = "number"
        # The same bytes may come again: a source changed and then put back is
        # recorded as it happened (sources.services.source_version_upload).
        indexes = [models.Index(fields=["source", "sha256"], name="sourceversion_source_sha256")]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "number"], name="sourceversion_number_unique_per_source"
            ),
            models.CheckConstraint(
                condition=models.Q(number__gte=1), name="sourceversion_number_positive"
            ),
            models.CheckConstraint(
                condition=models.Q(byte_size__gte=1), name="sourceversion_not_empty"
            ),
            models.CheckConstraint(
                condition=Exact(Length("sha256"), 64),
                name="sourceversion_sha256_length",
            ),
            models.CheckConstraint(
                condition=models.Q(media_type__in=MediaType.values),
                name="sourceversion_media_type_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(extraction_status__in=ExtractionStatus.values),
                name="sourceversion_extraction_status_valid",
            ),
        ]

    def __str__(self):
        return _("%(source)s (version %(number)s)") % {"source": self.source, "number": self.number}

    def save(self, *args, **kwargs):
        if not self._state.adding:
            self._refuse_changes_to_frozen_fields()
        if "extracted_text" not in self.get_deferred_fields():
            self.text_length = len(self.extracted_text)
            update_fields = kwargs.get("update_fields")
            if update_fields is not None and "extracted_text" in update_fields:
                kwargs["update_fields"] = {*update_fields, "text_length"}
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableRecordError("Source versions are kept for the record and cannot be deleted.")

    @staticmethod
    def digest(content: bytes) -> str:
        """The SHA-256 of ``content`` as 64 lowercase hex digits."""
        return hashlib.sha256(content).hexdigest()

    @property
    def is_ready(self):
        return self.extraction_status == self.ExtractionStatus.READY

    @property
    def captured(self):
        """Whether the server fetched this version from the web (rather than an upload)."""
        return bool(self.final_url)

    @property
    def read_by_ocr(self):
        return self.ocr_confidence is not None

    @property
    def is_image(self):
        return self.media_type in IMAGE_TYPES

    @property
    def is_settled(self):
        """True once extraction has finished, whatever its outcome."""
        return self.extraction_status not in {
            self.ExtractionStatus.PENDING,
            self.ExtractionStatus.EXTRACTING,
        }

    def section_at(self, offset):
        """The kind of HTML section ("title", "description", "body") holding ``offset``."""
        for section in self.sections:
            if section["start"] <= offset < section["end"]:
                return section["kind"]
        return None

    def page_at(self, offset):
        """The 1-based page holding ``offset`` in the extracted text, or None if unpaged."""
        if not self.page_offsets:
            return None
        return bisect.bisect_right(self.page_offsets, offset) or 1

    def _refuse_changes_to_frozen_fields(self):
        stored = (
            SourceVersion.objects.filter(pk=self.pk)
            .values(*self.IMMUTABLE_FIELDS, *self.TEXT_FIELDS, "extraction_status")
            .first()
        )
        if stored is None:
            return
        changed = [
            field for field in self.IMMUTABLE_FIELDS if stored[field] != _field_value(self, field)
        ]
        if changed:
            raise ImmutableRecordError(
                f"A saved source version cannot be changed (tried to change "
                f"{', '.join(changed)}). Upload a new version instead."
            )
        if stored["extraction_status"] == self.ExtractionStatus.READY and any(
            stored[field] != getattr(self, field) for field in self.TEXT_FIELDS
        ):
            raise ImmutableRecordError(
                "The extracted text of a ready version cannot be changed: quotations "
                "point into it. Upload a new version instead."
            )


def _field_value(instance, field):
    value = getattr(instance, field)
    # FieldFile compares by name; the stored value is the name.
    return value.name if hasattr(value, "name") and field in ("file", "warc") else value


class Quotation(models.Model):
    """
    An exact span of a source version's extracted text.

    ``exact`` is always ``version.extracted_text[start:end]``; ``prefix`` and
    ``suffix`` hold a little context on each side so the span can be found again
    in a later version of the source (re-anchoring).
    """

    version = models.ForeignKey(SourceVersion, on_delete=models.PROTECT, related_name="quotations")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    exact = models.TextField()
    prefix = models.CharField(max_length=QUOTATION_CONTEXT_CHARS, blank=True)
    suffix = models.CharField(max_length=QUOTATION_CONTEXT_CHARS, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    #: The page its last character is on, for a quotation across a page break (PDFs).
    end_page = models.PositiveIntegerField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["version", "start", "end"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(end__gt=models.F("start")), name="quotation_not_empty"
            ),
            models.UniqueConstraint(
                fields=["version", "start", "end"], name="quotation_unique_span_per_version"
            ),
        ]

    def __str__(self):
        text = self.exact if len(self.exact) <= 80 else self.exact[:79] + "…"
        return f"“{text}”"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            # Claims and sign-offs rely on these words: a quotation never changes.
            # A new version of the source gets new quotations (re-anchoring).
            raise ImmutableRecordError("A saved quotation cannot be changed.")
        self.check_matches_source()
        super().save(*args, **kwargs)

    @classmethod
    def for_span(cls, version, start, end, **kwargs):
        """An unsaved quotation of ``version``'s text from ``start`` to ``end``, with context."""
        text = version.extracted_text
        return cls(
            version=version,
            start=start,
            end=end,
            exact=text[start:end],
            prefix=text[max(0, start - QUOTATION_CONTEXT_CHARS) : start],
            suffix=text[end : end + QUOTATION_CONTEXT_CHARS],
            page=version.page_at(start),
            end_page=version.page_at(end - 1),
            **kwargs,
        )

    def clean(self):
        super().clean()
        if self.version_id is None or self.start is None or self.end is None:
            return  # a missing field is the field's own error; nothing to match against
        self.check_matches_source()

    def check_matches_source(self):
        """Raise ValidationError unless ``exact`` is the version's text at the offsets."""
        text = self.version.extracted_text
        if self.start is None or self.end is None:
            raise ValidationError(
                {
                    name: ValidationError(
                        _("Give both offsets: where the quotation starts and where it ends."),
                        code="offsets_missing",
                    )
                    for name in ("start", "end")
                    if getattr(self, name) is None
                }
            )
        if self.start >= self.end:
            raise ValidationError(
                {
                    "end": ValidationError(
                        _(
                            "The quotation must end after it starts: it ends at %(end)s "
                            "and starts at %(start)s."
                        ),
                        code="offsets_reversed",
                        params={"start": self.start, "end": self.end},
                    )
                }
            )
        if not self.version.is_ready:
            raise ValidationError(
                {
                    "version": ValidationError(
                        _(
                            "Version %(number)s has no text to quote yet "
                            "(text extraction: %(status)s)."
                        ),
                        code="version_not_ready",
                        params={
                            "number": self.version.number,
                            "status": self.version.get_extraction_status_display().lower(),
                        },
                    )
                }
            )
        if self.start < 0 or self.end > len(text):
            raise ValidationError(
                {
                    "start": ValidationError(
                        ngettext(
                            "The offsets %(start)s–%(end)s are outside the source text, "
                            "which has %(length)s character.",
                            "The offsets %(start)s–%(end)s are outside the source text, "
                            "which has %(length)s characters.",
                            len(text),
                        ),
                        code="offsets_out_of_range",
                        params={"start": self.start, "end": self.end, "length": len(text)},
                    )
                }
            )
        found = text[self.start : self.end]
        if found != self.exact:
            raise ValidationError(
                {
                    "exact": ValidationError(
                        _(
                            "The quotation is not the source's text at %(start)s–%(end)s: "
                            "the source reads “%(found)s”, the quotation reads “%(exact)s”."
                        ),
                        code="quotation_mismatch",
                        params={
                            "start": self.start,
                            "end": self.end,
                            "found": _shorten(found),
                            "exact": _shorten(self.exact),
                        },
                    )
                }
            )

    @property
    def location(self):
        """A human-readable place: page (or pages) for PDFs, character offsets otherwise."""
        if self.page and self.end_page and self.end_page > self.page:
            return _("pp. %(first)s–%(last)s") % {"first": self.page, "last": self.end_page}
        if self.page:
            return _("p. %(page)s") % {"page": self.page}
        return _("characters %(start)s–%(end)s") % {"start": self.start, "end": self.end}


def _shorten(text, limit=60):
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AnchoringStatus(models.TextChoices):
    UNCHANGED = "unchanged", gettext_lazy("Unchanged")
    MOVED = "moved", gettext_lazy("Moved")
    CHANGED = "changed", gettext_lazy("Text changed")
    ORPHANED = "orphaned", gettext_lazy("Orphaned")


class Reanchoring(models.Model):
    """
    What became of one quotation when a new version of its source arrived.

    An exact match (unchanged or moved) gets a new quotation with the same
    words. An approximate match (changed) gets a new quotation with the new
    words, which a person must confirm before anything relies on it. Text that
    is gone is orphaned and gets no new quotation.
    """

    Status = AnchoringStatus

    quotation = models.ForeignKey(Quotation, on_delete=models.PROTECT, related_name="reanchorings")
    version = models.ForeignKey(
        SourceVersion,
        on_delete=models.PROTECT,
        related_name="reanchorings",
        help_text=gettext_lazy("The new version the quotation was carried to."),
    )
    status = models.CharField(max_length=20, choices=AnchoringStatus)
    new_quotation = models.ForeignKey(
        Quotation,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reanchored_from",
    )
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["version", "quotation__start", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["quotation", "version"], name="reanchoring_once_per_version"
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=AnchoringStatus.values),
                name="reanchoring_status_valid",
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(status="orphaned", new_quotation__isnull=True)
                    | (~models.Q(status="orphaned") & models.Q(new_quotation__isnull=False))
                ),
                name="reanchoring_orphan_has_no_quotation",
            ),
        ]

    def __str__(self):
        return _("%(quotation)s → %(status)s in %(version)s") % {
            "quotation": self.quotation,
            "status": self.get_status_display(),
            "version": self.version,
        }

    @property
    def needs_confirmation(self):
        return self.status == AnchoringStatus.CHANGED and self.confirmed_at is None


def page_image_upload_to(image, filename):
    return f"evidence/{image.quotation_id}-p{image.page}.png"


class QuotationPageImage(models.Model):
    """
    A page of a PDF (or a scan read by OCR) drawn with one quotation's characters
    highlighted by their own boxes: the quotation shown where it stands. Made once,
    by the task worker, when the quotation is made, and kept; like the quotation, a drawn
    page never changes. A page that could not be drawn keeps the reason instead, until a
    later run (``manage.py draw_quotation_pages``) draws it.
    """

    quotation = models.ForeignKey(Quotation, on_delete=models.PROTECT, related_name="page_images")
    page = models.PositiveIntegerField()
    image = models.FileField(upload_to=page_image_upload_to, max_length=300, blank=True)
    width = models.PositiveIntegerField(default=0)
    height = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    made_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["quotation", "page"]
        constraints = [
            models.UniqueConstraint(
                fields=["quotation", "page"], name="quotationpageimage_once_per_page"
            ),
        ]

    def __str__(self):
        return _("%(quotation)s on page %(page)s") % {
            "quotation": self.quotation,
            "page": self.page,
        }
