import importlib

import pytest
from django.apps import apps as django_apps
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from claims.models import Case, Claim, Correction, ReviewAssignment
from claims.selectors import case_claim_index
from claims.services import claim_create, claim_create_from_selection
from factcheck.models import AuditEvent
from sources.models import Quotation
from sources.services import find_span, quotation_create
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    CorrectionFactory,
    EditorFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    SourceVersionFactory,
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


def claims_of(case, *sentences, editor):
    """A claim of ``case`` for each of ``sentences`` of its piece, made in that order."""
    version = case.source_under_check.latest_version
    made = []
    for sentence in sentences:
        start, end = find_span(version.extracted_text, sentence)
        quotation, _created = quotation_create(version=version, start=start, end=end, actor=None)
        made.append(claim_create(case=case, quotation=quotation, statement=sentence, author=editor))
    return made


PIECE = "First sentence here. Second sentence here. Third sentence here."


def test_a_claim_keeps_its_number_when_one_is_made_of_an_earlier_sentence():
    case = CaseFactory()
    SourceVersionFactory(source=case.source_under_check, text=PIECE)
    editor = EditorFactory()
    second, third = claims_of(case, "Second sentence", "Third sentence", editor=editor)

    (first,) = claims_of(case, "First sentence", editor=editor)

    assert [(claim.pk, claim.number) for claim in (second, third, first)] == [
        (second.pk, 1),
        (third.pk, 2),
        (first.pk, 3),
    ]
    # The case's list and the piece keep the article's order, each claim its number.
    assert [row["number"] for row in case_claim_index(case)] == [3, 1, 2]


def test_a_deleted_claims_number_is_not_given_again():
    case = CaseFactory()
    SourceVersionFactory(source=case.source_under_check, text=PIECE)
    editor = EditorFactory()
    _first, second = claims_of(case, "First sentence", "Second sentence", editor=editor)
    Claim.objects.filter(pk=second.pk).delete()
    claims_of(case, "Third sentence", editor=editor)

    assert sorted(case.claims.values_list("number", flat=True)) == [1, 3]


def test_a_case_saved_as_it_was_read_before_a_claim_was_made_keeps_the_claims_count():
    claim = ClaimFactory()
    read_before = Case.objects.get(pk=claim.case_id)
    ClaimFactory(case=claim.case, quotation=claim.quotation)

    read_before.title = "Renamed in the admin meanwhile"
    read_before.save()
    assert Case.objects.get(pk=claim.case_id).last_claim_number == 2
    third = ClaimFactory(case=claim.case, quotation=claim.quotation)

    assert third.number == 3
    assert Case.objects.get(pk=claim.case_id).last_claim_number == 3


def test_a_count_behind_the_claims_numbers_moves_past_them():
    claim = ClaimFactory()
    Case.objects.filter(pk=claim.case_id).update(last_claim_number=0)

    assert ClaimFactory(case=claim.case, quotation=claim.quotation).number == 2


def test_the_database_refuses_two_claims_of_a_case_with_one_number():
    claim = ClaimFactory()
    other = ClaimFactory(case=claim.case, quotation=claim.quotation)

    with pytest.raises(IntegrityError), transaction.atomic():
        Claim.objects.filter(pk=other.pk).update(number=claim.number)


def test_the_migration_numbers_each_cases_claims_in_the_order_the_piece_makes_them():
    case = CaseFactory()
    SourceVersionFactory(source=case.source_under_check, text=PIECE)
    editor = EditorFactory()
    third, first, second = claims_of(
        case, "Third sentence", "First sentence", "Second sentence", editor=editor
    )
    elsewhere = ClaimFactory()
    # Numbers nobody has, as before the migration (when there were none).
    for place, pk in enumerate(Claim.objects.values_list("pk", flat=True)):
        Claim.objects.filter(pk=pk).update(number=1000 + place)
    Case.objects.update(last_claim_number=0)
    numbering = importlib.import_module("claims.migrations.0015_claims_keep_their_numbers")

    numbering.number_existing_claims(django_apps, connection.schema_editor())

    numbers = dict(Claim.objects.values_list("pk", "number"))
    assert [numbers[claim.pk] for claim in (first, second, third, elsewhere)] == [1, 2, 3, 1]
    assert Case.objects.get(pk=case.pk).last_claim_number == 3


# A claim made from a selection of the piece: one service, the quotation and the claim together.


def test_a_claim_from_a_selection_quotes_the_selected_words_and_is_made_there():
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    editor = EditorFactory()
    start, end = find_span(version.extracted_text, "467 seconds")

    claim = claim_create_from_selection(
        case=case,
        version=version,
        start=start - 1,  # a stray space caught by the selection is left out
        end=end,
        selected_text=" 467 seconds",
        statement="Start-up took 467 seconds.",
        claimant="Together AI",
        author=editor,
    )

    assert claim.quotation.exact == "467 seconds"
    assert (claim.case, claim.author, claim.status) == (case, editor, "draft")
    assert AuditEvent.objects.filter(action="quotation.create", actor=editor).count() == 1
    assert AuditEvent.objects.filter(action="claim.create", target_id=str(claim.pk)).exists()


def test_a_selection_that_does_not_match_the_text_is_refused_as_a_selection():
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    start, end = find_span(version.extracted_text, "467 seconds")

    with pytest.raises(ValidationError) as refused:
        claim_create_from_selection(
            case=case,
            version=version,
            start=start,
            end=end,
            selected_text="468 seconds",
            statement="Start-up took 468 seconds.",
            claimant="",
            author=EditorFactory(),
        )

    # The view forgets the selection for this code only, keeping what was typed.
    assert refused.value.code == "selection"
    assert "does not match the stored text" in refused.value.message
    assert not Claim.objects.exists()
    assert not Quotation.objects.filter(version=version).exists()


def test_a_claim_refused_for_its_own_fields_leaves_no_quotation_behind():
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    start, end = find_span(version.extracted_text, "467 seconds")

    with pytest.raises(ValidationError) as refused:
        claim_create_from_selection(
            case=case,
            version=version,
            start=start,
            end=end,
            selected_text="467 seconds",
            statement="",
            claimant="",
            author=EditorFactory(),
        )

    assert "statement" in refused.value.message_dict
    # One transaction: the quotation made for the claim went with it.
    assert not Quotation.objects.filter(version=version).exists()
    assert not AuditEvent.objects.filter(action="quotation.create").exists()
