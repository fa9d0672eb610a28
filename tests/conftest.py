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
    # Read before the teardown forgets them: a test skipped before its fixtures
    # ran has none, and flushed nothing (the database may not even be set up).
    fixtures_ran = bool(getattr(item, "funcargs", None))
    result = yield
    marker = item.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in item.fixturenames for name in ("transactional_db", "live_server")
    )
    # After the last test the test database is already gone.
    if transactional and fixtures_ran and nextitem is not None:
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
