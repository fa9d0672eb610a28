import pytest

from claims.seed import seed_first_case
from tests.factories import EditorFactory, ReviewerFactory


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
