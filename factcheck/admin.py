from django import forms
from django.conf import settings
from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from factcheck.audit import record
from factcheck.models import AuditEvent, Organisation, Preferences, SearchEntry


class ReadOnlyAdminMixin:
    """
    Shown in the admin, never written there: these rows change only through the
    app's service functions, which apply the workflow's rules (state machine,
    versions, second-person approval, sign-off voiding) and write the audit trail.
    """

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


def _plain(value):
    """A form value as JSON-able data for an audit event (a row by its primary key)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "_meta"):
        return value.pk
    if isinstance(value, (list, tuple, set)) or hasattr(value, "model"):
        return [_plain(item) for item in value]
    return str(value)


class AuditedAdminMixin:
    """
    Writes through the admin leave an audit event like the app's own:
    ``<model>.admin_add``, ``<model>.admin_change`` with each changed field as
    ``[old, new]``, and ``<model>.admin_delete`` (also for the bulk delete action).
    """

    def _audit(self, request, obj, verb, changes=None):
        record(
            actor=request.user,
            action=f"{obj._meta.model_name}.admin_{verb}",
            target=obj,
            changes=changes,
        )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        changes = {
            name: [
                _plain(form.initial.get(name)) if change else None,
                _plain(form.cleaned_data.get(name)),
            ]
            for name in form.changed_data
        }
        self._audit(request, obj, "change" if change else "add", changes)

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if protected:
            # Nothing is deleted while rows are protected: say that, not that the account
            # lacks the right to delete rows (read-only here) that would never be deleted.
            perms_needed = set()
        return deleted, counts, perms_needed, protected

    def delete_model(self, request, obj):
        self._audit(request, obj, "delete")
        super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self._audit(request, obj, "delete")
        super().delete_queryset(request, queryset)


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
class OrganisationAdmin(AuditedAdminMixin, admin.ModelAdmin):
    """The publisher's name, address, logo and corrections policy, set once."""

    list_display = ["name", "url", "corrections_policy_url"]
    search_fields = ["name"]

    def has_add_permission(self, request):
        return not Organisation.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False


class PreferencesForm(forms.ModelForm):
    language = forms.ChoiceField(
        label=_("language"),
        choices=[("", _("The browser's language")), *settings.LANGUAGES],
        required=False,
    )

    class Meta:
        model = Preferences
        fields = ["user", "language"]


@admin.register(Preferences)
class PreferencesAdmin(AuditedAdminMixin, admin.ModelAdmin):
    """
    Each desk user's interface language, which they choose from the language menu.
    Set here for someone who cannot read the one they are stuck in; it takes effect
    at their next login (a session keeps the language it read at login).
    """

    form = PreferencesForm
    list_display = ["user", "language"]
    list_filter = ["language"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
    raw_id_fields = ["user"]
