"""
Simultaneous requests: many approvals of one claim at once make one transition,
evidence added at once voids a sign-off once (and never deadlocks),
and two saves of the same claim form from the same version make one conflict.

These run with real threads and real transactions, each thread on its own
database connection, closed when the thread ends.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test import Client
from django.urls import reverse

from claims import notifications
from claims.models import Claim, ClaimFlag, ClaimStatus, Decision, ReviewAssignment
from claims.receivers import flag_raise
from claims.services import claim_submit_for_review, evidence_add, review_decide, reviewer_assign
from claims.workflow import Action, claim_digest, claim_transition
from factcheck.models import AuditEvent
from sources.models import AnchoringStatus, Reanchoring, Source
from sources.services import source_version_upload
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
)
from tests.migrated_rows import restore_data_migrations

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 50

needs_row_locks = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason=(
        "Meaningful only on PostgreSQL: SQLite has no row locks (select_for_update is a "
        "no-op) and serialises every writer on one database lock, so the threads could "
        "not race. Run with DATABASE_URL=postgres://… to prove it."
    ),
)

needs_concurrent_writers = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason=(
        "Needs concurrent writers: SQLite's in-memory test database (shared cache) answers "
        "a second writing thread with 'table is locked' instead of waiting. Run with "
        "DATABASE_URL=postgres://… to prove it."
    ),
)


@pytest.fixture(autouse=True)
def roles():
    """The flush that ends each transactional test empties the roles' table too."""
    restore_data_migrations()


def at_once(count, work):
    """Run ``work(i)`` in ``count`` threads released together; each closes its connection."""
    start = threading.Barrier(count)

    def run(index):
        try:
            start.wait()
            return work(index)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(run, range(count)))


def outcome(call):
    """``"ok"`` or the refusal's code, so that the threads' results can be counted."""
    try:
        call()
    except ValidationError as refused:
        return refused.code
    return "ok"


def claim_in_review():
    editor = EditorFactory()
    reviewer = ReviewerFactory()
    claim = ClaimFactory(author=editor, verdict=RatingFactory())
    evidence_add(claim=claim, quotation=QuotationFactory(), stance="supports", editor=editor)
    assignment = reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    return editor, reviewer, claim, assignment


def approved_claim():
    editor, reviewer, claim, assignment = claim_in_review()
    review_decide(
        assignment=assignment,
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )
    return editor, reviewer, claim, assignment


def events(claim, action):
    return AuditEvent.objects.filter(target_id=str(claim.pk), action=action).count()


@needs_row_locks
def test_fifty_simultaneous_approvals_of_one_claim_make_one_transition_and_one_event():
    _editor, reviewer, claim, assignment = claim_in_review()
    digest = claim_digest(claim)

    results = at_once(
        THREADS,
        lambda _i: outcome(
            lambda: review_decide(
                assignment=ReviewAssignment.objects.get(pk=assignment.pk),
                reviewer=reviewer,
                decision=Decision.APPROVED,
                digest_seen=digest,
            )
        ),
    )

    assert results.count("ok") == 1, results
    assert set(results) == {"ok", "not_in_review"}
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED
    assert events(claim, "claim.approve") == 1
    assert events(claim, "assignment.approved") == 1


@needs_row_locks
def test_fifty_simultaneous_publications_of_one_claim_make_one_transition_and_one_event():
    _author, _reviewer, claim, _assignment = approved_claim()
    publisher = EditorFactory()  # nobody publishes their own work

    results = at_once(
        THREADS,
        lambda _i: outcome(
            lambda: claim_transition(
                claim=Claim.objects.get(pk=claim.pk), action=Action.PUBLISH, actor=publisher
            )
        ),
    )

    assert results.count("ok") == 1, results
    assert set(results) == {"ok", "wrong_state"}
    stored = Claim.objects.get(pk=claim.pk)
    assert stored.status == ClaimStatus.PUBLISHED and stored.published_at is not None
    assert events(claim, "claim.publish") == 1


@needs_concurrent_writers
def test_two_stale_saves_of_the_claim_form_make_exactly_one_conflict():
    _editor, _reviewer, claim, _assignment = claim_in_review()
    opened_at = claim.version
    clients = []
    for name in ("first", "second"):
        client = Client()
        client.force_login(EditorFactory(username=f"{name}-editor"))
        clients.append(client)
    url = reverse("claims:claim_edit", args=[claim.case.slug, claim.pk])

    def save(index):
        response = clients[index].post(
            url,
            {
                "statement": f"Edited by editor {index}.",
                "claimant": claim.claimant,
                "verdict": claim.verdict_id,
                "rationale": "",
                "version": opened_at,
            },
        )
        return response.status_code

    statuses = at_once(2, save)

    # The saved one goes back to the page (302); the other keeps its text (409).
    assert sorted(statuses) == [302, 409]
    stored = Claim.objects.get(pk=claim.pk)
    assert stored.version == opened_at + 1
    winner = statuses.index(302)
    assert stored.statement == f"Edited by editor {winner}."
    assert events(claim, "claim.update") == 1


@needs_row_locks
def test_evidence_added_at_once_to_an_approved_claim_reopens_it_once_without_a_deadlock():
    editor, _reviewer, claim, _assignment = approved_claim()
    quotations = [QuotationFactory() for _ in range(10)]

    results = at_once(
        len(quotations),
        lambda i: outcome(
            lambda: evidence_add(
                claim=Claim.objects.get(pk=claim.pk),
                quotation=quotations[i],
                stance="supports",
                editor=editor,
            )
        ),
    )

    assert results == ["ok"] * len(quotations)
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW
    assert events(claim, "assignment.voided") == 1
    assert events(claim, "claim.reopen") == 1


@needs_row_locks
def test_the_same_bytes_uploaded_at_once_make_one_version():
    source = SourceFactory()

    results = at_once(
        10,
        lambda _i: source_version_upload(
            source=Source.objects.get(pk=source.pk),
            content=b"The same words, sent ten times at once.",
            filename="same.txt",
            actor=None,
        )[1],
    )

    assert results.count(True) == 1, results
    assert source.versions.count() == 1


@needs_row_locks
def test_the_same_reason_raised_at_once_many_times_is_one_open_flag():
    claim = ClaimFactory()
    quotation = claim.quotation
    newer = SourceVersionFactory(source=quotation.version.source, text="Other words.")
    # The new version's re-anchoring may have run already (and flagged the claim once).
    reanchoring, _created = Reanchoring.objects.get_or_create(
        quotation=quotation, version=newer, defaults={"status": AnchoringStatus.ORPHANED}
    )

    at_once(THREADS, lambda i: flag_raise(Claim.objects.get(pk=claim.pk), reanchoring))

    assert ClaimFlag.objects.open().filter(claim=claim).count() == 1


def test_assigning_a_reviewer_is_all_or_nothing(monkeypatch):
    # Outside a test's own transaction: the service must open its own.
    editor = EditorFactory()
    claim = ClaimFactory(author=editor)

    def mail_server_down(assignment):
        raise ConnectionError("the mail server is down")

    monkeypatch.setattr(notifications, "review_assigned", mail_server_down)
    with pytest.raises(ConnectionError):
        reviewer_assign(claim=claim, reviewer=ReviewerFactory(), editor=editor)

    assert not ReviewAssignment.objects.filter(claim=claim).exists()
    assert events(claim, "assignment.create") == 0


@needs_row_locks
def test_claims_made_at_once_in_one_case_each_get_their_own_number():
    first = ClaimFactory()
    case, quotation = first.case, first.quotation

    def make(index):
        return Claim.objects.create(
            case=case, quotation=quotation, statement=f"Claim {index}"
        ).number

    numbers = at_once(20, make)

    assert sorted(numbers) == list(range(2, 22))
    case.refresh_from_db()
    assert case.last_claim_number == 21
