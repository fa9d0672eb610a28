from django.contrib import admin

from claims.models import (
    Case,
    Claim,
    ClaimFlag,
    Comment,
    Correction,
    CorrectionStatus,
    ErrorReport,
    Evidence,
    Rating,
    ReviewAssignment,
)
from claims.services import claims_signoffs_revalidate
from factcheck.admin import AuditedAdminMixin, ReadOnlyAdminMixin


@admin.register(Rating)
class RatingAdmin(AuditedAdminMixin, admin.ModelAdmin):
    list_display = ["label", "order", "value", "meaning"]
    list_editable = ["order", "value"]
    search_fields = ["label", "meaning"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        changes = [
            f"its {name} from “{form.initial.get(name)}” to “{form.cleaned_data.get(name)}”"
            for name in ("label", "value")
            if name in form.changed_data
        ]
        if change and changes:
            claims_signoffs_revalidate(
                claims=Claim.objects.filter(verdict=obj),
                actor=request.user,
                reason=f"the verdict “{form.initial.get('label')}” changed {' and '.join(changes)}",
            )


@admin.register(Case)
class CaseAdmin(AuditedAdminMixin, admin.ModelAdmin):
    list_display = ["title", "status", "lead_editor", "created_at", "published_at"]
    list_filter = ["status", "created_at"]
    search_fields = ["title", "slug", "source_under_check__title"]
    prepopulated_fields = {"slug": ["title"]}
    raw_id_fields = ["source_under_check"]
    list_select_related = ["lead_editor"]


class EvidenceInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Evidence
    raw_id_fields = ["quotation"]
    extra = 0


class ReviewAssignmentInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = ReviewAssignment
    fk_name = "claim"
    fields = ["reviewer", "due_on", "decision", "decided_at", "comment"]
    readonly_fields = ["decision", "decided_at", "comment"]
    extra = 0


@admin.register(Claim)
class ClaimAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "case", "claimant", "status", "verdict", "author", "updated_at"]
    list_filter = ["status", "verdict", "case"]
    search_fields = ["statement", "claimant", "rationale", "quotation__exact"]
    raw_id_fields = ["quotation"]
    readonly_fields = ["status", "version", "published_at"]
    list_select_related = ["case", "verdict", "author"]
    inlines = [EvidenceInline, ReviewAssignmentInline]


@admin.register(Evidence)
class EvidenceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "claim", "stance", "added_by", "added_at"]
    list_filter = ["stance"]
    search_fields = ["note", "quotation__exact", "claim__statement"]
    raw_id_fields = ["claim", "quotation"]
    list_select_related = ["claim", "quotation", "added_by"]


@admin.register(ClaimFlag)
class ClaimFlagAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["claim", "kind", "version", "raised_at", "cleared_at", "cleared_by"]
    list_filter = ["kind", "cleared_at"]
    search_fields = ["claim__statement", "quotation__exact", "note"]
    raw_id_fields = ["claim", "quotation", "version", "reanchoring"]
    list_select_related = ["claim", "version", "cleared_by"]


@admin.register(ReviewAssignment)
class ReviewAssignmentAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["claim", "reviewer", "decision", "due_on", "decided_at"]
    list_filter = ["decision", "due_on"]
    search_fields = ["claim__statement", "reviewer__username", "comment"]
    raw_id_fields = ["claim"]
    readonly_fields = ["decision", "decided_at", "comment", "signed_digest"]
    list_select_related = ["claim", "reviewer"]


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """
    Corrections move through the desk (draft, second-person approval, publication);
    the admin shows them and, for a published entry, never even offers a change.
    """

    list_display = ["__str__", "case", "kind", "status", "sequence", "published_at"]
    list_filter = ["kind", "status", "published_at"]
    search_fields = ["what_was_wrong", "what_is_right", "reason", "sha256"]
    raw_id_fields = ["case", "claim", "supersedes"]
    readonly_fields = [
        "status",
        "approved_by",
        "approved_at",
        "old_verdict",
        "published_at",
        "sequence",
        "previous_sha256",
        "sha256",
    ]
    list_select_related = ["case", "claim"]

    def has_change_permission(self, request, obj=None):
        if obj is not None and obj.status == CorrectionStatus.PUBLISHED:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.status == CorrectionStatus.PUBLISHED:
            return False
        return super().has_delete_permission(request, obj)


@admin.register(Comment)
class CommentAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["claim", "author", "created_at"]
    list_filter = ["created_at"]
    search_fields = ["body", "claim__statement", "author__username"]
    raw_id_fields = ["claim"]
    list_select_related = ["claim", "author"]


@admin.register(ErrorReport)
class ErrorReportAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["created_at", "page_url", "status", "email", "handled_by"]
    list_filter = ["status", "created_at"]
    search_fields = ["message", "page_url", "email", "reply"]
    readonly_fields = ["sender_key", "created_at"]
    raw_id_fields = ["case", "claim", "correction"]
