"""Pages at newsroom scale: the health check, and query counts that do not grow with the data."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_the_health_check_answers_ok_to_anyone_without_touching_the_database(client):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("healthz"))

    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert len(captured) == 0


def test_the_health_check_is_not_redirected_to_https(client, settings):
    settings.SECURE_SSL_REDIRECT = True

    assert client.get(reverse("healthz")).status_code == 200
    assert client.get(reverse("claims:corrections_log")).status_code == 301
