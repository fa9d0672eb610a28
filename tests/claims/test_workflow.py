"""The claim's state machine, sign-off by digest, and edits that never overwrite."""

import importlib
import itertools

import pytest
from django.apps import apps as django_apps
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms.models import model_to_dict
from django.test import RequestFactory

from claims.models import Case, CaseStatus, Claim, ClaimStatus, Decision, ReviewAssignment
from claims.services import (
    EditConflict,
    claim_submit_for_review,
    claim_update,
    comment_add,
    evidence_add,
    evidence_remove,
    review_decide,
    reviewer_assign,
)
from claims.workflow import (
    TRANSITIONS,
    Action,
    TransitionRefused,
    allowed_actions,
    claim_digest,
    claim_transition,
)
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from sources.services import source_update, source_version_create_from_text
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    EvidenceFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
    UserFactory,
    flagged,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def ready_claim(editor):
    """
    A claim with a verdict, one piece of evidence and one assigned reviewer,
    written by another editor than ``editor``, who may so publish it.
    """
    claim = ClaimFactory(verdict=RatingFactory())
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    reviewer = ReviewerFactory()
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    return claim


def in_state(claim, status):
    Claim.objects.filter(pk=claim.pk).update(
        status=status, published_at="2026-11-05T10:00:00Z" if status == "published" else None
    )
    claim.refresh_from_db()
    return claim


def approve(claim, reviewer):
    assignment = claim.assignments.get(reviewer=reviewer)
    return review_decide(
        assignment=assignment,
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )


# The transition matrix: every state × every action × every role.

#: "author" is the editor who wrote the claim and also holds the Reviewer role: as an
#: editor they may move it along, but never decide on it nor publish it (their own work).
ROLES = ["editor", "author", "assigned_reviewer", "other_reviewer", "no_role"]
EDITOR_ACTIONS = {
    (Action.SUBMIT, "draft"),
    (Action.SUBMIT, "changes_requested"),
    (Action.PUBLISH, "approved"),
    *(
        (Action.WITHDRAW, state)
        for state in ClaimStatus.values
        if state not in {"withdrawn", "published"}
    ),
}
ALLOWED = {
    (Action.REQUEST_CHANGES, "in_review", "assigned_reviewer"),
    (Action.APPROVE, "in_review", "assigned_reviewer"),
    *((action, state, role) for action, state in EDITOR_ACTIONS for role in ("editor", "author")),
} - {(Action.PUBLISH, "approved", "author")}
USER_ACTIONS = [action for action in Action if action != Action.REOPEN]


def actor_for(role, claim):
    if role == "editor":
        return EditorFactory()
    if role == "assigned_reviewer":
        return claim.assignments.get().reviewer
    if role == "other_reviewer":
        return ReviewerFactory()
    if role == "author":
        claim.author.groups.add(*ReviewerFactory().groups.all())
        return claim.author
    return UserFactory()


@pytest.mark.parametrize(
    "action, state, role",
    list(itertools.product(USER_ACTIONS, ClaimStatus.values, ROLES)),
    ids=lambda value: str(value),
)
def test_the_transition_matrix(ready_claim, action, state, role):
    claim = in_state(ready_claim, state)
    reviewer = claim.assignments.get().reviewer
    if action in {Action.APPROVE, Action.PUBLISH}:
        # Their precondition: every reviewer approved the current content.
        ReviewAssignment.objects.filter(claim=claim).update(
            decision=Decision.APPROVED,
            decided_at="2026-11-05T10:00:00Z",
            signed_digest=claim_digest(claim),
        )
    actor = actor_for(role, claim)
    events_before = AuditEvent.objects.count()
    # A reviewer's transition follows their recorded decision (review_decide).
    decision_of = claim.assignments.get() if TRANSITIONS[action].taken_by == "reviewer" else None

    if (action, state, role) in ALLOWED:
        claim = claim_transition(claim=claim, action=action, actor=actor, decision_of=decision_of)
        assert claim.status == TRANSITIONS[action].target
        assert Claim.objects.get(pk=claim.pk).status == TRANSITIONS[action].target
        assert AuditEvent.objects.filter(action=f"claim.{action}").exists()
    else:
        # Refused by the claim's state or content, or (NotAllowed) by the actor's role.
        with pytest.raises((TransitionRefused, NotAllowed)) as refused:
            claim_transition(claim=claim, action=action, actor=actor, decision_of=decision_of)
        assert str(refused.value)
        assert Claim.objects.get(pk=claim.pk).status == state
        assert AuditEvent.objects.count() == events_before
    assert reviewer  # the fixture's reviewer stays assigned either way


@pytest.mark.parametrize("action", [Action.APPROVE, Action.REQUEST_CHANGES])
def test_a_reviewer_moves_a_claim_only_through_a_recorded_decision(ready_claim, editor, action):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    assignment = ready_claim.assignments.get()

    with pytest.raises(TransitionRefused) as refused:
        claim_transition(claim=ready_claim, action=action, actor=assignment.reviewer)

    assert refused.value.code == "needs_decision"
    assert Claim.objects.get(pk=ready_claim.pk).status == ClaimStatus.IN_REVIEW
    assert ReviewAssignment.objects.get(pk=assignment.pk).decision == Decision.PENDING


def test_a_reviewer_added_to_an_approved_claim_sends_it_back_to_review_until_they_approve(
    ready_claim, editor
):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    approve(ready_claim, ready_claim.assignments.get().reviewer)
    assert Claim.objects.get(pk=ready_claim.pk).status == ClaimStatus.APPROVED
    second = ReviewerFactory()

    reviewer_assign(claim=ready_claim, reviewer=second, editor=editor)

    claim = Claim.objects.get(pk=ready_claim.pk)
    assert claim.status == ClaimStatus.IN_REVIEW
    assert AuditEvent.objects.filter(action="claim.reopen", target_id=str(claim.pk)).exists()
    approve(claim, second)
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


def test_a_published_claim_is_not_withdrawn_its_changes_go_through_the_corrections_log(
    ready_claim, editor
):
    claim = in_state(ready_claim, "published")

    assert Action.WITHDRAW not in allowed_actions(claim, editor)
    with pytest.raises(TransitionRefused):
        claim_transition(claim=claim, action=Action.WITHDRAW, actor=editor)
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.PUBLISHED


def test_submitting_an_incomplete_claim_says_everything_that_is_missing(editor):
    claim = ClaimFactory(author=editor)

    with pytest.raises(TransitionRefused) as refused:
        claim_submit_for_review(claim=claim, editor=editor)

    message = refused.value.messages[0]
    assert "a verdict" in message
    assert "at least one evidence quotation" in message
    assert "at least one assigned reviewer" in message
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT


def test_publishing_needs_every_reviewer_to_have_approved_the_current_content(ready_claim, editor):
    in_state(ready_claim, "approved")

    with pytest.raises(TransitionRefused, match="still waiting for"):
        claim_transition(claim=ready_claim, action=Action.PUBLISH, actor=editor)


def test_a_reviewer_cannot_approve_a_claim_whose_evidence_was_removed_during_review(
    ready_claim, editor
):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    reviewer = ready_claim.assignments.get().reviewer
    evidence_remove(evidence=ready_claim.evidence.get(), editor=editor)
    claim = Claim.objects.get(pk=ready_claim.pk)

    with pytest.raises(ValidationError, match="it needs at least one evidence quotation"):
        approve(claim, reviewer)

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.IN_REVIEW
    assert claim.assignments.get().decision == Decision.PENDING


def test_a_claim_whose_verdict_was_cleared_in_review_is_neither_approved_nor_published(
    ready_claim, editor
):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    reviewer = ready_claim.assignments.get().reviewer
    claim_update(
        claim=ready_claim, editor=editor, expected_version=ready_claim.version, verdict=None
    )
    claim = Claim.objects.get(pk=ready_claim.pk)

    with pytest.raises(ValidationError, match="it needs a verdict"):
        approve(claim, reviewer)
    with pytest.raises(TransitionRefused, match="cannot be approved: it needs a verdict"):
        claim_transition(
            claim=claim,
            action=Action.APPROVE,
            actor=reviewer,
            decision_of=claim.assignments.get(),
        )
    # Even with every sign-off somehow on it, publishing checks the content itself.
    in_state(claim, "approved")
    claim.assignments.update(
        decision=Decision.APPROVED, decided_at=claim.updated_at, signed_digest=claim_digest(claim)
    )
    # Another editor than the one who cleared the verdict (who may not publish it at all).
    with pytest.raises(TransitionRefused, match="cannot be published: it needs a verdict"):
        claim_transition(claim=claim, action=Action.PUBLISH, actor=EditorFactory())
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


def publish(claim, editor):
    in_state(claim, "approved")
    claim.assignments.update(
        decision=Decision.APPROVED, decided_at=claim.updated_at, signed_digest=claim_digest(claim)
    )
    return claim_transition(claim=claim, action=Action.PUBLISH, actor=editor)


def test_an_open_case_is_published_with_its_first_published_claim(ready_claim, editor):
    case = ready_claim.case
    assert case.status == CaseStatus.OPEN
    later = ClaimFactory(
        case=case,
        verdict=RatingFactory(),
        quotation=QuotationFactory(version=ready_claim.quotation.version, exact="467 seconds"),
    )
    EvidenceFactory(claim=later, quotation=QuotationFactory())
    reviewer_assign(claim=later, reviewer=ReviewerFactory(), editor=editor)

    first = publish(ready_claim, editor)
    case.refresh_from_db()
    assert case.status == CaseStatus.PUBLISHED
    assert case.published_at == first.published_at
    assert AuditEvent.objects.filter(action="case.publish", target_id=str(case.pk)).count() == 1

    publish(later, editor)
    case.refresh_from_db()
    assert case.published_at == first.published_at
    assert AuditEvent.objects.filter(action="case.publish").count() == 1


def test_a_case_set_back_to_open_keeps_the_date_it_was_first_published(ready_claim, editor):
    first_published = "2026-01-02T03:04:05+00:00"
    Case.objects.filter(pk=ready_claim.case_id).update(published_at=first_published)

    publish(ready_claim, editor)

    case = Case.objects.get(pk=ready_claim.case_id)
    assert case.status == CaseStatus.PUBLISHED
    assert case.published_at.isoformat() == first_published


def test_a_reviewer_added_to_an_approved_claim_is_mailed_that_it_is_in_review(
    ready_claim, editor, mailoutbox
):
    in_state(ready_claim, "approved")

    reviewer_assign(claim=ready_claim, reviewer=ReviewerFactory(), editor=editor)

    assert "It is in review now: you can decide on it." in mailoutbox[-1].body
    assert "not in review yet" not in mailoutbox[-1].body


def test_an_archived_case_stays_archived_when_a_claim_of_it_is_published(ready_claim, editor):
    Case.objects.filter(pk=ready_claim.case_id).update(status=CaseStatus.ARCHIVED)

    publish(ready_claim, editor)

    assert Case.objects.get(pk=ready_claim.case_id).status == CaseStatus.ARCHIVED


def test_cases_published_before_the_rule_take_their_first_claims_date():
    migration = importlib.import_module("claims.migrations.0012_cases_published_with_their_claims")
    published = ClaimFactory(status="published", published_at="2026-03-01T09:00:00Z")
    ClaimFactory(
        case=published.case,
        quotation=QuotationFactory(version=published.quotation.version, exact="467 seconds"),
        status="published",
        published_at="2026-05-01T09:00:00Z",
    )
    unpublished = ClaimFactory()

    migration.publish_cases_with_published_claims(django_apps, None)

    case = Case.objects.get(pk=published.case_id)
    assert case.status == CaseStatus.PUBLISHED
    assert case.published_at.isoformat() == "2026-03-01T09:00:00+00:00"
    assert Case.objects.get(pk=unpublished.case_id).status == CaseStatus.OPEN


# Separation of duties.


def test_the_author_cannot_be_assigned_as_reviewer(editor):
    claim = ClaimFactory(author=editor)
    editor.groups.add(*ReviewerFactory().groups.all())

    with pytest.raises(ValidationError, match="wrote this claim, so someone else must review it"):
        reviewer_assign(claim=claim, reviewer=editor, editor=EditorFactory())


def test_a_reviewer_is_assigned_to_a_claim_once(ready_claim, editor):
    reviewer = ready_claim.assignments.get().reviewer

    with pytest.raises(ValidationError, match="is already assigned to review this claim"):
        reviewer_assign(claim=ready_claim, reviewer=reviewer, editor=editor)

    assert ready_claim.assignments.count() == 1


def test_only_members_of_reviewer_can_be_assigned(ready_claim, editor):
    with pytest.raises(ValidationError, match="is not a reviewer"):
        reviewer_assign(claim=ready_claim, reviewer=UserFactory(), editor=editor)


def test_a_reviewer_cannot_assign_reviewers(ready_claim):
    with pytest.raises(NotAllowed, match="Only an editor"):
        reviewer_assign(claim=ready_claim, reviewer=ReviewerFactory(), editor=ReviewerFactory())


def test_nobody_but_the_assigned_reviewer_can_decide(ready_claim, editor):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    assignment = ready_claim.assignments.get()

    with pytest.raises(NotAllowed, match="Only the assigned reviewer"):
        review_decide(
            assignment=assignment,
            reviewer=ReviewerFactory(),
            decision=Decision.APPROVED,
            digest_seen=claim_digest(ready_claim),
        )


# The full review path.


def test_approval_by_every_reviewer_approves_the_claim_and_stores_the_digest(
    ready_claim, editor, mailoutbox
):
    second = ReviewerFactory()
    reviewer_assign(claim=ready_claim, reviewer=second, editor=editor)
    first = ready_claim.assignments.exclude(reviewer=second).get().reviewer
    claim_submit_for_review(claim=ready_claim, editor=editor)

    approve(ready_claim, first)
    assert Claim.objects.get(pk=ready_claim.pk).status == ClaimStatus.IN_REVIEW
    approve(ready_claim, second)

    claim = Claim.objects.get(pk=ready_claim.pk)
    assert claim.status == ClaimStatus.APPROVED
    assert set(claim.assignments.values_list("signed_digest", flat=True)) == {claim_digest(claim)}
    assert any("review" in message.subject.lower() for message in mailoutbox)


def test_requesting_changes_needs_a_comment_and_sends_the_claim_back(ready_claim, editor):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    assignment = ready_claim.assignments.get()
    digest = claim_digest(ready_claim)

    with pytest.raises(ValidationError, match="Say what needs to change"):
        review_decide(
            assignment=assignment,
            reviewer=assignment.reviewer,
            decision=Decision.CHANGES_REQUESTED,
            digest_seen=digest,
        )
    review_decide(
        assignment=assignment,
        reviewer=assignment.reviewer,
        decision=Decision.CHANGES_REQUESTED,
        comment="Cite the table, not the abstract.",
        digest_seen=digest,
    )

    claim = Claim.objects.get(pk=ready_claim.pk)
    assert claim.status == ClaimStatus.CHANGES_REQUESTED
    assert claim.comments.get().body == "Cite the table, not the abstract."

    claim_submit_for_review(claim=claim, editor=editor)
    assert ready_claim.assignments.get().decision == Decision.PENDING


def test_a_decision_on_content_that_changed_meanwhile_is_refused(ready_claim, editor):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    seen = claim_digest(ready_claim)
    claim_update(
        claim=ready_claim, editor=editor, expected_version=ready_claim.version, rationale="New."
    )
    assignment = ready_claim.assignments.get()

    with pytest.raises(ValidationError, match="changed while you were reading"):
        review_decide(
            assignment=assignment,
            reviewer=assignment.reviewer,
            decision=Decision.APPROVED,
            digest_seen=seen,
        )


# Every kind of change voids the sign-off.


def approved_claim(ready_claim, editor):
    claim_submit_for_review(claim=ready_claim, editor=editor)
    approve(ready_claim, ready_claim.assignments.get().reviewer)
    claim = Claim.objects.get(pk=ready_claim.pk)
    assert claim.status == ClaimStatus.APPROVED
    return claim


def change_statement(claim, editor):
    claim_update(claim=claim, editor=editor, expected_version=claim.version, statement="Changed.")


def change_verdict(claim, editor):
    other = RatingFactory(label="Misleading", order=2, value=2)
    claim_update(claim=claim, editor=editor, expected_version=claim.version, verdict=other)


def change_rationale(claim, editor):
    claim_update(claim=claim, editor=editor, expected_version=claim.version, rationale="More.")


def add_evidence(claim, editor):
    evidence_add(claim=claim, quotation=QuotationFactory(), stance="context", editor=editor)


def remove_evidence(claim, editor):
    evidence_remove(evidence=claim.evidence.get(), editor=editor)


def new_version_of_an_evidence_source(claim, editor):
    # The quoted words move in a new upload: the evidence follows, to a new version.
    version = claim.evidence.get().quotation.version
    source_version_create_from_text(
        source=version.source, text="A new first line.\n" + version.extracted_text, actor=None
    )


def orphan_the_evidence(claim, editor):
    version = claim.evidence.get().quotation.version
    source_version_create_from_text(source=version.source, text="Entirely new text.", actor=None)


def save_in_the_admin(obj, **changes):
    """Save ``changes`` to ``obj`` as the admin's change form does."""
    model_admin = admin.site._registry[type(obj)]
    request = RequestFactory().post("/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    form_class = model_admin.get_form(request, obj, change=True)
    data = {
        name: value
        for name, value in model_to_dict(obj).items()
        if name in form_class.base_fields and value is not None
    }
    form = form_class(data | changes, instance=obj)
    assert form.is_valid(), form.errors
    model_admin.save_model(request, form.save(commit=False), form, change=True)


def rename_an_evidence_source_in_the_admin(claim, editor):
    # The title is part of what the reviewer saw; only the admin edits it.
    save_in_the_admin(claim.evidence.get().quotation.version.source, title="A renamed report")


def rename_an_evidence_source(claim, editor):
    source_update(
        source=claim.evidence.get().quotation.version.source, actor=editor, title="A renamed report"
    )


def change_the_verdicts_value_in_the_admin(claim, editor):
    # The verdict's label and value are part of what the reviewer saw.
    save_in_the_admin(claim.verdict, value="2.5")


@pytest.mark.parametrize(
    "change",
    [
        rename_an_evidence_source,
        rename_an_evidence_source_in_the_admin,
        change_the_verdicts_value_in_the_admin,
        change_statement,
        change_verdict,
        change_rationale,
        add_evidence,
        remove_evidence,
        new_version_of_an_evidence_source,
        orphan_the_evidence,
    ],
)
def test_any_change_voids_the_sign_off_and_puts_the_claim_back_in_review(
    ready_claim, editor, change, mailoutbox
):
    claim = approved_claim(ready_claim, editor)
    reviewer = claim.assignments.get().reviewer
    mailoutbox.clear()

    change(claim, editor)

    claim.refresh_from_db()
    assignment = claim.assignments.get()
    assert claim.status == ClaimStatus.IN_REVIEW
    assert assignment.decision == Decision.PENDING
    assert assignment.signed_digest == ""
    assert AuditEvent.objects.filter(action="assignment.voided", target_id=str(claim.pk)).exists()
    voided = [message for message in mailoutbox if "no longer holds" in message.subject]
    assert [message.to for message in voided] == [[reviewer.email]]
    assert "Please review it again." in voided[0].body


@pytest.mark.parametrize(
    "change",
    [
        new_version_of_an_evidence_source,
        orphan_the_evidence,
        rename_an_evidence_source,
        rename_an_evidence_source_in_the_admin,
    ],
)
def test_a_published_claim_keeps_its_sign_offs_when_its_sources_change(
    ready_claim, editor, change, mailoutbox
):
    claim = approved_claim(ready_claim, editor)
    claim_transition(claim=claim, action=Action.PUBLISH, actor=editor)
    claim.refresh_from_db()
    signed = claim.assignments.get().signed_digest
    mailoutbox.clear()

    change(claim, editor)

    claim.refresh_from_db()
    assignment = claim.assignments.get()
    assert claim.status == ClaimStatus.PUBLISHED
    assert (assignment.decision, assignment.signed_digest) == (Decision.APPROVED, signed)
    assert not AuditEvent.objects.filter(action="assignment.voided").exists()
    assert not [message for message in mailoutbox if "no longer holds" in message.subject]
    if change is orphan_the_evidence:
        # Its page tells the editors, who answer with a correction.
        assert "no longer in version 2" in flagged(claim)


def test_a_voided_sign_off_on_a_claim_sent_back_for_changes_says_it_is_not_in_review_yet(
    ready_claim, editor, mailoutbox
):
    approving = ready_claim.assignments.get().reviewer
    objecting = ReviewerFactory()
    reviewer_assign(claim=ready_claim, reviewer=objecting, editor=editor)
    claim_submit_for_review(claim=ready_claim, editor=editor)
    approve(ready_claim, approving)
    review_decide(
        assignment=ready_claim.assignments.get(reviewer=objecting),
        reviewer=objecting,
        decision=Decision.CHANGES_REQUESTED,
        comment="Cite the table.",
        digest_seen=claim_digest(ready_claim),
    )
    claim = Claim.objects.get(pk=ready_claim.pk)
    mailoutbox.clear()

    claim_update(claim=claim, editor=editor, expected_version=claim.version, statement="Reworded.")

    voided = next(message for message in mailoutbox if "no longer holds" in message.subject)
    assert voided.to == [approving.email]
    assert "not in review now: you will get another mail when it is submitted" in voided.body
    assert "Please review it again" not in voided.body
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.CHANGES_REQUESTED


def test_an_edit_that_changes_nothing_keeps_the_sign_off(ready_claim, editor):
    claim = approved_claim(ready_claim, editor)

    claim_update(
        claim=claim, editor=editor, expected_version=claim.version, statement=claim.statement
    )

    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


def test_a_save_that_changes_nothing_makes_no_new_version_and_no_conflict_for_the_next(editor):
    claim = ClaimFactory(author=editor)
    opened_at = claim.version
    events = AuditEvent.objects.count()

    claim_update(claim=claim, editor=editor, expected_version=opened_at, statement=claim.statement)
    # Another tab, opened at the same version, saves a real change.
    claim_update(claim=claim, editor=editor, expected_version=opened_at, claimant="A new claimant")

    stored = Claim.objects.get(pk=claim.pk)
    assert (stored.version, stored.claimant) == (opened_at + 1, "A new claimant")
    assert AuditEvent.objects.count() == events + 1


# No lost edits.


def test_a_save_against_an_older_version_is_refused_and_keeps_the_stored_text(editor):
    claim = ClaimFactory(author=editor)
    opened_at = claim.version
    other_editor = EditorFactory()
    claim_update(
        claim=Claim.objects.get(pk=claim.pk),
        editor=other_editor,
        expected_version=opened_at,
        statement="The other editor's wording.",
    )

    with pytest.raises(EditConflict) as conflict:
        claim_update(
            claim=claim, editor=editor, expected_version=opened_at, statement="My wording."
        )

    assert conflict.value.current.statement == "The other editor's wording."
    assert Claim.objects.get(pk=claim.pk).statement == "The other editor's wording."


def test_a_published_claim_is_read_only(ready_claim, editor):
    in_state(ready_claim, "published")

    with pytest.raises(ValidationError, match="read-only"):
        claim_update(
            claim=ready_claim, editor=editor, expected_version=ready_claim.version, statement="x"
        )


def test_only_editors_and_the_claims_reviewers_join_its_discussion(ready_claim, editor):
    reviewer = ready_claim.assignments.get().reviewer

    comment_add(claim=ready_claim, author=editor, body="Is the table from §5?")
    comment_add(claim=ready_claim, author=reviewer, body="Yes, Table 3.")
    with pytest.raises(NotAllowed, match="Only editors"):
        comment_add(claim=ready_claim, author=ReviewerFactory(), body="Hi")

    assert list(ready_claim.comments.values_list("body", flat=True)) == [
        "Is the table from §5?",
        "Yes, Table 3.",
    ]


def test_renaming_a_source_leaves_a_published_claims_sign_offs_as_they_were(ready_claim, editor):
    claim = approved_claim(ready_claim, editor)
    claim = claim_transition(claim=claim, action=Action.PUBLISH, actor=editor)

    rename_an_evidence_source_in_the_admin(claim, editor)

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PUBLISHED
    assert claim.assignments.get().decision == Decision.APPROVED


def test_a_seeded_checklist_is_no_rationale_to_publish(ready_claim, editor, first_case):
    # As the seed wrote it on the claim, "To be checked against …" and all.
    seeded = first_case.claims.filter(rationale__contains="To be checked against").first().rationale
    Claim.objects.filter(pk=ready_claim.pk).update(rationale=seeded)
    claim = approved_claim(Claim.objects.get(pk=ready_claim.pk), editor)

    with pytest.raises(ValidationError) as refused:
        claim_transition(claim=claim, action=Action.PUBLISH, actor=editor)

    assert refused.value.code == "checklist_rationale"
    assert "to-do list" in refused.value.messages[0]
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED


def test_a_rationale_of_its_own_is_published(ready_claim, editor):
    Claim.objects.filter(pk=ready_claim.pk).update(rationale="The evidence gives 2.6, not 3.7.")
    claim = approved_claim(Claim.objects.get(pk=ready_claim.pk), editor)

    published = claim_transition(claim=claim, action=Action.PUBLISH, actor=editor)

    assert published.status == ClaimStatus.PUBLISHED


def test_renaming_a_source_through_its_service_says_so_when_it_voids_a_sign_off(
    ready_claim, editor
):
    claim = approved_claim(ready_claim, editor)
    source = claim.evidence.get().quotation.version.source
    old_title = source.title

    source_update(source=source, actor=editor, title="A renamed report")

    voided = AuditEvent.objects.get(action="assignment.voided", target_id=str(claim.pk))
    assert voided.actor == editor
    assert voided.changes["reason"] == f"the source “{old_title}” was renamed “A renamed report”"
    assert AuditEvent.objects.get(action="source.update").changes == {
        "title": [old_title, "A renamed report"]
    }


def test_a_source_changed_without_a_new_title_keeps_the_sign_offs(ready_claim, editor):
    claim = approved_claim(ready_claim, editor)
    source = claim.evidence.get().quotation.version.source

    source_update(source=source, actor=editor, publisher="Another publisher", title=source.title)

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.assignments.get().decision == Decision.APPROVED
    assert not AuditEvent.objects.filter(action="assignment.voided").exists()
