"""
``manage.py task_worker``: django-tasks-db's ``db_worker`` that outlives a lost database.

``db_worker`` on its own ends at the first database error it does not expect:
its loop re-raises any ``OperationalError`` that is not SQLite's "database is
locked", so a PostgreSQL restart kills the process with a traceback. Worse, a
task that was running at that moment stays RUNNING for ever: the worker
claimed it (RUNNING, committed), the task failed on the missing database, and
recording the failure failed too.

This command takes the same options and runs the same worker, with two
changes:

- a database error ends one pass of the worker's loop, not the process: the
  worker drops its connections, waits ``--retry-delay`` seconds (logging once
  a try) and starts the loop again, for as long as it takes;
- a task that a lost database cut off is put back to READY and run again:
  one left RUNNING because its outcome could not be written, and one that was
  recorded as FAILED with a database error as its cause, up to
  ``MAX_ATTEMPTS`` runs in all (the claims the row's ``worker_ids`` counts).
  Our tasks are written so that running one twice does no harm.

It also starts the housekeeping chain (factcheck/tasks.py): when it starts,
it enqueues a housekeeping run a minute later unless one is already waiting
(``--no-housekeeping`` leaves it out).
"""

import contextlib
import logging
import os
import time

from django.core.management.base import CommandError
from django.db import connections
from django.tasks import TaskResultStatus
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django.utils.module_loading import import_string
from django_tasks_db.management.commands.db_worker import Command as DbWorkerCommand
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult

from factcheck.database_outage import DATABASE_UNAVAILABLE
from factcheck.tasks import schedule_housekeeping

logger = logging.getLogger("factcheck.worker")

#: A task cut off by lost databases this many times stays FAILED.
MAX_ATTEMPTS = 5


def _failed_on_the_database(db_task_result):
    try:
        error_class = import_string(db_task_result.exception_class_path)
    except ImportError:
        return False
    return isinstance(error_class, type) and issubclass(error_class, DATABASE_UNAVAILABLE)


def requeue(task_id):
    """Put a task that a lost database cut off back in the queue; True if it was."""
    return bool(
        DBTaskResult.objects.filter(
            pk=task_id, status__in=[TaskResultStatus.RUNNING, TaskResultStatus.FAILED]
        ).update(
            status=TaskResultStatus.READY,
            started_at=None,
            finished_at=None,
            exception_class_path="",
            traceback="",
        )
    )


class OutageTolerantWorker(Worker):
    """The db_worker loop, restarted after a database error instead of dying with it."""

    def __init__(self, *, retry_delay=1.0, housekeeping=False, **options):
        super().__init__(**options)
        self.retry_delay = retry_delay
        #: Whether to start the housekeeping chain (once the database answers).
        self.housekeeping = housekeeping
        #: The task a lost database cut off, to requeue once the database is back.
        self.interrupted = None

    def run_task(self, db_task_result):
        try:
            super().run_task(db_task_result)
        except DATABASE_UNAVAILABLE:
            # The task's failure could not be recorded either: it is still RUNNING.
            self.interrupted = db_task_result.pk
            raise
        if (
            db_task_result.status == TaskResultStatus.FAILED
            and _failed_on_the_database(db_task_result)
            and len(db_task_result.worker_ids) < MAX_ATTEMPTS
        ):
            self.interrupted = db_task_result.pk
            requeue(db_task_result.pk)
            self.interrupted = None
            logger.warning("Task %s failed on the database; it will run again.", db_task_result.pk)

    def run(self):
        tries = 0
        while True:
            try:
                if self.interrupted is not None:
                    if requeue(self.interrupted):
                        logger.warning(
                            "Task %s was cut off by the lost database; it will run again.",
                            self.interrupted,
                        )
                    self.interrupted = None
                if self.housekeeping:
                    # Soon, not at once: a worker that restarts in a loop does not run it each time.
                    schedule_housekeeping(delay_seconds=60)
                    self.housekeeping = False
                super().run()
                return
            except DATABASE_UNAVAILABLE as error:
                tries += 1
                logger.warning(
                    "The database is unavailable (%s); the worker tries again in %g s (try %d).",
                    str(error).strip().splitlines()[0] if str(error).strip() else type(error),
                    self.retry_delay,
                    tries,
                )
                for connection in connections.all(initialized_only=True):
                    with contextlib.suppress(DATABASE_UNAVAILABLE):
                        connection.close()
                time.sleep(self.retry_delay)


class Command(DbWorkerCommand):
    help = (
        "Run the database background worker (django-tasks-db's db_worker), surviving a lost "
        "database: it retries until the database is back and reruns the task it cut off."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--retry-delay",
            type=float,
            default=1.0,
            help="Seconds to wait before trying a lost database again (default: %(default)r)",
        )
        parser.add_argument(
            "--no-housekeeping",
            action="store_false",
            dest="housekeeping",
            help="Do not start the periodic housekeeping task (factcheck/tasks.py)",
        )

    def handle(
        self,
        *,
        verbosity,
        queue_name,
        interval,
        batch,
        backend_name,
        startup_delay,
        reload,
        max_tasks,
        worker_id,
        exclude_queues,
        retry_delay,
        housekeeping=True,
        **options,
    ):
        # db_worker's own handle, building our worker instead of its own.
        self.configure_logging(verbosity)
        if reload and batch:
            reload = False
        queue_names = queue_name.split(",")
        excluded_queue_names = exclude_queues.split(",") if exclude_queues else []
        if excluded_queue_names and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = OutageTolerantWorker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id,
            excluded_queue_names=excluded_queue_names,
            retry_delay=retry_delay,
            housekeeping=housekeeping,
        )
        if reload:
            if os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
                worker.configure_signals()
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
