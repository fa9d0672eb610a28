"""
A task that is running when ``bench/load.py`` stops PostgreSQL: the worker must
see it cut off by the lost database and run it again once the database is back.
"""

import time

from django.db import connection
from django.tasks import task


@task(priority=100)
def use_the_database_until(deadline):
    """
    Query the database every quarter second until ``deadline`` (a Unix time
    set a few seconds into the outage); it returns how many queries it ran.
    Its first run meets the outage. Its second run, after the restart, is
    past the deadline and needs only one query.
    """
    queries = 0
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        queries += 1
        if time.time() >= deadline:
            return queries
        time.sleep(0.25)
