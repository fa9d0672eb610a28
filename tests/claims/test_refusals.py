"""Refusals that views let through are answered in one place, each with its status code."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django_htmx.middleware import HtmxDetails

from claims.services import EditConflict
from factcheck.exceptions import Conflict, NotAllowed, NotFound, Refused
from factcheck.middleware import RefusalMiddleware
from tests.factories import ClaimFactory

pytestmark = pytest.mark.django_db


def answer(exception, *, htmx=False):
    headers = {"HX-Request": "true"} if htmx else {}
    request = RequestFactory().post("/cases/some-case/claims/1/edit/", headers=headers)
    request.user = AnonymousUser()
    request.htmx = HtmxDetails(request)
    return RefusalMiddleware(lambda request: None).process_exception(request, exception)


@pytest.mark.parametrize(
    "refusal, status, heading",
    [
        (NotAllowed("Only an editor can edit a claim."), 403, "You are not allowed"),
        (NotFound("That claim was deleted meanwhile."), 404, "Page not found"),
        (Conflict("The claim was published meanwhile."), 409, "This could not be done"),
    ],
)
def test_a_refusal_is_its_status_with_a_page_that_says_why(refusal, status, heading):
    response = answer(refusal)

    assert response.status_code == status
    text = response.content.decode()
    assert heading in text
    assert refusal.message in text
    assert "<html" in text


@pytest.mark.parametrize("refusal_class", [NotAllowed, NotFound, Conflict])
def test_a_refusal_of_a_part_of_a_page_is_its_sentence_in_plain_text(refusal_class):
    response = answer(refusal_class("Only an editor can edit a claim."), htmx=True)

    assert response.status_code == refusal_class.status
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode() == "Only an editor can edit a claim."


def test_an_edit_conflict_is_a_conflict_that_carries_the_stored_claim():
    claim = ClaimFactory()

    conflict = EditConflict(claim)

    assert isinstance(conflict, Conflict) and isinstance(conflict, Refused)
    assert (conflict.status, conflict.code, conflict.current) == (409, "edit_conflict", claim)
    assert str(conflict) == f"The claim was changed by someone else (now version {claim.version})."


def test_other_exceptions_are_left_to_django():
    assert answer(ValueError("not ours")) is None
