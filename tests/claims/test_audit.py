import pytest
from django.db import transaction

from factcheck.audit import latest_history_for, record
from factcheck.models import AppendOnlyError, AuditEvent
from tests.factories import SourceFactory

pytestmark = pytest.mark.django_db


def test_record_stores_actor_action_target_and_changes(editor):
    source = SourceFactory(title="Paper")

    event = record(actor=editor, action="source.edit", target=source, changes={"title": ["a", "b"]})

    assert event.actor == editor
    assert event.target == source
    assert event.target_repr == "Paper"
    assert latest_history_for(source, 200) == [event]


def test_an_audit_event_cannot_be_changed_or_deleted_through_the_model(editor):
    event = record(actor=editor, action="source.edit", target=SourceFactory())

    event.action = "something.else"
    with pytest.raises(AppendOnlyError):
        event.save()
    with pytest.raises(AppendOnlyError):
        event.delete()
    assert AuditEvent.objects.get(pk=event.pk).action == "source.edit"


def test_the_database_refuses_to_update_an_audit_event(editor):
    event = record(actor=editor, action="source.edit", target=SourceFactory())

    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(action="forged")

    assert AuditEvent.objects.get(pk=event.pk).action == "source.edit"
