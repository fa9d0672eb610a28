"""
Every kind of change leaves an audit event, and nobody edits or deletes one.

Each case below makes one change through the service the app uses and looks
for the event naming it, its target and its actor. The admin's writes are
audited too; the audit trail itself is read-only in the admin for everyone,
the superuser included. (That no URL of the app, the admin's included,
changes or removes an event is checked for every URL, role and method by
``tests/security/test_permission_matrix.py``.)
"""

import pytest
from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.test import RequestFactory
from django.urls import reverse

from claims.corrections import correction_approve, correction_draft, correction_publish
from claims.models import Claim, Correction, Decision, ErrorReport, Rating
from claims.reports import report_close, report_convert, report_submit
from claims.services import (
    case_create,
    claim_create,
    claim_submit_for_review,
    claim_update,
    comment_add,
    evidence_add,
    evidence_remove,
    review_decide,
    reviewer_assign,
)
from claims.workflow import Action, claim_digest, claim_transition
from factcheck.models import AuditEvent
from sources.models import Reanchoring, Source
from sources.services import (
    find_span,
    quotation_create,
    reanchoring_confirm,
    source_create,
    source_update,
    source_version_create_from_text,
    source_version_upload,
)
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    EditorFactory,
    PieceUnderCheckFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def event_for(action, target, actor):
    """The one audit event saying ``actor`` did ``action`` to ``target``."""
    events = AuditEvent.objects.filter(
        action=action,
        target_type=ContentType.objects.get_for_model(target),
        target_id=str(target.pk),
    )
    assert events.count() == 1, f"{events.count()} “{action}” events for {target!r}"
    event = events.get()
    assert event.actor == actor
    return event


class Desk:
    """An editor, a reviewer and a claim ready to go to review."""

    def __init__(self):
        self.editor = EditorFactory()
        # Nobody publishes their own work: the claim is the editor's.
        self.publisher = EditorFactory()
        self.reviewer = ReviewerFactory()
        self.claim = ClaimFactory(author=self.editor, verdict=RatingFactory())
        self.quotation = QuotationFactory()

    def ready_claim(self):
        evidence_add(
            claim=self.claim, quotation=self.quotation, stance="supports", editor=self.editor
        )
        self.assignment = reviewer_assign(
            claim=self.claim, reviewer=self.reviewer, editor=self.editor
        )
        return self.claim

    def in_review(self):
        self.ready_claim()
        return claim_submit_for_review(claim=self.claim, editor=self.editor)

    def approved(self):
        self.in_review()
        self.approve()
        return Claim.objects.get(pk=self.claim.pk)

    def approve(self):
        return review_decide(
            assignment=self.assignment,
            reviewer=self.reviewer,
            decision=Decision.APPROVED,
            digest_seen=claim_digest(Claim.objects.get(pk=self.claim.pk)),
        )

    def published(self):
        self.approved()
        return claim_transition(claim=self.claim, action=Action.PUBLISH, actor=self.publisher)

    def correction(self):
        return correction_draft(
            case=self.claim.case,
            claim=self.published(),
            editor=self.editor,
            kind="correction",
            what_was_wrong="The figure was for a batch of eight.",
            what_is_right="It is for a batch of one.",
        )


@pytest.fixture
def desk():
    return Desk()


def test_opening_a_case_is_audited(desk):
    case = case_create(
        title="A case",
        slug="a-case",
        source_under_check=PieceUnderCheckFactory(),
        lead_editor=desk.editor,
        actor=desk.editor,
    )
    event_for("case.create", case, desk.editor)


def test_creating_a_claim_is_audited(desk):
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check)
    start, end = find_span(version.extracted_text, "467 seconds")
    quotation, _created = quotation_create(version=version, start=start, end=end, actor=None)

    claim = claim_create(
        case=case, quotation=quotation, statement="It took 467 s.", author=desk.editor
    )

    assert event_for("claim.create", claim, desk.editor).changes["quotation"] == quotation.pk


def test_editing_a_claim_is_audited_with_old_and_new_values(desk):
    claim = desk.claim
    claim_update(
        claim=claim, editor=desk.editor, expected_version=claim.version, statement="Edited."
    )
    event = event_for("claim.update", claim, desk.editor)
    assert event.changes["statement"] == [ClaimFactory.statement, "Edited."]


@pytest.mark.parametrize(
    "step, action",
    [("in_review", "claim.submit"), ("approved", "claim.approve"), ("published", "claim.publish")],
)
def test_each_transition_of_a_claim_is_audited(desk, step, action):
    getattr(desk, step)()
    actor = {"claim.approve": desk.reviewer, "claim.publish": desk.publisher}.get(
        action, desk.editor
    )
    assert event_for(action, desk.claim, actor).changes["status"][1] in {
        "in_review",
        "approved",
        "published",
    }


def test_withdrawing_a_claim_is_audited(desk):
    claim_transition(claim=desk.claim, action=Action.WITHDRAW, actor=desk.editor)
    assert event_for("claim.withdraw", desk.claim, desk.editor).changes["status"] == [
        "draft",
        "withdrawn",
    ]


def test_adding_and_removing_evidence_is_audited(desk):
    evidence = evidence_add(
        claim=desk.claim, quotation=desk.quotation, stance="contradicts", editor=desk.editor
    )
    assert event_for("evidence.add", desk.claim, desk.editor).changes["stance"] == "contradicts"

    evidence_remove(evidence=evidence, editor=desk.editor)
    event = event_for("evidence.remove", desk.claim, desk.editor)
    assert event.changes["quotation"] == desk.quotation.exact


def test_assigning_a_reviewer_is_audited(desk):
    desk.ready_claim()
    event = event_for("assignment.create", desk.claim, desk.editor)
    assert event.changes["reviewer"] == desk.reviewer.get_username()


def test_a_sign_off_is_audited_with_the_digest_signed(desk):
    desk.in_review()
    digest = claim_digest(desk.claim)
    desk.approve()
    assert event_for("assignment.approved", desk.claim, desk.reviewer).changes["digest"] == digest


def test_a_request_for_changes_is_audited(desk):
    desk.in_review()
    review_decide(
        assignment=desk.assignment,
        reviewer=desk.reviewer,
        decision=Decision.CHANGES_REQUESTED,
        comment="Which table?",
        digest_seen=claim_digest(desk.claim),
    )
    event_for("assignment.changes_requested", desk.claim, desk.reviewer)
    event_for("claim.request_changes", desk.claim, desk.reviewer)


def test_voiding_a_sign_off_is_audited(desk):
    claim = desk.approved()
    claim_update(claim=claim, editor=desk.editor, expected_version=claim.version, claimant="X")
    event = event_for("assignment.voided", claim, desk.editor)
    assert event.changes == {
        "reviewer": desk.reviewer.get_username(),
        "reason": "the claim was edited",
    }
    event_for("claim.reopen", claim, None)


def test_a_comment_is_audited(desk):
    comment_add(claim=desk.claim, author=desk.editor, body="Which table?")
    event_for("comment.add", desk.claim, desk.editor)


def test_registering_and_editing_a_source_is_audited(desk):
    source = source_create(actor=desk.editor, title="Benchmarks", publisher="Together AI")
    event_for("source.create", source, desk.editor)

    source_update(source=source, actor=desk.editor, publisher="Together")
    event = event_for("source.update", source, desk.editor)
    assert event.changes == {"publisher": ["Together AI", "Together"]}


def test_uploading_a_version_is_audited(desk):
    source = SourceFactory()
    version, created = source_version_upload(
        source=source, content=b"Plain words.", filename="a.txt", actor=desk.editor
    )
    assert created
    event = event_for("sourceversion.create", version, desk.editor)
    assert version.sha256 in str(event.changes)


def test_a_quotation_is_audited(desk):
    version = SourceVersionFactory()
    start, end = find_span(version.extracted_text, "467 seconds")
    quotation, _created = quotation_create(version=version, start=start, end=end, actor=desk.editor)
    assert event_for("quotation.create", quotation, desk.editor).changes["exact"] == "467 seconds"


def test_confirming_a_reanchored_quotation_is_audited(desk):
    old = SourceVersionFactory(text="Intro. Beta says 3.7 times. Outro.")
    start, end = find_span(old.extracted_text, "Beta says 3.7 times.")
    quotation_create(version=old, start=start, end=end, actor=None)
    source_version_create_from_text(
        source=old.source, text="Intro. Beta says 3.8 times. Outro.", actor=None
    )
    reanchoring = Reanchoring.objects.get(version__source=old.source, status="changed")

    reanchoring_confirm(reanchoring=reanchoring, actor=desk.reviewer)

    event = event_for("reanchoring.confirm", reanchoring, desk.reviewer)
    assert event.changes["new_exact"] == "Beta says 3.8 times."


def test_each_step_of_a_correction_is_audited(desk):
    correction = desk.correction()
    event_for("correction.draft", correction, desk.editor)

    correction_approve(correction=correction, approver=desk.reviewer)
    event_for("correction.approve", correction, desk.reviewer)

    published = correction_publish(correction=correction, editor=desk.editor)
    event = event_for("correction.publish", correction, desk.editor)
    assert event.changes["sha256"] == published.sha256


def test_a_verdict_changed_by_a_correction_is_audited_on_the_claim(desk):
    correction = desk.correction()
    Correction.objects.filter(pk=correction.pk).update(
        new_verdict=RatingFactory(label="Misleading", order=2, value=2)
    )
    correction.refresh_from_db()
    correction_approve(correction=correction, approver=desk.reviewer)
    correction_publish(correction=correction, editor=desk.editor)
    assert event_for("claim.verdict_corrected", desk.claim, desk.editor).changes["verdict"] == [
        "Accurate",
        "Misleading",
    ]


def test_handling_a_readers_report_is_audited(desk):
    closed = report_submit(page_url="/corrections/", message="A typo.", address="192.0.2.7")
    report_close(report=closed, editor=desk.editor, reply="Fixed, thank you.")
    assert event_for("report.close", closed, desk.editor).changes["reply"] == "Fixed, thank you."

    converted = report_submit(page_url="/corrections/", message="Wrong sum.", address="192.0.2.8")
    correction = desk.correction()
    report_convert(report=converted, correction=correction, editor=desk.editor)
    event = event_for("report.convert", converted, desk.editor)
    assert event.changes["correction"] == correction.pk
    assert ErrorReport.objects.get(pk=converted.pk).correction == correction


# The admin: what it may change it audits; the audit trail it never changes.


@pytest.fixture
def root(client):
    user = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def test_a_change_in_the_admin_is_audited_with_old_and_new_values(client, root):
    response = client.post(
        reverse("admin:claims_rating_add"),
        {"label": "Half true", "order": "33", "value": "3", "meaning": "Partly."},
    )
    rating = Rating.objects.get(label="Half true")
    url = reverse("admin:claims_rating_change", args=[rating.pk])

    response = client.post(
        url, {"label": "Half right", "order": "33", "value": "3", "meaning": "Partly."}
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    event = event_for("rating.admin_change", rating, root)
    assert event.changes == {"label": ["Half true", "Half right"]}


def test_a_source_changed_in_the_admin_is_audited_by_its_service(client, root):
    source = SourceFactory(title="Old title", publisher="Together AI")
    url = reverse("admin:sources_source_change", args=[source.pk])

    response = client.post(
        url,
        {"title": "New title", "publisher": "Together AI", "role": source.role, "_save": "1"}
        | {f"versions-{name}": value for name, value in MANAGEMENT_FORM.items()},
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    # source_update, as for a change made in the app: one event, with old and new values.
    event = event_for("source.update", source, root)
    assert event.changes == {"title": ["Old title", "New title"]}
    assert not AuditEvent.objects.filter(action="source.admin_change").exists()
    assert Source.objects.get(pk=source.pk).title == "New title"


#: The source page's inline of versions, empty.
MANAGEMENT_FORM = {
    "TOTAL_FORMS": "0",
    "INITIAL_FORMS": "0",
    "MIN_NUM_FORMS": "0",
    "MAX_NUM_FORMS": "1000",
}


def test_an_addition_and_a_deletion_in_the_admin_are_audited(client, root):
    response = client.post(
        reverse("admin:claims_rating_add"),
        {"label": "Half true", "order": "33", "value": "3", "meaning": "Partly."},
    )
    assert response.status_code == 302
    rating = Rating.objects.get(label="Half true")
    event_for("rating.admin_add", rating, root)

    response = client.post(reverse("admin:claims_rating_delete", args=[rating.pk]), {"post": "yes"})
    assert response.status_code == 302
    deleted = AuditEvent.objects.get(action="rating.admin_delete")
    assert (deleted.target_id, deleted.actor) == (str(rating.pk), root)


def staff_editor():
    return EditorFactory(is_staff=True)


@pytest.mark.parametrize(
    "make_user",
    [staff_editor, lambda: UserFactory(is_staff=True, is_superuser=True)],
    ids=["editor", "superuser"],
)
def test_no_one_may_add_change_or_delete_an_audit_event_in_the_admin(client, make_user):
    user = make_user()
    event = AuditEvent.objects.create(
        action="claim.update",
        target_type=ContentType.objects.get_for_model(Source),
        target_id="1",
        target_repr="A source",
    )
    request = RequestFactory().get("/admin/")
    request.user = user
    model_admin = admin.site._registry[AuditEvent]
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, event)
    assert not model_admin.has_delete_permission(request, event)

    client.force_login(user)
    change_url = reverse("admin:factcheck_auditevent_change", args=[event.pk])
    page = client.get(change_url)
    attempts = [
        client.post(change_url, {"action": "claim.delete", "target_repr": "Forged"}),
        client.post(reverse("admin:factcheck_auditevent_delete", args=[event.pk]), {"post": "yes"}),
        client.post(
            reverse("admin:factcheck_auditevent_changelist"),
            {"action": "delete_selected", "_selected_action": [event.pk], "post": "yes"},
        ),
        client.post(reverse("admin:factcheck_auditevent_add"), {"action": "forged"}),
    ]

    if user.is_superuser:
        assert page.status_code == 200
        assert 'name="_save"' not in page.content.decode()
    else:
        assert page.status_code == 403  # an editor does not read the trail in the admin
    assert [response.status_code for response in attempts[:2]] == [403, 403]
    assert attempts[3].status_code == 403
    stored = AuditEvent.objects.get(pk=event.pk)
    assert (stored.action, stored.target_repr) == ("claim.update", "A source")
    assert not AuditEvent.objects.filter(action="forged").exists()
