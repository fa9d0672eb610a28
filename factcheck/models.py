from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy as _


class AppendOnlyError(Exception):
    """Raised when code tries to change or delete an append-only record."""


class AuditEvent(models.Model):
    """
    One thing that happened: who did what to which object, and what changed.

    Append-only. Service functions write events through ``factcheck.audit.record``;
    nothing updates or deletes them, which the model refuses and, on both
    supported databases, a trigger refuses too (see migration 0002).
    """

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_events",
        help_text=_("Empty for changes made by the system (seeding, background tasks)."),
    )
    action = models.CharField(max_length=100, db_index=True)
    target_type = models.ForeignKey(ContentType, on_delete=models.PROTECT)
    target_id = models.CharField(max_length=64)
    target = GenericForeignKey("target_type", "target_id")
    target_repr = models.CharField(
        max_length=300, help_text=_("How the target read when the event happened.")
    )
    changes = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id", "-created_at"])]
        verbose_name = _("audit event")

    def __str__(self):
        who = self.actor or "system"
        return f"{who} {self.action} {self.target_repr}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnlyError("Audit events are append-only and cannot be changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("Audit events are append-only and cannot be deleted.")


class SearchEntry(models.Model):
    """
    One searchable passage: a chunk of a source's text or a claim.

    Written through ``factcheck.search`` by the apps that own the content. The
    full-text index lives beside this table: an FTS5 table kept in step by
    triggers on SQLite, a GIN index on PostgreSQL (migration 0004).
    """

    kind = models.CharField(max_length=20)
    object_id = models.PositiveBigIntegerField()
    title = models.CharField(max_length=500)
    body = models.TextField()
    url = models.CharField(max_length=500)
    location = models.CharField(max_length=100, blank=True)
    position = models.PositiveIntegerField(default=0, help_text=_("Order within the object."))
    #: The passage's language (a code from factcheck.languages), which picks the
    #: PostgreSQL text search configuration its words are stemmed with.
    language = models.CharField(max_length=16, blank=True, default="")

    class Meta:
        ordering = ["kind", "object_id", "position"]
        indexes = [models.Index(fields=["kind", "object_id"])]
        verbose_name_plural = _("search entries")

    def __str__(self):
        return f"{self.kind} {self.object_id}: {self.title}"


class Organisation(models.Model):
    """
    Who publishes the fact-checks: set once in the admin, used on every public
    page, in the ClaimReview markup and in the feeds. There is one row.
    """

    name = models.CharField(max_length=200, default="factcheck")
    url = models.URLField(_("URL"), blank=True)
    logo_url = models.URLField(_("logo URL"), blank=True)
    corrections_policy = models.TextField(
        blank=True,
        default=(
            "We correct errors openly. Every correction, clarification and update to a "
            "published fact-check is listed in this log, newest first, and is never edited or "
            "removed: a later change is a new entry that supersedes the old one."
        ),
    )
    corrections_policy_url = models.URLField(_("corrections policy URL"), blank=True)
    #: Every public page's ETag names it (the name, logo and policy show on them all).
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("organisation")

    def __str__(self):
        return self.name

    @classmethod
    def current(cls):
        """The organisation's settings (created with defaults on first use)."""
        organisation, _created = cls.objects.get_or_create(pk=1)
        return organisation


class Preferences(models.Model):
    """A desk user's own settings: for now, the interface language they chose."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    language = models.CharField(
        max_length=16,
        blank=True,
        help_text=_("A language code from LANGUAGES; empty follows the browser."),
    )

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self):
        return f"{self.user}: {self.language or 'browser'}"
