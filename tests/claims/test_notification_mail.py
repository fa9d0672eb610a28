"""Every workflow mail names its claim, links to where its reader acts, and has an HTML part."""

import lxml.html
import pytest
from django.urls import reverse

from claims.models import Claim, Decision
from claims.services import claim_submit_for_review, claim_update, review_decide, reviewer_assign
from claims.workflow import claim_digest
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    EditorFactory,
    EvidenceFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
)

pytestmark = pytest.mark.django_db

SITE = "https://factcheck.example.org"


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


@pytest.fixture
def claim(editor):
    """A claim ready for review, with a title and a statement long enough to be cut."""
    case = CaseFactory(title="Inference speed claims", lead_editor=EditorFactory())
    claim = ClaimFactory(
        case=case,
        author=EditorFactory(),
        verdict=RatingFactory(),
        statement="The new chip answers a thousand and eleven tokens per second, "
        "2.6 times the fastest rival measured in the same week.",
    )
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    return claim


def html_of(message):
    (html, media_type), *_more = message.alternatives
    assert media_type == "text/html"
    return lxml.html.fromstring(html)


def assert_links_to(message, path):
    """The plain text and the HTML both carry the absolute address of ``path``."""
    link = SITE + path
    assert link in message.body
    assert link in [anchor.get("href") for anchor in html_of(message).iter("a")]


def expected_subject(heading, claim):
    return (
        f"[factcheck] {heading}: claim {claim.number} of “Inference speed claims” — "
        "The new chip answers a thousand and eleven tokens per secon…"
    )


def test_the_assignment_mail_names_the_claim_and_links_to_the_review_page(
    claim, editor, mailoutbox
):
    reviewer = ReviewerFactory()

    assignment = reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)

    (message,) = mailoutbox
    assert message.to == [reviewer.email]
    assert message.subject == expected_subject("Review requested", claim)
    assert_links_to(message, reverse("claims:review", args=[assignment.pk]))
    assert "not in review yet" in message.body
    assert claim.statement in html_of(message).text_content()


def test_the_mail_sending_a_claim_to_review_links_each_reviewer_to_their_own_review_page(
    claim, editor, mailoutbox
):
    first, second = ReviewerFactory(), ReviewerFactory()
    for reviewer in (first, second):
        reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    mailoutbox.clear()

    claim_submit_for_review(claim=claim, editor=editor)

    by_address = {message.to[0]: message for message in mailoutbox}
    assert set(by_address) == {first.email, second.email}
    for reviewer in (first, second):
        message = by_address[reviewer.email]
        assert message.subject == expected_subject("Ready for your review", claim)
        assignment = claim.assignments.get(reviewer=reviewer)
        assert_links_to(message, reverse("claims:review", args=[assignment.pk]))


def test_the_decision_mail_links_the_author_and_the_lead_editor_to_the_claim_page(
    claim, editor, mailoutbox
):
    reviewer = ReviewerFactory()
    assignment = reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim = claim_submit_for_review(claim=claim, editor=editor)
    mailoutbox.clear()

    review_decide(
        assignment=assignment,
        reviewer=reviewer,
        decision=Decision.CHANGES_REQUESTED,
        comment="Cite the table, not the abstract.",
        digest_seen=claim_digest(claim),
    )

    assert sorted(message.to[0] for message in mailoutbox) == sorted(
        [claim.author.email, claim.case.lead_editor.email]
    )
    for message in mailoutbox:
        assert message.subject == expected_subject("Changes requested", claim)
        assert_links_to(message, claim.get_absolute_url())
        assert "Cite the table, not the abstract." in message.body
        assert "Cite the table, not the abstract." in html_of(message).text_content()


def test_the_voided_sign_off_mail_links_the_reviewer_to_the_review_page(claim, editor, mailoutbox):
    reviewer = ReviewerFactory()
    assignment = reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim = claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=assignment,
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )
    claim = Claim.objects.get(pk=claim.pk)
    mailoutbox.clear()

    claim_update(claim=claim, editor=editor, expected_version=claim.version, claimant="Another")

    (message,) = [message for message in mailoutbox if message.to == [reviewer.email]]
    assert message.subject == expected_subject("Your sign-off no longer holds", claim)
    assert_links_to(message, reverse("claims:review", args=[assignment.pk]))
    assert "Please review it again." in message.body


def test_a_statement_over_several_lines_makes_a_subject_of_one_line(claim, editor, mailoutbox):
    Claim.objects.filter(pk=claim.pk).update(statement="Two lines:\nthe second one.")
    claim.refresh_from_db()

    reviewer_assign(claim=claim, reviewer=ReviewerFactory(), editor=editor)

    assert mailoutbox[0].subject.endswith("— Two lines: the second one.")


def test_the_plain_text_keeps_quotes_and_ampersands_as_written(claim, editor, mailoutbox):
    Claim.objects.filter(pk=claim.pk).update(statement='Speed & "accuracy" <both> doubled.')
    claim.refresh_from_db()

    reviewer_assign(claim=claim, reviewer=ReviewerFactory(), editor=editor)

    assert 'Speed & "accuracy" <both> doubled.' in mailoutbox[0].body
    assert "&lt;both&gt;" in mailoutbox[0].alternatives[0][0]
