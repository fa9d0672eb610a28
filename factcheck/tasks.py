"""
The worker's housekeeping: what a deployment otherwise forgets to do.

django-tasks-db has no schedule of its own, but a task can be enqueued to run
after a given time (``run_after``). ``housekeeping`` does its work and enqueues
its next run ``HOUSEKEEPING_INTERVAL_SECONDS`` later; ``schedule_housekeeping``,
called by ``manage.py task_worker`` when it starts, enqueues one if none is
waiting, so the chain starts by itself and starts again if it was ever broken.
"""

import logging
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.db import transaction
from django.tasks import TaskResultStatus, default_task_backend, task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger("factcheck.housekeeping")

HOUSEKEEPING_PATH = "factcheck.tasks.housekeeping"


def expired_sessions_clear() -> None:
    """What ``manage.py clearsessions`` does: drop the sessions past their expiry."""
    engine = import_module(settings.SESSION_ENGINE)
    # Backends that expire on their own (the cache, signed cookies) have nothing to clear.
    engine.SessionStore.clear_expired()


def old_task_results_delete(*, older_than_days: int) -> int:
    """
    Delete finished task results (succeeded or failed) that finished more than
    ``older_than_days`` days ago; waiting and running tasks are never touched.
    Returns how many were deleted.
    """
    cutoff = timezone.now() - timedelta(days=older_than_days)
    deleted, _ = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED],
        finished_at__lt=cutoff,
    ).delete()
    return deleted


def schedule_housekeeping(*, delay_seconds: int | None = None) -> bool:
    """
    Enqueue the next housekeeping run, ``delay_seconds`` from now (default
    ``HOUSEKEEPING_INTERVAL_SECONDS``), unless one is already waiting. Only with
    a backend that can defer a task (the database's); True if one was enqueued.
    """
    if not default_task_backend.supports_defer:
        return False
    delay = settings.HOUSEKEEPING_INTERVAL_SECONDS if delay_seconds is None else delay_seconds
    with transaction.atomic():
        waiting = DBTaskResult.objects.select_for_update().filter(
            task_path=HOUSEKEEPING_PATH, status=TaskResultStatus.READY
        )
        if waiting.exists():
            return False
        housekeeping.using(run_after=timezone.now() + timedelta(seconds=delay)).enqueue()
    return True


@task
def housekeeping():
    """
    Clear expired sessions and delete finished task results older than
    ``TASK_RESULT_RETENTION_DAYS``, then enqueue the next run. Safe to run twice.
    """
    expired_sessions_clear()
    deleted = old_task_results_delete(older_than_days=settings.TASK_RESULT_RETENTION_DAYS)
    logger.info(
        "housekeeping: expired sessions cleared, %d old task results deleted",
        deleted,
        extra={"task_results_deleted": deleted},
    )
    # This run is still RUNNING, so the next one is not "already waiting".
    schedule_housekeeping()
    return {"task_results_deleted": deleted}
