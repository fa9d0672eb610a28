"""The corrections workflow and its tamper-evident, append-only chain."""

import lxml.html
import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.timezone import now

from claims.corrections import (
    GENESIS,
    chain_head,
    correction_approve,
    correction_discard,
    correction_draft,
    correction_publish,
    verify_chain,
)
from claims.models import (
    CORRECTION_TEXT_CHARS,
    Claim,
    ClaimStatus,
    Correction,
    CorrectionKind,
    CorrectionStatus,
    ErrorReport,
    PublishedRecordError,
    ReportStatus,
)
from claims.reports import report_convert
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    RatingFactory,
    ReviewerFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def published_claim(editor):
    claim = ClaimFactory(author=editor, verdict=RatingFactory(label="Accurate", order=5, value=5))
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    return claim


def publish(claim, editor, **fields):
    draft = correction_draft(
        case=claim.case,
        claim=claim,
        editor=editor,
        kind=fields.pop("kind", "correction"),
        what_was_wrong=fields.pop("what_was_wrong", "We said 467 seconds."),
        what_is_right=fields.pop("what_is_right", "The parts add up to 460 seconds."),
        **fields,
    )
    correction_approve(correction=draft, approver=ReviewerFactory())
    return correction_publish(correction=draft, editor=editor)


def draft_update(published, editor):
    """A draft update of the case as a whole, its texts placeholders."""
    return correction_draft(
        case=published.case, editor=editor, kind="update", what_was_wrong="a", what_is_right="b"
    )


def test_a_correction_goes_from_draft_to_approved_to_published(published_claim, editor):
    correction = publish(published_claim, editor)

    assert correction.status == CorrectionStatus.PUBLISHED
    assert (correction.sequence, correction.previous_sha256) == (1, GENESIS)
    assert len(correction.sha256) == 64
    assert chain_head() == correction.sha256


def test_the_person_who_drafted_it_cannot_approve_it(published_claim, editor):
    draft = correction_draft(
        case=published_claim.case,
        editor=editor,
        kind="clarification",
        what_was_wrong="x",
        what_is_right="y",
    )

    with pytest.raises(ValidationError, match="second person"):
        correction_approve(correction=draft, approver=editor)


def test_an_unapproved_correction_cannot_be_published(published_claim, editor):
    draft = draft_update(published_claim, editor)

    with pytest.raises(ValidationError, match="approved"):
        correction_publish(correction=draft, editor=editor)
    assert Correction.objects.get(pk=draft.pk).status == CorrectionStatus.DRAFT


def test_only_a_published_claim_is_corrected(editor):
    with pytest.raises(ValidationError, match="Only a published claim"):
        correction_draft(
            case=(claim := ClaimFactory()).case,
            claim=claim,
            editor=editor,
            kind="correction",
            what_was_wrong="x",
            what_is_right="y",
        )


def test_a_case_with_nothing_published_gets_no_correction(editor):
    unpublished = ClaimFactory(author=editor)

    with pytest.raises(ValidationError) as refused:
        correction_draft(
            case=unpublished.case,
            editor=editor,
            kind="correction",
            what_was_wrong="Nothing public.",
            what_is_right="Nothing to correct.",
        )

    assert refused.value.code == "case_not_published"
    assert not Correction.objects.exists()


def test_an_entry_supersedes_only_one_about_the_same_case(published_claim, editor):
    first = publish(published_claim, editor)
    elsewhere = ClaimFactory(author=editor)
    Claim.objects.filter(pk=elsewhere.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-06T10:00:00Z"
    )

    with pytest.raises(ValidationError) as refused:
        correction_draft(
            case=elsewhere.case,
            editor=editor,
            kind="update",
            what_was_wrong="About another case.",
            what_is_right="Must not supersede entry 1.",
            supersedes=first,
        )

    assert refused.value.code == "supersedes_other"
    assert "Entry 1 is about another case" in refused.value.message
    assert not first.superseded_by.exists()


def test_a_verdict_changing_correction_records_both_verdicts_and_applies_the_new_one(
    published_claim, editor
):
    misleading = RatingFactory(label="Misleading", order=2, value=2)

    correction = publish(published_claim, editor, new_verdict=misleading)

    assert correction.old_verdict.label == "Accurate"
    assert correction.new_verdict == misleading
    assert Claim.objects.get(pk=published_claim.pk).verdict == misleading


def test_a_published_correction_cannot_be_changed_through_the_model(published_claim, editor):
    correction = publish(published_claim, editor)
    correction.what_is_right = "Rewritten history."

    with pytest.raises(PublishedRecordError):
        correction.save()
    with pytest.raises(PublishedRecordError):
        correction.delete()


def test_the_database_refuses_to_update_a_published_correction(published_claim, editor):
    correction = publish(published_claim, editor)

    with pytest.raises(Exception, match="never changed"), transaction.atomic():
        Correction.objects.filter(pk=correction.pk).update(what_is_right="Rewritten.")


def test_a_later_change_is_a_new_entry_that_supersedes_the_old(published_claim, editor):
    first = publish(published_claim, editor)

    second = publish(published_claim, editor, kind="update", supersedes=first)

    assert second.supersedes == first
    assert (second.sequence, second.previous_sha256) == (2, first.sha256)
    assert list(first.superseded_by.all()) == [second]


def test_a_public_entry_names_only_the_published_entries_that_supersede_it(
    client, published_claim, editor
):
    first = publish(published_claim, editor)
    correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="update",
        what_was_wrong="Not yet public.",
        what_is_right="A draft.",
        supersedes=first,
    )

    page = client.get(first.get_absolute_url())
    assert "Superseded by" not in page.text

    second = publish(published_claim, editor, kind="update", supersedes=first)
    page = client.get(first.get_absolute_url())
    assert f'<a href="{second.get_absolute_url()}">entry {second.sequence}</a>' in page.text
    assert page.text.count("Superseded by") == 1
    assert f'<a href="{published_claim.get_public_url()}">the claim it corrects</a>' in page.text


def test_verify_corrections_passes_on_an_intact_chain(published_claim, editor, capsys):
    for _ in range(3):
        publish(published_claim, editor)

    call_command("verify_corrections")

    assert "verifies: 3 published entries" in capsys.readouterr().out
    assert verify_chain().ok


def drop_trigger_and_rewrite(correction, **changes):
    """What an attacker with database access would do: bypass the app and its trigger."""
    from django.db import connection

    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A superuser's way round every trigger, for this transaction only.
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            cursor.execute("DROP TRIGGER claims_correction_published_immutable")
        Correction.objects.filter(pk=correction.pk).update(**changes)
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def test_verify_corrections_names_the_entry_altered_in_the_database(published_claim, editor):
    entries = [publish(published_claim, editor) for _ in range(3)]
    drop_trigger_and_rewrite(entries[1], what_is_right="A quietly rewritten entry.")

    with pytest.raises(CommandError, match="broken at entry 2") as broken:
        call_command("verify_corrections")

    assert f"id {entries[1].pk}" in str(broken.value)
    assert "content was changed" in str(broken.value)


def test_verify_corrections_notices_a_removed_entry(published_claim, editor):
    entries = [publish(published_claim, editor) for _ in range(3)]
    drop_trigger_and_rewrite(
        entries[1], sequence=None, status="draft", published_at=None, sha256=""
    )

    report = verify_chain()

    assert not report.ok
    assert report.broken == entries[2]


def test_a_reviewer_may_approve_but_not_draft_or_publish(published_claim, editor):
    reviewer = ReviewerFactory()
    with pytest.raises(NotAllowed, match="Only an editor"):
        correction_draft(
            case=published_claim.case,
            editor=reviewer,
            kind="update",
            what_was_wrong="x",
            what_is_right="y",
        )
    draft = draft_update(published_claim, editor)
    correction_approve(correction=draft, approver=reviewer)
    with pytest.raises(NotAllowed, match="Only an editor"):
        correction_publish(correction=draft, editor=reviewer)
    correction_publish(correction=draft, editor=EditorFactory())


def test_correction_draft_drops_control_characters_without_a_form(published_claim, editor):
    draft = correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind=CorrectionKind.CORRECTION,
        what_was_wrong="We said 467\x0cseconds.",
        what_is_right="The parts add up\x1b to 460 seconds.",
        reason="A typo\x00.",
    )

    draft.refresh_from_db()
    assert (draft.what_was_wrong, draft.what_is_right, draft.reason) == (
        "We said 467 seconds.",
        "The parts add up to 460 seconds.",
        "A typo.",
    )


def test_correction_draft_checks_the_texts_without_their_control_characters(
    published_claim, editor
):
    draft = dict(case=published_claim.case, claim=published_claim, editor=editor)

    at_the_limit = correction_draft(
        **draft,
        kind=CorrectionKind.CORRECTION,
        what_was_wrong="x" * CORRECTION_TEXT_CHARS + "\x00\x01",
        what_is_right="The parts add up to 460 seconds.",
    )
    with pytest.raises(ValidationError) as refused:
        correction_draft(
            **draft,
            kind=CorrectionKind.CORRECTION,
            what_was_wrong="\x00\x1b",
            what_is_right="The parts add up to 460 seconds.",
        )

    assert len(at_the_limit.what_was_wrong) == CORRECTION_TEXT_CHARS
    assert "what_was_wrong" in refused.value.message_dict
    assert Correction.objects.count() == 1


# Through the desk's pages.


def test_a_drafted_correction_loses_pasted_control_characters(client, editor, published_claim):
    client.force_login(editor)

    client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "claim": published_claim.pk,
            "kind": "correction",
            "what_was_wrong": "We said 467\x0cseconds.",
            "what_is_right": "The parts add up\x1b to 460 seconds.",
        },
    )

    draft = Correction.objects.get()
    assert draft.what_was_wrong == "We said 467 seconds."
    assert draft.what_is_right == "The parts add up to 460 seconds."


def test_a_correction_text_over_the_limit_is_refused_and_kept(client, editor, published_claim):
    client.force_login(editor)
    too_long = "word " * (CORRECTION_TEXT_CHARS // 5) + "over"

    response = client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "claim": published_claim.pk,
            "kind": "correction",
            "what_was_wrong": too_long,
            "what_is_right": "The parts add up to 460 seconds.",
        },
    )

    assert response.status_code == 422
    assert f"has at most {CORRECTION_TEXT_CHARS} characters" in response.text
    assert too_long.strip()[-30:] in response.text
    assert not Correction.objects.exists()


def test_correction_draft_refuses_a_text_over_the_limit_without_a_form(published_claim, editor):
    with pytest.raises(ValidationError) as refused:
        correction_draft(
            case=published_claim.case,
            claim=published_claim,
            editor=editor,
            kind=CorrectionKind.CORRECTION,
            what_was_wrong="We said 467 seconds.",
            what_is_right="x" * (CORRECTION_TEXT_CHARS + 1),
        )

    assert "what_is_right" in refused.value.message_dict
    assert not Correction.objects.exists()


def test_the_desk_takes_a_correction_from_draft_to_the_public_log(client, editor, published_claim):
    client.force_login(editor)
    response = client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "claim": published_claim.pk,
            "kind": "correction",
            "what_was_wrong": "We said 467 seconds.",
            "what_is_right": "The parts add up to 460 seconds.",
            "reason": "A reader's arithmetic.",
        },
    )
    assert response.status_code == 302
    draft = Correction.objects.get()

    own = client.post(reverse("claims:correction_approve", args=[draft.pk]))
    assert own.status_code == 409
    assert "second person" in own.text

    client.force_login(ReviewerFactory())
    client.post(reverse("claims:correction_approve", args=[draft.pk]))
    client.force_login(editor)
    client.post(reverse("claims:correction_publish", args=[draft.pk]))

    published = Correction.objects.get()
    assert published.status == CorrectionStatus.PUBLISHED
    log = client.get(reverse("claims:corrections_log"))
    assert "The parts add up to 460 seconds." in log.text


def test_the_desk_shows_a_drafts_new_verdict_beside_the_claims_current_one(
    client, editor, published_claim
):
    correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="correction",
        what_was_wrong="We said 467 seconds.",
        what_is_right="The parts add up to 460 seconds.",
        new_verdict=RatingFactory(label="Mostly accurate", order=4, value=4),
    )
    client.force_login(editor)

    page = lxml.html.fromstring(client.get(reverse("claims:corrections_desk")).text)

    entry = page.find_class("correction")[0]
    terms = [" ".join(term.text_content().split()) for term in entry.iter("dt")]
    details = [" ".join(detail.text_content().split()) for detail in entry.iter("dd")]
    shown = dict(zip(terms, details, strict=True))
    assert (shown["Current verdict"], shown["New verdict"]) == ("Accurate", "Mostly accurate")


def test_a_draft_with_missing_fields_keeps_what_was_typed(client, editor, published_claim):
    client.force_login(editor)
    response = client.post(
        reverse("claims:correction_draft"),
        {"case": published_claim.case_id, "kind": "update", "what_was_wrong": "Typed words"},
    )

    assert response.status_code == 422
    assert "Typed words" in response.text
    # The refused page opens on its summary, and its address reloaded is the desk again.
    assert 'class="form-errors" role="alert" tabindex="-1" autofocus' in response.text
    assert client.get(reverse("claims:correction_draft"))["Location"] == reverse(
        "claims:corrections_desk"
    )
    assert not Correction.objects.exists()


def test_a_refused_draft_shows_the_typed_text_as_it_would_be_saved(client, editor, published_claim):
    client.force_login(editor)

    response = client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "kind": "update",
            "what_was_wrong": "  We said 467\x0cseconds,\x1b twice.\nOn air\x00.",
            "reason": "A\x7f typo.",
        },
    )

    assert response.status_code == 422
    # Only the control characters go, as the model drops them; the rest is kept.
    assert ">\n  We said 467 seconds, twice.\nOn air.</textarea>" in response.text
    assert ">\nA typo.</textarea>" in response.text
    assert not any(character in response.text for character in "\x00\x0c\x1b\x7f")


def test_a_published_entry_is_refused_by_the_desks_forms_saying_why(
    client, editor, published_claim
):
    # A stale tab still shows it as a draft or approved: the desk says what it is now.
    correction = publish(published_claim, editor)
    client.force_login(editor)

    for name in ("claims:correction_approve", "claims:correction_publish"):
        response = client.post(reverse(name, args=[correction.pk]))
        assert response.status_code == 409
        assert (
            f"This correction is already published, as entry {correction.sequence} of the log"
            in response.text
        )
    assert Correction.objects.get(pk=correction.pk).sha256 == correction.sha256


def test_a_step_on_a_correction_discarded_in_another_tab_says_so(client, editor, published_claim):
    draft = draft_update(published_claim, editor)
    correction_discard(correction=draft, editor=editor)
    client.force_login(ReviewerFactory())

    response = client.post(reverse("claims:correction_approve", args=[draft.pk]))

    assert response.status_code == 409
    assert "This correction was discarded meanwhile: nothing was done." in response.text


def test_a_published_entry_is_read_only_in_the_admin(client, published_claim, editor):
    correction = publish(published_claim, editor)
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    url = reverse("admin:claims_correction_change", args=[correction.pk])

    response = client.post(url, {"what_is_right": "Rewritten in the admin."})

    assert response.status_code == 403
    assert Correction.objects.get(pk=correction.pk).what_is_right == correction.what_is_right


# Retractions.


def draft_retraction(published, editor, **fields):
    return correction_draft(
        case=published.case,
        editor=editor,
        kind=CorrectionKind.RETRACTION,
        what_was_wrong="The figure came from a page that was not the company's.",
        what_is_right="We withdraw this fact-check until we can check it again.",
        **{"claim": published} | fields,
    )


def test_a_retraction_names_its_claim(published_claim, editor):
    with pytest.raises(ValidationError) as refused:
        draft_retraction(published_claim, editor, claim=None)

    assert "names the published claim" in " ".join(refused.value.message_dict["claim"])
    assert not Correction.objects.exists()


def test_a_retraction_gives_no_new_verdict(published_claim, editor):
    with pytest.raises(ValidationError) as refused:
        draft_retraction(published_claim, editor, new_verdict=RatingFactory(label="False"))

    assert "no new verdict" in " ".join(refused.value.message_dict["new_verdict"])
    assert not Correction.objects.exists()


def test_a_published_retraction_marks_the_claim_and_is_the_last_entry_about_it(
    published_claim, editor
):
    before = published_claim.updated_at
    retraction = publish(
        published_claim,
        editor,
        kind=CorrectionKind.RETRACTION,
        what_was_wrong="The figure came from a page that was not the company's.",
    )

    claim = Claim.objects.get(pk=published_claim.pk)
    assert claim.retraction == retraction
    assert retraction.old_verdict == published_claim.verdict  # sealed in the entry
    event = AuditEvent.objects.get(action="claim.retracted")
    assert event.changes == {"correction": retraction.pk, "sequence": 1}
    assert claim.status == ClaimStatus.PUBLISHED  # the public page stays, marked
    assert claim.verdict == published_claim.verdict  # what was retracted stays on record
    assert claim.updated_at > before  # its public copies are rebuilt
    with pytest.raises(ValidationError, match="retracted in entry 1"):
        publish(claim, editor, kind="clarification")
    assert Correction.objects.count() == 1


def test_of_two_approved_entries_about_a_claim_the_first_retraction_ends_the_other(
    published_claim, editor
):
    retraction = draft_retraction(published_claim, editor)
    clarification = correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="clarification",
        what_was_wrong="x",
        what_is_right="y",
    )
    for draft in (retraction, clarification):
        correction_approve(correction=draft, approver=ReviewerFactory())
    correction_publish(correction=retraction, editor=editor)
    head = chain_head()

    with pytest.raises(ValidationError, match="retracted in entry 1"):
        correction_publish(correction=clarification, editor=editor)

    assert Correction.objects.get(pk=clarification.pk).status == CorrectionStatus.APPROVED
    assert chain_head() == head


def test_a_retraction_without_a_claim_on_the_desk_is_refused_and_keeps_what_was_typed(
    client, editor, published_claim
):
    client.force_login(editor)
    response = client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "kind": "retraction",
            "what_was_wrong": "Typed reason for retracting",
            "what_is_right": "We withdraw it.",
        },
    )

    assert response.status_code == 422
    assert "names the published claim" in response.text
    assert "Typed reason for retracting" in response.text
    assert not Correction.objects.exists()


def test_the_desk_claim_page_of_a_retracted_claim_says_so_and_offers_no_correction(
    client, editor, published_claim
):
    publish(published_claim, editor, kind=CorrectionKind.RETRACTION)
    client.force_login(editor)

    page = client.get(published_claim.get_absolute_url())

    assert "Retracted" in page.text
    assert "entry 1 of the corrections log" in page.text
    assert f"?claim={published_claim.pk}" not in page.text


def test_a_correction_of_a_retracted_claim_on_the_desk_says_why_and_keeps_what_was_typed(
    client, editor, published_claim
):
    publish(published_claim, editor, kind=CorrectionKind.RETRACTION)
    client.force_login(editor)

    response = client.post(
        reverse("claims:correction_draft"),
        {
            "case": published_claim.case_id,
            "claim": published_claim.pk,
            "kind": "clarification",
            "what_was_wrong": "Typed after the retraction",
            "what_is_right": "y",
        },
    )

    assert response.status_code == 422
    assert "its fact-check was retracted" in response.text
    assert "Typed after the retraction" in response.text
    assert Correction.objects.count() == 1


# Discarding what was never published.


def test_an_approved_entry_a_retraction_made_moot_is_discarded_from_the_desk(
    client, editor, published_claim
):
    moot = correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="clarification",
        what_was_wrong="x",
        what_is_right="y",
    )
    correction_approve(correction=moot, approver=ReviewerFactory())
    publish(published_claim, editor, kind=CorrectionKind.RETRACTION)
    client.force_login(editor)

    desk = client.get(reverse("claims:corrections_desk"))
    response = client.post(reverse("claims:correction_discard", args=[moot.pk]), follow=True)

    assert reverse("claims:correction_discard", args=[moot.pk]) in desk.text
    assert "Clarification discarded." in response.text
    assert not Correction.objects.filter(pk=moot.pk).exists()
    event = AuditEvent.objects.get(action="correction.discard")
    assert (event.actor, event.changes["status"]) == (editor, "approved")


def test_a_discarded_draft_reopens_the_readers_report_it_came_from(published_claim, editor):
    report = ErrorReport.objects.create(page_url="/corrections/", message="Wrong sum.")
    draft = draft_update(published_claim, editor)
    report_convert(report=report, correction=draft, editor=editor)

    correction_discard(correction=draft, editor=editor)

    report.refresh_from_db()
    assert (report.status, report.correction, report.handled_by) == (ReportStatus.OPEN, None, None)
    assert AuditEvent.objects.filter(action="report.reopen", target_id=str(report.pk)).exists()


def test_only_an_editor_discards_and_never_a_published_entry(client, published_claim, editor):
    draft = draft_update(published_claim, editor)
    entry = publish(published_claim, editor)
    reviewer = ReviewerFactory()
    client.force_login(reviewer)

    refused = client.post(reverse("claims:correction_discard", args=[draft.pk]))

    assert refused.status_code == 403
    assert Correction.objects.filter(pk=draft.pk).exists()
    with pytest.raises(ValidationError, match="never removed"):
        correction_discard(correction=entry, editor=editor)
    client.force_login(editor)
    refused_published = client.post(reverse("claims:correction_discard", args=[entry.pk]))
    assert refused_published.status_code == 409
    assert "A published entry is never removed" in refused_published.text
    assert Correction.objects.get(pk=entry.pk).sha256 == entry.sha256


def test_a_retraction_is_superseded_by_nothing(published_claim, editor):
    retraction = publish(published_claim, editor, kind=CorrectionKind.RETRACTION)

    with pytest.raises(ValidationError, match="retracted in entry 1"):
        correction_draft(
            case=published_claim.case,
            editor=editor,
            kind="update",
            what_was_wrong="a",
            what_is_right="b",
            supersedes=retraction,
        )


def test_a_correction_discarded_while_another_person_approves_it_stays_discarded(
    published_claim, editor
):
    draft = draft_update(published_claim, editor)
    seen_by_the_approver = Correction.objects.get(pk=draft.pk)
    correction_discard(correction=draft, editor=editor)

    with pytest.raises(ValidationError, match="discarded meanwhile"):
        correction_approve(correction=seen_by_the_approver, approver=ReviewerFactory())
    with pytest.raises(ValidationError, match="discarded meanwhile"):
        correction_publish(correction=seen_by_the_approver, editor=editor)

    assert not Correction.objects.filter(pk=draft.pk).exists()


def test_the_desk_offers_neither_a_retracted_claim_nor_its_entries_and_names_entries_by_number(
    client, editor, published_claim
):
    other = ClaimFactory()
    Claim.objects.filter(pk=other.pk).update(status=ClaimStatus.PUBLISHED, published_at=now())
    other.refresh_from_db()
    kept = publish(other, editor, what_is_right="Still stands.")
    publish(published_claim, editor, kind=CorrectionKind.RETRACTION)
    client.force_login(editor)

    form = client.get(reverse("claims:corrections_desk")).context["form"]

    assert list(form.fields["claim"].queryset) == [other]
    assert [label for _value, label in form.fields["supersedes"].choices][1:] == [
        f"Entry {kept.sequence}: Correction to {other}"
    ]


def test_the_desk_reads_its_choices_in_a_fixed_number_of_queries(
    client, editor, published_claim, django_assert_max_num_queries
):
    client.force_login(editor)
    client.get(reverse("claims:corrections_desk"))
    with CaptureQueriesContext(connection) as few:
        client.get(reverse("claims:corrections_desk"))
    for _ in range(5):
        publish(published_claim, editor)

    with django_assert_max_num_queries(len(few)):
        client.get(reverse("claims:corrections_desk"))


def test_the_log_stops_saying_the_chain_verifies_once_the_check_sees_an_altered_entry(
    client, published_claim, editor
):
    entry = publish(published_claim, editor)
    log = reverse("claims:corrections_log")
    assert "✓ The log's hash chain verifies." in client.get(log).text
    client.get(log)  # kept under its tag for the readers after
    drop_trigger_and_rewrite(entry, what_is_right="A quietly rewritten entry.")
    # The check's result is kept a minute; the minute is over.
    cache.delete(f"corrections-chain-verifies:{entry.sha256}")

    page = client.get(log)

    assert "The log's hash chain does not verify" in page.text
