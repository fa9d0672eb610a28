"""
The rows that data migrations make (the roles, the default rating scale).

A transactional test ends by flushing every table, these rows included; the
next test would find no Editor group and no ratings. They are put back before
the tests that need them and after every transactional test (tests/conftest.py).
"""

import importlib

from django.apps import apps as django_apps

DATA_MIGRATIONS = (
    ("factcheck.migrations.0003_roles", "create_roles"),
    ("claims.migrations.0002_default_rating_scale", "create_default_scale"),
)


def restore_data_migrations():
    """Run the data migrations' functions again; each is idempotent."""
    for module, function in DATA_MIGRATIONS:
        getattr(importlib.import_module(module), function)(django_apps, None)
