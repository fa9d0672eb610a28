import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from claims.models import Claim, Correction, ReviewAssignment
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    CorrectionFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
)

pytestmark = pytest.mark.django_db


def test_a_claim_must_quote_the_piece_under_check_of_its_case():
    case = CaseFactory()
    quotation_elsewhere = QuotationFactory()
    claim = Claim(case=case, quotation=quotation_elsewhere, statement="Anything")

    with pytest.raises(ValidationError) as raised:
        claim.full_clean()

    assert "piece under check" in " ".join(raised.value.message_dict["quotation"])


def test_the_author_of_a_claim_cannot_be_assigned_to_review_it():
    claim = ClaimFactory()
    assignment = ReviewAssignment(claim=claim, reviewer=claim.author)

    with pytest.raises(ValidationError, match="author cannot review"):
        assignment.full_clean()


def test_the_database_refuses_an_approval_without_a_digest():
    assignment = ReviewAssignmentFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewAssignment.objects.filter(pk=assignment.pk).update(
            decision=ReviewAssignment.Decision.APPROVED, decided_at=timezone.now()
        )


def test_the_database_refuses_a_decision_without_a_date():
    assignment = ReviewAssignmentFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewAssignment.objects.filter(pk=assignment.pk).update(
            decision=ReviewAssignment.Decision.CHANGES_REQUESTED
        )


def test_the_database_refuses_a_published_claim_without_a_date():
    claim = ClaimFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(status=Claim.Status.PUBLISHED)


def test_the_database_refuses_an_unknown_claim_status():
    claim = ClaimFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.filter(pk=claim.pk).update(status="rubber-stamped")


def test_a_reviewer_is_assigned_to_a_claim_once():
    assignment = ReviewAssignmentFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewAssignment.objects.create(claim=assignment.claim, reviewer=assignment.reviewer)


def test_a_correction_of_a_claim_must_be_in_the_claims_case():
    claim = ClaimFactory()
    correction = CorrectionFactory.build(case=CaseFactory(), claim=claim)

    with pytest.raises(ValidationError, match="belong to the corrected case"):
        correction.full_clean()


def test_the_database_refuses_a_published_correction_outside_the_chain():
    correction = CorrectionFactory()

    with pytest.raises(IntegrityError), transaction.atomic():
        Correction.objects.filter(pk=correction.pk).update(
            status=Correction.Status.PUBLISHED, published_at=timezone.now()
        )
