from django.contrib import admin

from factcheck.admin import AuditedAdminMixin, ReadOnlyAdminMixin
from sources.models import Quotation, QuotationPageImage, Reanchoring, Source, SourceVersion
from sources.services import source_update


class SourceVersionInline(admin.TabularInline):
    model = SourceVersion
    fields = ["number", "media_type", "byte_size", "sha256", "extraction_status", "uploaded_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Source)
class SourceAdmin(AuditedAdminMixin, admin.ModelAdmin):
    list_display = ["title", "publisher", "role", "published_on", "accessed_on"]
    list_filter = ["role", "publisher", "published_on"]
    search_fields = ["title", "publisher", "authors", "url", "notes"]
    date_hierarchy = "published_on"
    inlines = [SourceVersionInline]

    def save_model(self, request, obj, form, change):
        if not change:
            super().save_model(request, obj, form, change)
            return
        # Through the service, as the app's own changes go: it is audited there
        # (source.update), and a new title sends the claims quoting it back to review.
        source_update(
            source=Source.objects.get(pk=obj.pk),
            actor=request.user,
            **{name: form.cleaned_data[name] for name in form.changed_data},
        )


@admin.register(SourceVersion)
class SourceVersionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Versions are immutable: the admin shows them, uploads happen in the app."""

    list_display = [
        "source",
        "number",
        "media_type",
        "byte_size",
        "extraction_status",
        "uploaded_at",
    ]
    list_filter = ["media_type", "extraction_status", "uploaded_at", "fetched_at"]
    search_fields = ["source__title", "sha256", "original_filename", "requested_url", "final_url"]
    list_select_related = ["source"]
    readonly_fields = [
        "source",
        "number",
        "file",
        "media_type",
        "byte_size",
        "sha256",
        "original_filename",
        "page_offsets",
        "extraction_status",
        "extraction_error",
        "ocr_confidence",
        "uploaded_by",
        "uploaded_at",
        # Where and when a version captured from the web was fetched (sources.capture).
        "requested_url",
        "final_url",
        "fetched_at",
        "http_status",
        "response_headers",
        "warc",
        "extracted_text",
    ]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Quotation)
class QuotationAdmin(AuditedAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "version", "start", "end", "page", "created_at"]
    list_filter = ["version__source__role", "created_at"]
    search_fields = ["exact", "version__source__title"]
    list_select_related = ["version__source"]
    raw_id_fields = ["version"]
    readonly_fields = ["prefix", "suffix", "page", "end_page", "created_by"]

    def has_change_permission(self, request, obj=None):
        # A saved quotation is evidence someone relied on: it is shown, never edited.
        return obj is None and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        # Nor deleted: claims and evidence point at it.
        return False

    def save_model(self, request, obj, form, change):
        fresh = Quotation.for_span(obj.version, obj.start, obj.end, created_by=request.user)
        obj.prefix, obj.suffix, obj.page, obj.end_page, obj.created_by = (
            fresh.prefix,
            fresh.suffix,
            fresh.page,
            fresh.end_page,
            fresh.created_by,
        )
        super().save_model(request, obj, form, change)


@admin.register(Reanchoring)
class ReanchoringAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """What re-anchoring made of each quotation; confirmation happens on the source page."""

    list_display = ["quotation", "version", "status", "confirmed_by", "confirmed_at"]
    list_filter = ["status", "confirmed_at"]
    search_fields = ["quotation__exact", "new_quotation__exact", "version__source__title"]
    list_select_related = ["quotation", "version__source", "confirmed_by"]
    readonly_fields = [
        "quotation",
        "version",
        "status",
        "new_quotation",
        "confirmed_by",
        "confirmed_at",
        "created_at",
    ]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(QuotationPageImage)
class QuotationPageImageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """A quotation drawn on its page by the task worker, kept as drawn."""

    list_display = ["quotation", "page", "width", "height", "error", "made_at"]
    search_fields = ["quotation__exact", "quotation__version__source__title"]
    list_select_related = ["quotation"]
    readonly_fields = ["quotation", "page", "image", "width", "height", "error", "made_at"]
