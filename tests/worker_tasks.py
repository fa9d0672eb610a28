"""Tasks that exist only for the worker smoke test."""

from django.tasks import task

from factcheck.audit import record
from sources.models import Source


@task
def record_worker_heartbeat(source_id):
    record(actor=None, action="worker.heartbeat", target=Source.objects.get(pk=source_id))
    return source_id
