"""The audit trail: every service function that changes something records it here."""

from django.contrib.contenttypes.models import ContentType
from django.utils import translation

from factcheck.models import AuditEvent


def acting_user(actor):
    """``actor`` if it is a real, logged-in user; None for the system or anonymous."""
    return actor if actor is not None and actor.is_authenticated else None


def record(*, actor, action, target, changes=None):
    """
    Append an audit event saying that ``actor`` did ``action`` to ``target``.

    ``actor`` may be None for the system (seeding, background tasks) or an
    anonymous user, which is stored as None too. ``changes`` is a JSON-able dict,
    by convention ``{"field": [old, new]}`` for edits.
    """
    # The trail is read in every language: what names the target is kept as the
    # code writes it (English), never in the language of the request that acted.
    with translation.override(None):
        target_repr = str(target)[:300]
    return AuditEvent.objects.create(
        actor=acting_user(actor),
        action=action,
        target_type=ContentType.objects.get_for_model(target),
        target_id=str(target.pk),
        target_repr=target_repr,
        changes=changes or {},
    )


def latest_history_for(target, count):
    """The ``count`` latest audit events about ``target``, newest first, in a list."""
    return list(
        AuditEvent.objects.filter(
            target_type=ContentType.objects.get_for_model(target), target_id=str(target.pk)
        ).select_related("actor")[:count]
    )
