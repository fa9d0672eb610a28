"""
Line breaks as a browser sends them (CR LF) are read as the app keeps them (LF):
a text is as long as the browser counted it, and a selection across paragraphs
matches the stored text.
"""

import pytest
from django.urls import reverse

from claims.models import CORRECTION_TEXT_CHARS, Claim, ClaimStatus, Correction
from tests.factories import ClaimFactory, RatingFactory

pytestmark = pytest.mark.django_db

LINES = 20


def as_a_browser_sends_it(text):
    return text.replace("\n", "\r\n")


@pytest.fixture
def published_claim(editor):
    claim = ClaimFactory(author=editor, verdict=RatingFactory())
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    return claim


@pytest.mark.parametrize("encoding", ["multipart", "urlencoded"])
def test_a_correction_at_the_limit_in_lines_is_taken_and_kept_with_lf(
    editor_client, published_claim, encoding
):
    line = "x" * (CORRECTION_TEXT_CHARS // LINES - 1)
    text = "\n".join([line] * LINES) + "x"  # exactly the limit, counting each LF as one
    assert len(text) == CORRECTION_TEXT_CHARS
    fields = {
        "case": published_claim.case_id,
        "claim": published_claim.pk,
        "kind": "correction",
        "what_was_wrong": as_a_browser_sends_it(text),
        "what_is_right": as_a_browser_sends_it("The parts\nadd up to 460 seconds."),
    }
    url = reverse("claims:correction_draft")
    if encoding == "multipart":
        response = editor_client.post(url, fields)
    else:
        body = "&".join(f"{name}={value}" for name, value in fields.items()).replace(
            "\r\n", "%0D%0A"
        )
        response = editor_client.post(url, body, content_type="application/x-www-form-urlencoded")

    assert response.status_code == 302, response.text[:2000]
    draft = Correction.objects.get()
    assert draft.what_was_wrong == text
    assert draft.what_is_right == "The parts\nadd up to 460 seconds."


def test_a_selection_across_paragraphs_sent_by_a_plain_form_matches_the_stored_text(
    editor_client, first_case
):
    text = first_case.source_under_check.latest_version.extracted_text
    paragraph_break = text.index("\n", 200)
    start = text.rindex(". ", 0, paragraph_break) + 2
    end = text.index(".", paragraph_break + 1) + 1
    assert "\n" in text[start:end]

    response = editor_client.post(
        reverse("claims:claim_create", args=[first_case.slug]),
        {
            "start": start,
            "end": end,
            "selected_text": as_a_browser_sends_it(text[start:end]),
            "statement": as_a_browser_sends_it("Two sentences,\non two lines."),
        },
    )

    assert response.status_code == 302
    claim = Claim.objects.get(statement="Two sentences,\non two lines.")
    assert (claim.quotation.start, claim.quotation.exact) == (start, text[start:end])
