import pytest
from django.core.cache import caches
from pytest_django.plugin import blocking_manager_key

from claims.seed import seed_first_case
from tests.factories import EditorFactory, ReviewerFactory
from tests.migrated_rows import restore_data_migrations


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """
    After a transactional test's tables have been flushed (the last of its
    fixtures to finish), put back the rows the data migrations made, so the
    tests after it see a freshly migrated database.
    """
    # The fixtures that were set up: a test skipped before its database was set up
    # flushed nothing, and the database may not even exist yet.
    set_up = set(getattr(item, "funcargs", None) or ())
    result = yield
    marker = item.get_closest_marker("django_db")
    flushed = (
        marker is not None and marker.kwargs.get("transaction") and "_django_db_marker" in set_up
    ) or bool(set_up & {"transactional_db", "live_server"})
    # After the last test the test database is already gone.
    if flushed and nextitem is not None:
        with item.config.stash[blocking_manager_key].unblock():
            restore_data_migrations()
    return result


@pytest.fixture(autouse=True)
def empty_cache():
    """
    Every test starts with empty caches: a public page stored by one test
    (its ETag may well be the same, an empty log's) must not answer another.
    """
    for cache in caches.all():
        cache.clear()
    yield


@pytest.fixture
def editor(db):
    return EditorFactory(username="test-editor")


@pytest.fixture
def reviewer(db):
    return ReviewerFactory(username="test-reviewer")


@pytest.fixture
def first_case(db):
    return seed_first_case().case


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client
