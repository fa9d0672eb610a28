"""Tasks for tests/platform/test_database_outage.py: each meets a database really not there."""

import time

from django.db import connections
from django.tasks import task
from django_tasks_db.models import DBTaskResult

#: The alias tests/platform/test_database_outage.py points at a database that cannot be opened.
UNREACHABLE = "unreachable"


class OutageRouter:
    """
    Sends the task queue's queries to the unreachable database while ``down_until``
    (a ``time.monotonic()``) is in the future: the queue's database is gone for that long.
    """

    down_until = 0.0

    def _route(self, model, **hints):
        if model is DBTaskResult and time.monotonic() < self.down_until:
            return UNREACHABLE
        return None

    db_for_read = db_for_write = _route

    @classmethod
    def lose_the_database_for(cls, seconds):
        cls.down_until = time.monotonic() + seconds


@task
def query_the_unreachable_database():
    connections[UNREACHABLE].ensure_connection()


@task
def raise_a_value_error():
    raise ValueError("not a database problem")


@task(takes_context=True)
def lose_the_database_during_the_first_run(context):
    """On its first run the queue's database goes away under it; the second run succeeds."""
    if context.attempt == 1:
        OutageRouter.lose_the_database_for(1.0)
        connections[UNREACHABLE].ensure_connection()
    return context.attempt
