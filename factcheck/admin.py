from django.contrib import admin

from factcheck.models import AuditEvent, Organisation, SearchEntry


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only: the audit trail is append-only, written by service functions."""

    list_display = ["created_at", "actor", "action", "target_type", "target_repr"]
    list_filter = ["action", "target_type", "created_at"]
    search_fields = ["action", "target_repr", "actor__username"]
    date_hierarchy = "created_at"
    list_select_related = ["actor", "target_type"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(SearchEntry)
class SearchEntryAdmin(admin.ModelAdmin):
    """The search index, for inspection; the apps write it."""

    list_display = ["kind", "object_id", "title", "location"]
    list_filter = ["kind"]
    search_fields = ["title", "body"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Organisation)
class OrganisationAdmin(admin.ModelAdmin):
    """The publisher's name, address, logo and corrections policy, set once."""

    list_display = ["name", "url", "corrections_policy_url"]
    search_fields = ["name"]

    def has_add_permission(self, request):
        return not Organisation.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
