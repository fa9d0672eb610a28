"""
Separation of duties by what people did, not by their roles: nobody reviews,
approves or publishes a claim whose content they wrote or changed since it was
last in draft (``claims.workflow.own_work_refusal``), and nobody who wrote a
correction, or turned a reader's report into it, approves it.
"""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from claims.corrections import correction_approve, correction_draft, correction_draft_from_report
from claims.models import Claim, ClaimStatus, Decision, ReviewAssignment
from claims.reports import report_convert, report_submit
from claims.seed import seed_first_case
from claims.services import (
    claim_create,
    claim_submit_for_review,
    claim_update,
    evidence_add,
    review_decide,
    reviewer_assign,
)
from claims.workflow import (
    Action,
    claim_digest,
    claim_transition,
    contributors_since_draft,
    own_work_refusal,
)
from factcheck.audit import record
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from factcheck.roles import EDITOR, REVIEWER
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    EditorFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
    SourceVersionFactory,
    UserFactory,
    in_group,
)

pytestmark = pytest.mark.django_db


class DualRoleFactory(UserFactory):
    """A member of both Editor and Reviewer, as small desks have."""

    editor_role = in_group(EDITOR)
    reviewer_role = in_group(REVIEWER)


@pytest.fixture
def desk():
    """Ed writes claims, Dana holds both roles, Rosa reviews, Eve is another editor."""

    class Desk:
        ed = EditorFactory(username="ed")
        dana = DualRoleFactory(username="dana")
        rosa = ReviewerFactory(username="rosa")
        eve = EditorFactory(username="eve")

    return Desk


def a_claim_by(author):
    """A draft claim that ``author`` made through the service, in a case of its own."""
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    return claim_create(
        case=case,
        quotation=QuotationFactory(version=version),
        statement="The compiler reached 1,111 tokens per second.",
        claimant="Together AI",
        author=author,
    )


def written_by(editor, claim):
    """``editor`` gives ``claim`` its verdict, rationale and evidence, through the services."""
    claim_update(
        claim=claim,
        editor=editor,
        expected_version=claim.version,
        verdict=RatingFactory(),
        rationale="The benchmark table gives 1,111 tokens per second.",
    )
    evidence_add(
        claim=claim,
        quotation=QuotationFactory(exact="467 seconds"),
        stance="supports",
        editor=editor,
    )
    return Claim.objects.get(pk=claim.pk)


def approved_by(claim, reviewer, editor):
    """``claim`` sent to review by ``editor`` and approved by ``reviewer``, its only reviewer."""
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=claim.assignments.get(reviewer=reviewer),
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(Claim.objects.get(pk=claim.pk)),
    )
    return Claim.objects.get(pk=claim.pk)


def page(claim, name):
    return reverse(f"claims:{name}", args=[claim.case.slug, claim.pk])


# The rule itself.


def test_the_contributors_are_the_author_and_whoever_changed_the_content(desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))

    assert contributors_since_draft(claim) == {desk.ed.pk, desk.dana.pk}


def test_the_refusal_says_what_the_person_wrote_or_changed(desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))

    assert own_work_refusal(claim=claim, user=desk.dana, doing="review") == (
        "You changed this claim's verdict, rationale and evidence since it was last in draft, "
        "so someone else must review it."
    )
    assert own_work_refusal(claim=claim, user=desk.ed, doing="publish") == (
        "You wrote this claim, so someone else must publish it."
    )
    assert own_work_refusal(claim=claim, user=desk.rosa, doing="review") is None


def test_a_claim_the_system_made_is_the_work_of_whoever_changed_it(desk):
    claim = written_by(desk.dana, a_claim_by(None))

    assert contributors_since_draft(claim) == {desk.dana.pk}


def test_a_return_to_draft_starts_the_count_afresh(desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))
    # No action returns a claim to draft today; one that did would record it so.
    record(actor=desk.eve, action="claim.redraft", target=claim, changes={"status": ["x", "draft"]})
    claim_update(claim=claim, editor=desk.eve, expected_version=claim.version, claimant="TAI")

    assert contributors_since_draft(Claim.objects.get(pk=claim.pk)) == {desk.eve.pk}


# A dual-role user who changed the claim, through every path.


def test_a_dual_role_user_cannot_assign_herself_to_review_what_she_changed(desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))

    with pytest.raises(ValidationError) as refused:
        reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.dana)

    assert refused.value.error_dict["reviewer"][0].code == "own_work"
    assert "You changed this claim's verdict" in refused.value.messages[0]
    assert not claim.assignments.exists()


def test_an_editor_cannot_assign_as_reviewer_someone_who_changed_the_claim(desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))

    with pytest.raises(ValidationError, match="dana changed this claim's verdict"):
        reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.eve)
    assert not claim.assignments.exists()


def test_the_reviewer_choices_leave_out_who_wrote_or_changed_the_claim(client, desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))
    client.force_login(desk.eve)

    response = client.get(page(claim, "claim_detail"))

    offered = set(response.context["assign_form"].fields["reviewer"].queryset)
    assert desk.rosa in offered
    assert desk.dana not in offered


def test_self_assignment_through_the_page_is_refused_with_the_reason(client, desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))
    client.force_login(desk.dana)

    response = client.post(page(claim, "reviewer_assign"), {"reviewer": desk.dana.pk})

    assert response.status_code == 422
    assert "so someone else must review it" in response.text
    assert not claim.assignments.exists()


def test_the_review_page_says_why_instead_of_offering_the_decision(client, desk):
    claim = a_claim_by(desk.ed)
    # Assigned while the claim was still Ed's alone; then she edited it as an editor.
    reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.ed)
    claim = written_by(desk.dana, claim)
    claim_submit_for_review(claim=claim, editor=desk.ed)
    assignment = claim.assignments.get()
    client.force_login(desk.dana)

    response = client.get(reverse("claims:review", args=[assignment.pk]))

    assert response.status_code == 200
    assert "verdict, rationale and evidence since it was last in draft" in response.text
    assert "Record decision" not in response.text


def test_a_decision_posted_on_ones_own_work_is_refused_and_changes_nothing(client, desk):
    claim = a_claim_by(desk.ed)
    reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.ed)
    claim = written_by(desk.dana, claim)
    claim_submit_for_review(claim=claim, editor=desk.ed)
    assignment = claim.assignments.get()
    events = AuditEvent.objects.count()
    client.force_login(desk.dana)

    response = client.post(
        reverse("claims:review", args=[assignment.pk]),
        {"decision": "approved", "comment": "", "digest": claim_digest(claim)},
    )

    assert response.status_code == 403
    assert "someone else must review it" in response.text
    assert ReviewAssignment.objects.get(pk=assignment.pk).decision == Decision.PENDING
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW
    assert AuditEvent.objects.count() == events


def test_the_review_service_refuses_a_decision_on_ones_own_work(desk):
    claim = a_claim_by(desk.ed)
    reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.ed)
    claim = written_by(desk.dana, claim)
    claim_submit_for_review(claim=claim, editor=desk.ed)

    for decision in (Decision.APPROVED, Decision.CHANGES_REQUESTED):
        with pytest.raises(NotAllowed) as refused:
            review_decide(
                assignment=claim.assignments.get(),
                reviewer=desk.dana,
                decision=decision,
                comment="Fine.",
                digest_seen=claim_digest(claim),
            )
        assert refused.value.code == "own_work"
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW


def test_whoever_changed_the_claim_is_offered_no_publish_and_cannot_publish(client, desk):
    claim = approved_by(written_by(desk.dana, a_claim_by(desk.ed)), desk.rosa, desk.ed)
    client.force_login(desk.dana)

    response = client.get(page(claim, "claim_detail"))
    assert Action.PUBLISH not in [action for action, _label in response.context["actions"]]
    refused = client.post(page(claim, "claim_transition"), {"action": "publish"})

    assert refused.status_code == 403
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED
    for contributor in (desk.dana, desk.ed):
        with pytest.raises(NotAllowed) as refused_by_service:
            claim_transition(claim=claim, action=Action.PUBLISH, actor=contributor)
        assert refused_by_service.value.code == "own_work"
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


def test_a_reviewer_and_an_editor_who_did_not_contribute_approve_and_publish(client, desk):
    claim = written_by(desk.dana, a_claim_by(desk.ed))
    reviewer_assign(claim=claim, reviewer=desk.rosa, editor=desk.eve)
    claim_submit_for_review(claim=claim, editor=desk.ed)
    client.force_login(desk.rosa)
    review = reverse("claims:review", args=[claim.assignments.get().pk])

    assert "Record decision" in client.get(review).text
    client.post(review, {"decision": "approved", "comment": "", "digest": claim_digest(claim)})
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED

    client.force_login(desk.eve)
    offered = client.get(page(claim, "claim_detail")).context["actions"]
    assert Action.PUBLISH in [action for action, _label in offered]
    client.post(page(claim, "claim_transition"), {"action": "publish"})
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.PUBLISHED


def test_a_dual_role_user_reviews_a_claim_she_did_not_touch(desk):
    claim = written_by(desk.ed, a_claim_by(desk.ed))
    reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.ed)
    claim_submit_for_review(claim=claim, editor=desk.ed)

    review_decide(
        assignment=claim.assignments.get(),
        reviewer=desk.dana,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )

    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


# Seeded claims.


def test_seeded_claims_are_the_lead_editors_work(editor):
    case = seed_first_case(lead_editor=editor).case

    claims = list(case.claims.all())
    assert claims and {claim.author for claim in claims} == {editor}
    assert own_work_refusal(claim=claims[0], user=editor, doing="publish")


def test_seeded_claims_without_a_lead_editor_are_the_systems(db):
    case = seed_first_case().case

    assert not case.claims.exclude(author=None).exists()


# Corrections.


def published_case():
    claim = ClaimFactory(status=ClaimStatus.PUBLISHED, published_at=timezone.now())
    return claim.case


def a_report_about(case):
    return report_submit(
        page_url="/corrections/", message="Wrong sum.", address="192.0.2.9", case=case
    )


def test_whoever_turned_a_report_into_a_correction_does_not_approve_it(desk):
    case = published_case()
    report = a_report_about(case)
    correction = correction_draft_from_report(
        report=report,
        case=case,
        editor=desk.dana,
        kind="correction",
        what_was_wrong=report.message,
        what_is_right="The parts add up to 460 seconds.",
    )

    with pytest.raises(ValidationError) as refused:
        correction_approve(correction=correction, approver=desk.dana)

    assert refused.value.code == "same_person"
    assert correction_approve(correction=correction, approver=desk.rosa).approved_by == desk.rosa


def test_an_editor_who_converted_a_report_into_anothers_draft_does_not_approve_it(desk):
    case = published_case()
    correction = correction_draft(
        case=case,
        editor=desk.ed,
        kind="correction",
        what_was_wrong="Wrong sum.",
        what_is_right="The parts add up to 460 seconds.",
    )
    report_convert(report=a_report_about(case), correction=correction, editor=desk.dana)

    with pytest.raises(ValidationError, match="turned the reader's report into it"):
        correction_approve(correction=correction, approver=desk.dana)


def test_a_dual_role_user_is_refused_on_every_path_through_her_own_claim(client, desk):
    # Dana writes the claim's verdict, rationale and evidence, then tries every way to
    # sign it off herself, through the pages as she would.
    client.force_login(desk.dana)
    unassigned = written_by(desk.dana, a_claim_by(desk.ed))
    assign_self = client.post(page(unassigned, "reviewer_assign"), {"reviewer": desk.dana.pk})
    assert assign_self.status_code == 422
    assert "so someone else must review it" in assign_self.text
    assert not unassigned.assignments.exists()

    # Assigned by Ed while the claim was still his alone, then edited by her.
    claim = a_claim_by(desk.ed)
    reviewer_assign(claim=claim, reviewer=desk.dana, editor=desk.ed)
    claim = written_by(desk.dana, claim)

    claim_submit_for_review(claim=claim, editor=desk.ed)
    review_page = reverse("claims:review", args=[claim.assignments.get(reviewer=desk.dana).pk])
    opened = client.get(review_page)
    assert "so someone else must review it" in opened.text
    assert "Record decision" not in opened.text

    decided = client.post(
        review_page, {"decision": "approved", "comment": "", "digest": claim_digest(claim)}
    )
    assert decided.status_code == 403
    assert claim.assignments.get(reviewer=desk.dana).decision == Decision.PENDING

    # A claim she wrote, approved by Rosa alone: Dana is offered no Publish, and cannot.
    approved = approved_by(written_by(desk.dana, a_claim_by(desk.ed)), desk.rosa, desk.ed)
    assert Action.PUBLISH not in [
        action for action, _label in client.get(approved.get_absolute_url()).context["actions"]
    ]
    published = client.post(page(approved, "claim_transition"), {"action": Action.PUBLISH})
    assert published.status_code == 403
    assert Claim.objects.get(pk=approved.pk).status == ClaimStatus.APPROVED
