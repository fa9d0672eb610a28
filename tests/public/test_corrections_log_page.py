"""The public corrections log's page."""

import pytest
from django.urls import reverse

from tests.factories import (
    CorrectionFactory,
    PublishedCorrectionFactory,
)

pytestmark = pytest.mark.django_db


def test_the_public_corrections_log_shows_published_entries_only(client, first_case):
    published = PublishedCorrectionFactory(case=first_case, what_was_wrong="Published wording")
    CorrectionFactory(case=first_case, what_was_wrong="Draft wording")

    response = client.get(reverse("claims:corrections_log"))

    assert response.status_code == 200
    assert "Published wording" in response.text
    assert "Draft wording" not in response.text
    assert f'id="correction-{published.pk}"' in response.text


def test_the_corrections_log_has_an_empty_state(client, db):
    assert "No corrections published" in client.get(reverse("claims:corrections_log")).text
