"""
A prepared read is compiled once and run again with new values: it must give
exactly what its queryset gives, and refuse a queryset whose form depends on a
value.
"""

import threading

import pytest
from django.db import connections
from django.db.models import Count, F

from claims.models import Claim, Evidence, Rating
from claims.selectors import claim_at, claim_for_page
from claims.workflow import claim_content, claim_digest
from factcheck.prepared import PreparationError, PreparedRead, remember_related
from factcheck.roles import ASSIGNED_CLAIMS, EVERY_CLAIM, NO_CLAIM, claims_in_reach
from tests.factories import (
    ClaimFactory,
    CommentFactory,
    EvidenceFactory,
    RatingFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
)

pytestmark = pytest.mark.django_db


def claims_of_case(*, case_id, statement):
    return (
        Claim.objects.filter(case_id=case_id, statement=statement)
        .select_related("case__source_under_check", "author")
        .annotate(evidence_count=Count("evidence"))
        .order_by("id")
    )


def described(claim):
    return (
        claim.pk,
        claim.statement,
        claim.case.title,
        claim.case.source_under_check.title,
        claim.author.username,
        claim.evidence_count,
    )


def test_a_prepared_read_gives_what_its_queryset_gives_for_each_new_value():
    first, second = ClaimFactory(statement="First"), ClaimFactory(statement="Second")
    EvidenceFactory.create_batch(2, claim=second)
    read = PreparedRead(claims_of_case)

    for claim in (first, second, first):
        rows = read(case_id=claim.case_id, statement=claim.statement)
        expected = claims_of_case(case_id=claim.case_id, statement=claim.statement)
        assert [described(row) for row in rows] == [described(row) for row in expected]
    assert described(read(case_id=second.case_id, statement="Second")[0])[-1] == 2
    assert read(case_id=first.case_id, statement="Second") == []


def test_a_prepared_read_gives_values_rows_as_its_queryset_does():
    claim = ClaimFactory(statement="Counted")
    as_dicts = PreparedRead(
        lambda *, pk: Claim.objects.filter(pk=pk).values("pk", "statement", title=F("case__title"))
    )
    as_tuples = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk).values_list("pk", "status"))
    flat = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk).values_list("pk", flat=True))

    assert as_dicts(pk=claim.pk) == [
        {"pk": claim.pk, "statement": "Counted", "title": claim.case.title}
    ]
    assert as_tuples(pk=claim.pk) == [(claim.pk, claim.status)]
    assert flat(pk=claim.pk) == [claim.pk]


def test_a_prepared_read_runs_one_query_and_compiles_once(django_assert_num_queries):
    claim = ClaimFactory()
    read = PreparedRead(claims_of_case)
    read(case_id=claim.case_id, statement=claim.statement)
    compiled = dict(read._prepared)

    with django_assert_num_queries(1):
        [row] = read(case_id=claim.case_id, statement=claim.statement)

    assert row.pk == claim.pk
    assert read._prepared == compiled


def test_a_value_that_changes_the_sql_is_refused():
    claim = ClaimFactory()
    in_the_text = PreparedRead(lambda *, start: Claim.objects.order_by("id")[start:])
    through_a_pattern = PreparedRead(
        lambda *, words: Claim.objects.filter(statement__icontains=words)
    )

    with pytest.raises(PreparationError):
        in_the_text(start=1)
    with pytest.raises(PreparationError):
        through_a_pattern(words=claim.statement)


def test_a_prepared_read_finds_rows_by_a_small_integer_column():
    rating = RatingFactory(label="Mostly accurate", order=4)
    by_order = PreparedRead(lambda *, order: Rating.objects.filter(order=order))

    assert by_order(order=4) == [rating]
    assert by_order(order=77) == []


def test_an_integer_no_database_column_holds_reads_nothing_as_the_orm_would():
    claim = ClaimFactory()
    by_pk = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk))
    by_pk(pk=claim.pk)

    assert by_pk(pk=2**70) == []
    assert by_pk(pk=-(2**64)) == []
    assert by_pk.count(pk=2**70) == 0


def test_a_value_of_another_type_is_refused():
    read = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk))

    with pytest.raises(TypeError, match="an int, a str or a tuple of ints"):
        read(pk=1.0)
    with pytest.raises(TypeError):
        read(pk=True)


def test_a_tuple_of_ids_is_read_as_in_with_each_length_prepared_on_its_own(
    django_assert_num_queries,
):
    claims = ClaimFactory.create_batch(3)
    ids = tuple(claim.pk for claim in claims)
    by_ids = PreparedRead(lambda *, pks: Claim.objects.filter(pk__in=pks).order_by("id"))

    assert by_ids(pks=ids) == claims
    assert by_ids(pks=ids[:2]) == claims[:2]
    assert by_ids(pks=(ids[2], ids[0])) == [claims[0], claims[2]]
    assert by_ids(pks=(ids[1], ids[1])) == [claims[1]]
    with django_assert_num_queries(0):
        assert by_ids(pks=()) == []
    # Longer than it stands in for: read by the ORM, with the same answer.
    assert by_ids(pks=ids + tuple(range(-1, -2000, -1))) == claims
    with pytest.raises(TypeError, match="ints only"):
        by_ids(pks=(str(ids[0]),))


def test_each_shape_is_prepared_on_its_own_and_an_empty_one_reads_nothing(
    django_assert_num_queries,
):
    mine, other = ClaimFactory(), ClaimFactory()
    reviewer = ReviewerFactory()
    ReviewAssignmentFactory(claim=mine, reviewer=reviewer)
    read = PreparedRead(lambda reach, *, user_id: claims_in_reach(reach, user_id).order_by("id"))

    assert read(EVERY_CLAIM, user_id=reviewer.pk) == [mine, other]
    assert read(ASSIGNED_CLAIMS, user_id=reviewer.pk) == [mine]
    assert read(ASSIGNED_CLAIMS, user_id=reviewer.pk + 1000) == []
    with django_assert_num_queries(0):
        assert read(NO_CLAIM, user_id=reviewer.pk) == []


def test_one_row_is_found_or_the_models_own_errors_are_raised():
    claim = ClaimFactory()
    ClaimFactory(case=claim.case, quotation=claim.quotation)
    by_pk = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk))
    by_case = PreparedRead(lambda *, case_id: Claim.objects.filter(case_id=case_id))

    assert by_pk.one(pk=claim.pk) == claim
    with pytest.raises(Claim.DoesNotExist):
        by_pk.one(pk=claim.pk + 1000)
    with pytest.raises(Claim.MultipleObjectsReturned):
        by_case.one(case_id=claim.case_id)


def test_remembered_related_rows_are_read_without_a_query_and_know_their_claim(
    django_assert_num_queries,
):
    claim = ClaimFactory()
    evidence = EvidenceFactory.create_batch(2, claim=claim)
    claim = Claim.objects.get(pk=claim.pk)

    remember_related(claim, "evidence", list(Evidence.objects.filter(claim=claim)))

    with django_assert_num_queries(0):
        assert list(claim.evidence.all()) == evidence
        assert all(row.claim is claim for row in claim.evidence.all())
        assert claim.evidence.count() == 2


def test_a_query_built_on_remembered_rows_is_still_limited_to_their_claim():
    claim, other = ClaimFactory(), ClaimFactory()
    mine = EvidenceFactory.create_batch(2, claim=claim)
    EvidenceFactory(claim=other)
    claim = Claim.objects.get(pk=claim.pk)

    remember_related(claim, "evidence", list(Evidence.objects.filter(claim=claim)))

    assert list(claim.evidence.select_related("quotation").order_by("id")) == mine
    assert claim.evidence.filter(stance=Evidence.Stance.SUPPORTS).count() == 2


def test_a_reviewer_signs_the_same_digest_as_the_claim_read_by_the_orm():
    claim = ClaimFactory()
    EvidenceFactory.create_batch(2, claim=claim)
    EvidenceFactory(claim=ClaimFactory(case=claim.case, quotation=claim.quotation))

    read = claim_for_page(claim.case, claim.pk)

    assert claim_digest(read) == claim_digest(Claim.objects.get(pk=claim.pk))
    assert len(claim_content(read)["evidence"]) == 2


def test_the_claim_page_reads_its_claim_and_related_rows_in_four_queries(
    django_assert_num_queries,
):
    claim = ClaimFactory()
    EvidenceFactory.create_batch(2, claim=claim)
    ReviewAssignmentFactory(claim=claim)
    CommentFactory(claim=claim)
    case = claim.case
    claim_for_page(case, claim.pk)

    with django_assert_num_queries(4):
        read = claim_for_page(case, claim.pk)
        shown = (
            read.quotation.version.source.title,
            [row.quotation.version.source.title for row in read.evidence.all()],
            [row.reviewer.username for row in read.assignments.all()],
            [row.author.username for row in read.comments.all()],
        )

    assert shown[0] == claim.quotation.version.source.title
    assert len(shown[1]) == 2 and len(shown[2]) == 1 and len(shown[3]) == 1
    assert read.case is case


def test_the_claim_page_refuses_a_claim_outside_a_reviewers_reach():
    assigned, other = ClaimFactory(), ClaimFactory()
    reviewer = ReviewerFactory()
    ReviewAssignmentFactory(claim=assigned, reviewer=reviewer)

    assert claim_for_page(assigned.case, assigned.pk, reviewer) == assigned
    with pytest.raises(Claim.DoesNotExist):
        claim_for_page(other.case, other.pk, reviewer)


def test_the_claim_page_opened_by_its_address_reads_its_case_with_the_claim(
    django_assert_num_queries, editor
):
    claim = ClaimFactory()
    EvidenceFactory(claim=claim)
    claim_at(claim.case.slug, claim.pk, editor)

    with django_assert_num_queries(4):
        read = claim_at(claim.case.slug, claim.pk, editor)
        shown = (
            read.case.title,
            read.case.source_under_check.title,
            read.quotation.version.source.title,
            [row.quotation.exact for row in read.evidence.all()],
        )

    assert read == claim and read.case == claim.case
    assert shown[1] == claim.case.source_under_check.title


def test_the_claim_page_by_its_address_refuses_another_case_or_a_claim_out_of_reach():
    assigned, other = ClaimFactory(), ClaimFactory()
    reviewer = ReviewerFactory()
    ReviewAssignmentFactory(claim=assigned, reviewer=reviewer)

    assert claim_at(assigned.case.slug, assigned.pk, reviewer) == assigned
    with pytest.raises(Claim.DoesNotExist):
        claim_at(other.case.slug, other.pk, reviewer)
    with pytest.raises(Claim.DoesNotExist):
        claim_at(other.case.slug, assigned.pk, reviewer)


@pytest.mark.django_db(transaction=True)
def test_a_read_prepared_in_one_thread_runs_on_another_threads_connection():
    claim = ClaimFactory()
    read = PreparedRead(lambda *, pk: Claim.objects.filter(pk=pk))
    read(pk=claim.pk)
    found = []

    def in_a_worker():
        try:
            # Django refuses a connection used outside the thread that opened it.
            found.extend(read(pk=claim.pk))
        finally:
            connections.close_all()

    worker = threading.Thread(target=in_a_worker)
    worker.start()
    worker.join()

    assert found == [claim]


def test_sliced_rows_are_the_querysets_pages_each_read_in_one_query(django_assert_num_queries):
    claims = ClaimFactory.create_batch(5)
    by_id = PreparedRead(lambda: Claim.objects.order_by("id"))
    rows = by_id.sliced()
    rows[0:2]

    with django_assert_num_queries(1):
        first = rows[0:2]
    assert first == claims[0:2]
    assert rows[2:4] == claims[2:4]
    assert rows[4:6] == claims[4:5]
    assert rows[6:8] == []
    with pytest.raises(TypeError):
        rows[1]
    with pytest.raises(TypeError):
        rows[0:4:2]


def test_a_prepared_read_counts_its_rows_in_one_query(django_assert_num_queries):
    mine = ClaimFactory.create_batch(3)
    reviewer = ReviewerFactory()
    for claim in mine[:2]:
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
    read = PreparedRead(
        lambda reach, *, user_id: claims_in_reach(reach, user_id).order_by().values("pk")
    )
    read.count(ASSIGNED_CLAIMS, user_id=reviewer.pk)

    with django_assert_num_queries(1):
        assert read.count(ASSIGNED_CLAIMS, user_id=reviewer.pk) == 2
    assert read.count(ASSIGNED_CLAIMS, user_id=reviewer.pk + 1000) == 0
    assert read.count(EVERY_CLAIM, user_id=reviewer.pk) == Claim.objects.count()
    with django_assert_num_queries(0):
        assert read.count(NO_CLAIM, user_id=reviewer.pk) == 0
