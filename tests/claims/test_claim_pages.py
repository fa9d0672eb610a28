"""The claim page, the reviewer's sign-off page and My reviews, through real requests."""

import datetime
import re

import lxml.html
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from claims.models import Claim, ClaimStatus, Decision
from claims.selectors import open_review_count
from claims.services import (
    claim_submit_for_review,
    claim_update,
    review_decide,
    reviewer_assign,
)
from claims.views import desk as desk_views
from claims.views.desk import REVIEWS_PER_PAGE
from claims.workflow import Action, claim_digest, claim_transition
from factcheck.models import AuditEvent
from factcheck.text_match import _words_apart, containing_words
from sources.models import AnchoringStatus, Quotation, Reanchoring
from sources.services import reanchoring_confirm, source_version_create_from_text
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    EditorFactory,
    EvidenceFactory,
    PublishedCorrectionFactory,
    QuotationFactory,
    RatingFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    SourceVersionFactory,
    case_with_claims,
    make_case_with_claims,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def url(name, claim, *args):
    return reverse(f"claims:{name}", args=[claim.case.slug, claim.pk, *args])


def opened(claim, **typed):
    """The edit form as the page sends it: the values ``claim`` was opened with, then ``typed``."""
    shown = {
        "statement": claim.statement,
        "claimant": claim.claimant,
        "verdict": claim.verdict_id or "",
        "rationale": claim.rationale,
    }
    hidden = {f"initial-{name}": value for name, value in shown.items()}
    return shown | hidden | {"version": claim.version} | typed


def edit(client, claim, version, **fields):
    data = opened(claim, version=version, **fields)
    return client.post(url("claim_edit", claim), data, headers=HTMX)


def form_in(html, form_id):
    """The (name, value) pairs a browser would submit from the form ``form_id`` in ``html``."""
    form = lxml.html.fragment_fromstring(html, create_parent="div").get_element_by_id(form_id)
    # HTML drops the line break that opens a textarea's text; lxml keeps it.
    textareas = {field.name for field in form.inputs if field.tag == "textarea"}
    return {
        name: value.removeprefix("\n") if name in textareas else value
        for name, value in form.form_values()
    }


@pytest.fixture
def claim(editor):
    return ClaimFactory(author=editor)


def test_the_claim_page_shows_statement_quotation_and_history(editor_client, claim):
    edit(editor_client, claim, claim.version, claimant="Together AI, by its press office")

    response = editor_client.get(claim.get_absolute_url())

    assert response.status_code == 200
    assert claim.statement in response.text
    assert claim.quotation.exact in response.text
    assert "edited the claim" in response.text
    assert "Together AI, by its press office" in response.text


def test_editing_in_place_returns_the_fragment_and_bumps_the_version(editor_client, claim):
    response = edit(editor_client, claim, claim.version, statement="It reached 1,111 TPS.")

    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section id="claim-fields"')
    claim.refresh_from_db()
    assert (claim.statement, claim.version) == ("It reached 1,111 TPS.", 2)


def test_a_save_also_redraws_the_header_history_and_reviewers_that_it_changed(editor_client, claim):
    response = edit(editor_client, claim, claim.version, statement="It reached 2,000 TPS.")

    parts = lxml.html.fragments_fromstring(response.text)
    header, history, reviewers = (part for part in parts if part.get("hx-swap-oob") == "true")
    assert reviewers.get("id") == "reviewer-list"
    assert header.get("id") == "claim-header"
    assert "version 2" in header.text_content()
    assert "2,000" in header.text_content()  # the figure check reads the new statement
    assert history.get("id") == "history"
    assert "edited the claim" in history.text_content()


def test_a_save_without_javascript_shows_the_page_again_once(editor_client, claim):
    data = opened(claim, statement="Saved from a browser without JavaScript.")

    response = editor_client.post(url("claim_edit", claim), data, follow=True)

    assert response.redirect_chain == [(claim.get_absolute_url(), 302)]
    assert response.text.count('id="claim-header"') == 1
    assert response.text.count('id="history"') == 1
    assert "Claim saved." in response.text


@pytest.mark.parametrize(
    "change, said",
    [
        (
            lambda c, claim: c.post(url("comment_add", claim), {"body": "A typed note."}),
            "Comment posted.",
        ),
        (
            lambda c, claim: c.post(
                url("evidence_add", claim),
                {"quotation": QuotationFactory(exact="467 seconds").pk, "stance": "supports"},
            ),
            "Evidence attached.",
        ),
    ],
    ids=["comment", "evidence"],
)
def test_a_change_without_javascript_says_it_was_made(editor_client, claim, change, said):
    response = change(editor_client, claim)

    assert response.status_code == 302
    assert said in editor_client.get(response["Location"]).text


def test_a_change_redrawn_in_place_leaves_no_message_for_the_next_page(editor_client, claim):
    editor_client.post(url("comment_add", claim), {"body": "A typed note."}, headers=HTMX)

    assert "Comment posted." not in editor_client.get(claim.get_absolute_url()).text


def approved(claim, editor):
    ready_for_review(claim, editor)
    reviewer = claim.assignments.get().reviewer
    claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=claim.assignments.get(),
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(Claim.objects.get(pk=claim.pk)),
    )
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    return claim


@pytest.mark.parametrize("change", ["edit", "remove evidence"])
def test_a_change_that_sends_an_approved_claim_back_to_review_reloads_the_page_saying_so(
    editor_client, editor, claim, change
):
    claim = approved(claim, editor)

    if change == "edit":
        response = edit(editor_client, claim, claim.version, statement="Reworded.")
    else:
        evidence = claim.evidence.get()
        response = editor_client.post(url("evidence_remove", claim, evidence.pk), headers=HTMX)

    assert response.status_code == 200
    assert response["HX-Redirect"] == claim.get_absolute_url()
    page = editor_client.get(claim.get_absolute_url())
    assert "The claim is now in review: every assigned reviewer must approve" in page.text
    assert "Claim saved." not in page.text  # one message for one save
    assert 'name="action" value="publish"' not in page.text
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW


def test_two_editors_saving_the_same_claim_get_a_conflict_and_both_texts_survive(
    client, editor, claim
):
    other = EditorFactory()
    opened_at = claim.version
    client.force_login(other)
    edit(client, claim, opened_at, statement="Their wording, saved first.")

    client.force_login(editor)
    response = edit(client, claim, opened_at, statement="My wording, typed meanwhile.")

    assert response.status_code == 409
    assert f"{other.get_full_name()} saved this claim at" in " ".join(response.text.split())
    assert "Their wording, saved first." in response.text
    assert "My wording, typed meanwhile." in response.text
    assert Claim.objects.get(pk=claim.pk).statement == "Their wording, saved first."
    # Saving again from the conflict view is a deliberate overwrite at the new version.
    assert 'name="version" value="2"' in response.text
    edit(client, claim, 2, statement="My wording, typed meanwhile.")
    assert Claim.objects.get(pk=claim.pk).statement == "My wording, typed meanwhile."


def test_an_edit_conflict_names_who_saved_the_claim_meanwhile_and_when(client, editor, claim):
    other = EditorFactory(first_name="Dana", last_name="Editor")
    opened_at = claim.version
    client.force_login(other)
    edit(client, claim, opened_at, statement="Their wording, saved first.")
    saved = AuditEvent.objects.filter(action="claim.update", target_id=str(claim.pk)).get()

    client.force_login(editor)
    response = edit(client, claim, opened_at, statement="My wording, typed meanwhile.")

    assert response.status_code == 409
    heading = lxml.html.fragment_fromstring(response.text, create_parent="div").find(
        ".//div[@class='conflict']/h3"
    )
    at = timezone.localtime(saved.created_at).strftime("%H:%M")
    assert " ".join(heading.text_content().split()) == (
        f"Dana Editor saved this claim at {at}, after you opened it"
    )


def test_an_edit_conflict_with_ones_own_save_in_another_tab_says_so(editor_client, claim):
    opened_at = claim.version
    edit(editor_client, claim, opened_at, statement="Saved from the other tab.")

    response = edit(editor_client, claim, opened_at, statement="Typed in this tab.")

    assert response.status_code == 409
    assert "You saved this claim at" in response.text
    assert "(in another window or tab)" in response.text


def test_an_action_refused_because_another_tab_moved_the_claim_redraws_its_header(
    editor_client, editor, claim
):
    ready_for_review(claim, editor)
    # Another tab sent it to review; this one still shows the draft and its Submit button.
    claim_submit_for_review(claim=claim, editor=editor)

    response = editor_client.post(
        url("claim_transition", claim), {"action": "submit"}, headers=HTMX
    )

    assert response.status_code == 409
    assert (
        "“Submit for review” is not possible now: the claim is in review. It can be done to "
        "a claim that is changes requested or draft." in response.text
    )
    html = lxml.html.fragment_fromstring(response.text, create_parent="div")
    header = html.get_element_by_id("claim-header")
    assert header.get("hx-swap-oob") == "true"
    assert header.find_class("badge")[0].text_content() == "In review"
    assert html.get_element_by_id("history").get("hx-swap-oob") == "true"


def test_an_edit_conflict_redraws_the_header_with_the_version_saved_meanwhile(
    client, editor, claim
):
    client.force_login(EditorFactory())
    edit(client, claim, claim.version, statement="Their wording, saved first.")

    client.force_login(editor)
    response = edit(client, claim, claim.version, statement="My wording, typed meanwhile.")

    assert response.status_code == 409
    html = lxml.html.fragment_fromstring(response.text, create_parent="div")
    assert "version 2" in html.get_element_by_id("claim-header").text_content()


def test_after_a_conflict_the_fields_this_editor_left_alone_take_the_other_editors_text(
    client, editor, claim
):
    other = EditorFactory()
    client.force_login(other)
    edit(client, claim, claim.version, statement="Their wording, saved first.")

    client.force_login(editor)
    response = edit(client, claim, claim.version, rationale="My rationale, typed meanwhile.")

    assert response.status_code == 409
    assert "You had not changed statement" in response.text
    resent = form_in(response.text, "claim-edit-form")
    assert resent["statement"] == "Their wording, saved first."
    assert resent["rationale"] == "My rationale, typed meanwhile."
    client.post(url("claim_edit", claim), resent, headers=HTMX)
    saved = Claim.objects.get(pk=claim.pk)
    assert (saved.statement, saved.rationale, saved.version) == (
        "Their wording, saved first.",
        "My rationale, typed meanwhile.",
        3,
    )


def test_a_blank_statement_is_refused_next_to_the_field_and_nothing_changes(editor_client, claim):
    response = edit(editor_client, claim, claim.version, statement="   ")

    assert response.status_code == 422
    assert "field--error" in response.text
    assert Claim.objects.get(pk=claim.pk).version == 1


def test_the_evidence_picker_finds_quotations_of_the_cases_other_sources(editor_client, claim):
    QuotationFactory(exact="9.0 seconds after")

    response = editor_client.get(url("quotation_search", claim), {"q": "9.0 sec"}, headers=HTMX)

    assert "9.0 seconds after" in response.text
    assert claim.quotation.exact not in response.text


def picked_titles(response):
    """The source titles of the evidence picker's results, in order."""
    return [
        label.text_content().split("— ")[1].split(", version")[0]
        for label in lxml.html.fromstring(response.text).find_class("quotation-option")
    ]


def test_the_evidence_picker_lists_the_sources_the_case_already_cites_first(editor_client, claim):
    text = "The compiler took 467 seconds."
    QuotationFactory(
        version__source__title="A source no claim cites", version__text=text, exact=text
    )
    cited = QuotationFactory(
        version__source__title="Zulu: cited by another claim", version__text=text, exact=text
    )
    EvidenceFactory(claim=ClaimFactory(case=claim.case, quotation=claim.quotation), quotation=cited)
    elsewhere = QuotationFactory(
        version__source__title="B: cited in another case", version__text=text, exact=text
    )
    EvidenceFactory(quotation=elsewhere)

    response = editor_client.get(url("quotation_search", claim), {"q": "467 sec"}, headers=HTMX)

    assert picked_titles(response) == [
        "Zulu: cited by another claim",
        "A source no claim cites",
        "B: cited in another case",
    ]
    assert response.text.count("source cited in this case") == 1


def test_the_evidence_picker_lists_a_carried_on_quotation_once_in_its_newer_version(
    editor_client, claim
):
    first = QuotationFactory(version__text="Intro. It took 467 seconds.", exact="467 seconds")
    source_version_create_from_text(
        source=first.version.source, text="New intro. It took 467 seconds.", actor=None
    )
    gone = QuotationFactory(version__text="It took 467 seconds, once.", exact="467 seconds")
    source_version_create_from_text(source=gone.version.source, text="Rewritten.", actor=None)

    response = editor_client.get(url("quotation_search", claim), {"q": "467 sec"}, headers=HTMX)

    assert response.text.count('name="quotation"') == 1
    assert "version 2" in response.text


def test_the_evidence_picker_leaves_out_a_changed_passage_until_someone_confirms_it(
    editor_client, claim
):
    first = QuotationFactory(version__text="It took 467 seconds in all.", exact="467 seconds")
    source_version_create_from_text(
        source=first.version.source, text="It took 468 seconds in all.", actor=None
    )
    changed = Reanchoring.objects.get(quotation=first)
    assert changed.status == AnchoringStatus.CHANGED

    def picked():
        response = editor_client.get(url("quotation_search", claim), {"q": "seconds"}, headers=HTMX)
        return response.text.count('name="quotation"')

    assert picked() == 0
    reanchoring_confirm(reanchoring=changed, actor=EditorFactory())
    assert picked() == 1


@pytest.mark.parametrize(("matching", "more"), [(20, False), (21, True)])
def test_the_evidence_picker_says_when_more_quotations_match_than_it_lists(
    editor_client, claim, matching, more
):
    for _ in range(matching):
        QuotationFactory(version__text="It took 467 seconds.", exact="467 seconds")

    response = editor_client.get(url("quotation_search", claim), {"q": "467 sec"}, headers=HTMX)

    assert response.text.count('name="quotation"') == 20
    assert ("there are more, so add words to narrow them" in response.text) is more


@pytest.mark.parametrize(
    ("typed", "quoted"),
    [("ärzte", "ÄRZTE schätzen"), ("ÉTUDE", "une étude"), ("ΣΤΑΤΙΣΤΙΚΉ", "η στατιστική")],
)
def test_the_evidence_picker_ignores_case_in_any_alphabet(editor_client, claim, typed, quoted):
    version = SourceVersionFactory(text=f"Zitat: {quoted}, 2025.")
    QuotationFactory(version=version, exact=quoted)

    response = editor_client.get(url("quotation_search", claim), {"q": typed}, headers=HTMX)

    assert quoted in response.text


def test_the_evidence_picker_finds_a_quotation_across_a_line_or_page_break(editor_client, claim):
    version = SourceVersionFactory(text="Rue Lepic would\nreopen. Page two says (1+1).")
    QuotationFactory(version=version, exact="Rue Lepic would\nreopen. Page two says (1+1)")

    for typed in ("Rue Lepic would", "would reopen.", "  says   (1+1) ", "lepic WOULD\treopen"):
        response = editor_client.get(url("quotation_search", claim), {"q": typed}, headers=HTMX)
        assert "Rue Lepic would" in response.text, typed
    unrelated = editor_client.get(
        url("quotation_search", claim), {"q": "would Lepic"}, headers=HTMX
    )
    assert "Rue Lepic would" not in unrelated.text


#: Spaces a pasted PDF or HTML page puts between words: no-break (U+00A0, U+2007,
#: U+202F), thin (U+2009), ideographic (U+3000).
UNICODE_SPACES = ["\u00a0", "\u2007", "\u202f", "\u2009", "\u3000"]


@pytest.mark.parametrize("space", UNICODE_SPACES)
def test_the_evidence_picker_finds_words_a_unicode_space_separates_on_either_database(
    editor_client, claim, space
):
    version = SourceVersionFactory(text=f"Rue Lepic{space}would reopen.")
    QuotationFactory(version=version, exact=f"Rue Lepic{space}would reopen")

    response = editor_client.get(url("quotation_search", claim), {"q": "lepic would"}, headers=HTMX)

    assert f"Rue Lepic{space}would reopen" in response.text


def test_the_words_pattern_names_every_space_itself_instead_of_the_databases_backslash_s():
    # PostgreSQL's \s is its C library's, which leaves out the no-break spaces.
    pattern = _words_apart("Lepic would")
    every_space = [chr(point) for point in range(0x110000) if chr(point).isspace()]

    assert "\\" not in pattern.replace(re.escape("Lepic"), "").replace(re.escape("would"), "")
    assert all(re.fullmatch(pattern, f"Lepic{space}would") for space in every_space)
    # A zero-width space is not white space: it joins the two words into one.
    assert not re.fullmatch(pattern, "Lepic\u200bwould")


def pg_trgm_available():
    """Whether this PostgreSQL server has pg_trgm to install (sources.0008 leaves it out if not)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm'")
        return cursor.fetchone() is not None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's trigram index")
def test_the_evidence_pickers_words_are_looked_up_in_the_trigram_index_on_postgresql(db):
    if not pg_trgm_available():
        pytest.skip("this PostgreSQL server has no pg_trgm")
    text = "The compiler took 467 seconds"
    QuotationFactory(version__text=text, exact=text)
    found = containing_words(Quotation.objects.all(), "exact", "COMPILER took")
    # A table of a few rows is read whole whatever the indexes. Without whole
    # scans (of the table, or of an index in its order), only an index that
    # answers the words themselves can be used; a plan without one scans anyway.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        sql, params = found.query.sql_with_params()
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "sources_quotation_exact_trigram" in plan
    assert [quotation.exact for quotation in found] == [text]


def test_the_evidence_picker_asks_for_words_until_some_are_typed(editor_client, claim):
    QuotationFactory(exact="9.0 seconds after")
    hint = "Type a few words above to list the matching quotations."

    assert hint in editor_client.get(claim.get_absolute_url()).text
    cleared = editor_client.get(url("quotation_search", claim), {"q": ""}, headers=HTMX)
    assert hint in cleared.text
    assert "9.0 seconds after" not in cleared.text
    found = editor_client.get(url("quotation_search", claim), {"q": "9.0 sec"}, headers=HTMX)
    assert hint not in found.text


def test_attaching_and_removing_evidence(editor_client, claim):
    quotation = QuotationFactory(exact="467 seconds")

    response = editor_client.post(
        url("evidence_add", claim),
        {"quotation": quotation.pk, "stance": "contradicts", "note": "Sum is 460."},
        headers=HTMX,
    )

    assert response.status_code == 200
    evidence = claim.evidence.get()
    assert (evidence.quotation, evidence.stance) == (quotation, "contradicts")
    editor_client.post(url("evidence_remove", claim, evidence.pk), headers=HTMX)
    assert not claim.evidence.exists()


def test_attaching_evidence_without_picking_a_quotation_says_so(editor_client, claim):
    response = editor_client.post(
        url("evidence_add", claim), {"stance": "supports", "note": "kept note"}, headers=HTMX
    )

    assert response.status_code == 422
    assert "Pick a quotation" in response.text


def test_a_refused_attach_keeps_the_search_and_the_picked_quotation(editor_client, claim):
    version = SourceVersionFactory(text="It took 467 seconds in all, or 467 seconds each.")
    quotation = QuotationFactory(version=version, exact="467 seconds in all")
    other = QuotationFactory(version=version, exact="467 seconds each")
    EvidenceFactory(claim=claim, quotation=quotation)

    response = editor_client.post(
        url("evidence_add", claim),
        {"q": "467 sec", "quotation": quotation.pk, "stance": "supports", "note": "kept note"},
        headers=HTMX,
    )

    assert response.status_code == 422
    assert "already evidence for the claim" in response.text
    html = lxml.html.fragment_fromstring(response.text, create_parent="div")
    assert html.get_element_by_id("quotation-search").value == "467 sec"
    picked = {box.get("value"): box.checked for box in html.xpath("//input[@name='quotation']")}
    assert picked == {str(quotation.pk): True, str(other.pk): False}
    assert "kept note" in response.text
    assert claim.evidence.count() == 1


def test_assigning_a_reviewer_mails_them(editor_client, claim, mailoutbox):
    reviewer = ReviewerFactory()

    editor_client.post(
        url("reviewer_assign", claim),
        {"reviewer": reviewer.pk, "due_on": timezone.localdate().isoformat()},
        headers=HTMX,
    )

    assert claim.assignments.get().reviewer == reviewer
    assert mailoutbox[0].to == [reviewer.email]


def test_assigning_a_reviewer_to_an_approved_claim_reloads_the_page_with_its_new_status(
    editor_client, editor, claim
):
    reviewer = ready_for_review(claim, editor)
    claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=claim.assignments.get(),
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(Claim.objects.get(pk=claim.pk)),
    )
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED

    response = editor_client.post(
        url("reviewer_assign", claim), {"reviewer": ReviewerFactory().pk}, headers=HTMX
    )

    assert response["HX-Redirect"] == claim.get_absolute_url()
    page = editor_client.get(claim.get_absolute_url())
    assert "The claim is now in review: every assigned reviewer must approve" in page.text
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW


def test_assigning_from_a_stale_page_a_reviewer_assigned_meanwhile_says_so(
    editor_client, editor, claim, mailoutbox
):
    reviewer = ReviewerFactory(username="rosa")
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)

    response = editor_client.post(
        url("reviewer_assign", claim), {"reviewer": reviewer.pk}, headers=HTMX
    )

    assert response.status_code == 422
    assert "rosa is already assigned to review this claim." in response.text
    assert "not one of the available choices" not in response.text
    assert claim.assignments.count() == 1
    assert len(mailoutbox) == 1


def test_a_due_date_already_past_is_refused_next_to_the_field(editor_client, claim, mailoutbox):
    reviewer = ReviewerFactory()
    yesterday = timezone.localdate() - datetime.timedelta(days=1)

    response = editor_client.post(
        url("reviewer_assign", claim),
        {"reviewer": reviewer.pk, "due_on": yesterday.isoformat()},
        headers=HTMX,
    )

    assert response.status_code == 422
    assert f"The due date {yesterday:%-d %B %Y} has passed" in response.text
    html = lxml.html.fragment_fromstring(response.text, create_parent="div")
    assert html.get_element_by_id("id_due_on").value == yesterday.isoformat()
    assert not claim.assignments.exists()
    assert mailoutbox == []


def published_meanwhile(claim):
    """The claim as another editor's Publish left it, after this editor opened its page."""
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at=timezone.now()
    )


def test_an_edit_saved_after_the_claim_was_published_keeps_the_text_and_says_why(
    editor_client, claim
):
    published_meanwhile(claim)

    response = edit(editor_client, claim, claim.version, statement="My careful rewording.")

    assert response.status_code == 409
    assert "A published claim is read-only" in response.text
    assert form_in(response.text, "claim-edit-form")["statement"] == "My careful rewording."
    assert Claim.objects.get(pk=claim.pk).statement == claim.statement


def test_evidence_attached_after_the_claim_was_published_keeps_the_note_and_says_why(
    editor_client, claim
):
    quotation = QuotationFactory(exact="467 seconds")
    published_meanwhile(claim)

    response = editor_client.post(
        url("evidence_add", claim),
        {"quotation": quotation.pk, "stance": "contradicts", "note": "Sum is 460."},
        headers=HTMX,
    )

    assert response.status_code == 409
    assert "A published claim is read-only" in response.text
    assert "Sum is 460." in response.text
    assert not claim.evidence.exists()


def test_evidence_removed_after_the_claim_was_published_stays_and_the_fragment_says_why(
    editor_client, claim
):
    evidence = EvidenceFactory(claim=claim, quotation=QuotationFactory())
    published_meanwhile(claim)

    response = editor_client.post(url("evidence_remove", claim, evidence.pk), headers=HTMX)

    assert response.status_code == 409
    assert 'id="evidence"' in response.text
    assert "A published claim is read-only" in response.text
    assert claim.evidence.get() == evidence


def test_a_reviewer_assigned_after_the_claim_was_published_is_refused_with_the_form_kept(
    editor_client, claim, mailoutbox
):
    reviewer = ReviewerFactory()
    due = timezone.localdate() + datetime.timedelta(days=3)
    published_meanwhile(claim)

    response = editor_client.post(
        url("reviewer_assign", claim), {"reviewer": reviewer.pk, "due_on": due}, headers=HTMX
    )

    assert response.status_code == 409
    assert "A published claim is read-only" in response.text
    html = lxml.html.fragment_fromstring(response.text, create_parent="div")
    assert html.get_element_by_id("id_due_on").value == due.isoformat()
    assert not claim.assignments.exists()
    assert mailoutbox == []


def test_a_statement_over_the_limit_is_refused_and_kept(editor_client, claim):
    too_long = "A statement that goes on. " * 40

    response = edit(editor_client, claim, claim.version, statement=too_long)

    assert response.status_code == 422
    assert "at most 1000 characters" in response.text
    assert form_in(response.text, "claim-edit-form")["statement"] == too_long
    assert Claim.objects.get(pk=claim.pk).statement == claim.statement


def test_an_illegal_action_is_refused_with_what_is_missing(editor_client, claim):
    response = editor_client.post(
        url("claim_transition", claim), {"action": "submit"}, headers=HTMX
    )

    assert response.status_code == 409
    assert "needs a verdict" in response.text
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT


def test_an_action_pressed_with_unsaved_edits_in_the_form_is_refused_and_keeps_them(
    editor_client, editor, claim
):
    ready_for_review(claim, editor)
    typed = opened(claim, statement="A wording not saved yet.", action="submit")

    response = editor_client.post(url("claim_transition", claim), typed, headers=HTMX)

    assert response.status_code == 409
    assert "holds changes that are not saved" in response.text
    assert form_in(response.text, "claim-edit-form")["statement"] == "A wording not saved yet."
    unchanged = Claim.objects.get(pk=claim.pk)
    assert (unchanged.status, unchanged.version) == (ClaimStatus.DRAFT, claim.version)
    assert unchanged.statement == claim.statement


def test_an_action_pressed_with_the_form_as_opened_goes_ahead(editor_client, editor, claim):
    ready_for_review(claim, editor)

    response = editor_client.post(
        url("claim_transition", claim), opened(claim, action="submit"), headers=HTMX
    )

    assert response.status_code == 200
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW


def test_a_reviewer_cannot_edit_or_publish(client, reviewer, claim):
    # Even the claim's own reviewer (any other reviewer does not reach it: 404).
    ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
    client.force_login(reviewer)

    assert edit(client, claim, claim.version, statement="x").status_code == 403
    response = client.post(url("claim_transition", claim), {"action": "publish"})
    assert response.status_code in {403, 409}
    assert Claim.objects.get(pk=claim.pk).statement != "x"


def test_an_action_refused_for_the_role_is_a_403_sentence_the_page_shows_above_itself(
    client, reviewer, claim
):
    # htmx swaps no 403, so a fragment would never be seen: the answer is the reason.
    ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
    client.force_login(reviewer)

    response = client.post(url("claim_transition", claim), {"action": "withdraw"}, headers=HTMX)

    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/plain")
    assert response.text == "Only an editor can withdraw."
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT


def test_an_action_refused_for_the_role_without_htmx_shows_the_page_with_the_reason(
    client, reviewer, claim
):
    ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
    client.force_login(reviewer)

    response = client.post(url("claim_transition", claim), {"action": "withdraw"})

    assert response.status_code == 403
    assert "Only an editor can withdraw." in response.text
    assert "<html" in response.text
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT


def ready_for_review(claim, editor):
    Claim.objects.filter(pk=claim.pk).update(verdict=RatingFactory())
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    reviewer = ReviewerFactory()
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim.refresh_from_db()
    return reviewer


def in_review_with_two_reviewers(claim, editor):
    """``claim`` sent to two reviewers: ``(first, second, digest of what they read)``."""
    first = ready_for_review(claim, editor)
    second = ReviewerFactory()
    reviewer_assign(claim=claim, reviewer=second, editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    return first, second, claim_digest(Claim.objects.get(pk=claim.pk))


def test_with_every_reviewer_assigned_the_page_says_so_instead_of_an_empty_choice(
    editor_client, editor, claim
):
    ReviewerFactory(username="last-one")
    page = editor_client.get(claim.get_absolute_url()).text
    assert '<option value="" selected>' in page
    assert "No reviewer is left to assign" not in page

    for reviewer in get_user_model().objects.filter(groups__name="Reviewer"):
        reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    page = editor_client.get(claim.get_absolute_url()).text

    assert "No reviewer is left to assign" in page
    assert reverse("claims:reviewer_assign", args=[claim.case.slug, claim.pk]) not in page


def ask_for_changes(claim, reviewer, digest):
    """``reviewer`` asks for changes to ``claim`` as read at ``digest``, citing a table."""
    review_decide(
        assignment=claim.assignments.get(reviewer=reviewer),
        reviewer=reviewer,
        decision=Decision.CHANGES_REQUESTED,
        comment="Cite the table.",
        digest_seen=digest,
    )


def test_the_history_tells_a_reviewers_request_from_the_claims_return_by_full_name(
    editor_client, editor, claim
):
    first, _second, digest = in_review_with_two_reviewers(claim, editor)
    first.first_name, first.last_name = "Rita", "Levi"
    first.save()
    ask_for_changes(claim, first, digest)

    history = lxml.html.fromstring(editor_client.get(claim.get_absolute_url()).text)
    lines = [
        (item.find("strong").text, item.find("strong").tail.strip())
        for item in history.get_element_by_id("history").iter("li")
    ]

    assert lines[:2] == [
        ("Rita Levi", "asked for changes"),
        ("Rita Levi", "sent it back for changes"),
    ]


def test_an_assigned_reviewer_decides_on_the_review_page_not_with_the_claim_pages_buttons(
    client, editor, claim
):
    reviewer = ready_for_review(claim, editor)
    claim_submit_for_review(claim=claim, editor=editor)
    assignment = claim.assignments.get()
    client.force_login(reviewer)

    page = client.get(claim.get_absolute_url())
    response = client.post(
        url("claim_transition", claim), {"action": "request_changes"}, headers=HTMX
    )

    assert 'name="action" value="request_changes"' not in page.text
    assert 'name="action" value="approve"' not in page.text
    assert reverse("claims:review", args=[assignment.pk]) in page.text
    assert response.status_code == 409
    assert "review page, where the decision is recorded" in response.text
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW
    assert claim.assignments.get().decision == Decision.PENDING


def test_an_edit_that_voids_one_of_two_approvals_redraws_the_reviewers_decisions(
    editor_client, editor, claim
):
    approving = ready_for_review(claim, editor)
    reviewer_assign(claim=claim, reviewer=ReviewerFactory(), editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=claim.assignments.get(reviewer=approving),
        reviewer=approving,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )
    claim.refresh_from_db()

    response = edit(editor_client, claim, claim.version, rationale="Reworded after approval.")

    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.IN_REVIEW  # the page stays
    reviewers = lxml.html.fragment_fromstring(response.text, create_parent="div").get_element_by_id(
        "reviewer-list"
    )
    assert reviewers.get("hx-swap-oob") == "true"
    assert "Approved" not in reviewers.text_content()
    assert reviewers.text_content().count("Pending") == 2


def test_a_reviewer_who_decided_is_told_so_on_the_review_page(client, editor, claim):
    reviewer = ready_for_review(claim, editor)
    reviewer_assign(claim=claim, reviewer=ReviewerFactory(), editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    assignment = claim.assignments.get(reviewer=reviewer)
    client.force_login(reviewer)
    assert (
        "You approved this content"
        not in client.get(reverse("claims:review", args=[assignment.pk])).text
    )

    review_decide(
        assignment=assignment,
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(claim),
    )
    page = client.get(reverse("claims:review", args=[assignment.pk])).text

    assert "You approved this content on " in page
    assert "A new decision below replaces it." in page


def test_the_reviewers_of_a_claim_are_mailed_one_by_one(editor, claim, mailoutbox):
    first = ready_for_review(claim, editor)
    second = ReviewerFactory()
    reviewer_assign(claim=claim, reviewer=second, editor=editor)
    mailoutbox.clear()

    claim_submit_for_review(claim=claim, editor=editor)

    ready = [message.to for message in mailoutbox if "Ready for your review" in message.subject]
    assert sorted(ready) == sorted([[first.email], [second.email]])


def test_the_review_journey_through_the_pages(client, editor, claim):
    reviewer = ready_for_review(claim, editor)
    client.force_login(editor)
    client.post(url("claim_transition", claim), {"action": "submit"})
    assignment = claim.assignments.get()

    client.force_login(reviewer)
    queue = client.get(reverse("claims:my_reviews"))
    assert reverse("claims:review", args=[assignment.pk]) in queue.text
    page = client.get(reverse("claims:review", args=[assignment.pk]))
    assert claim_digest(claim) in page.text
    client.post(
        reverse("claims:review", args=[assignment.pk]),
        {"decision": "approved", "comment": "", "digest": claim_digest(claim)},
    )

    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.APPROVED
    # Another editor than its author publishes it (the separation of duties).
    client.force_login(EditorFactory())
    client.post(url("claim_transition", claim), {"action": "publish"})
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.PUBLISHED


def test_a_request_for_changes_without_a_comment_keeps_the_form(client, editor, claim):
    reviewer = ready_for_review(claim, editor)
    client.force_login(editor)
    client.post(url("claim_transition", claim), {"action": "submit"})
    assignment = claim.assignments.get()
    client.force_login(reviewer)

    response = client.post(
        reverse("claims:review", args=[assignment.pk]),
        {"decision": "changes_requested", "comment": "", "digest": claim_digest(claim)},
    )

    assert response.status_code == 422
    assert "Say what needs to change" in response.text
    assert claim.assignments.get().decision == Decision.PENDING


def test_a_stale_review_page_cannot_sign_off_and_keeps_the_comment(client, editor, claim):
    reviewer = ready_for_review(claim, editor)
    client.force_login(editor)
    client.post(url("claim_transition", claim), {"action": "submit"})
    assignment = claim.assignments.get()

    client.force_login(reviewer)
    response = client.post(
        reverse("claims:review", args=[assignment.pk]),
        {"decision": "approved", "comment": "Looks right to me.", "digest": "0" * 64},
    )

    assert response.status_code == 422
    assert "changed while you were reading" in response.text
    assert "Looks right to me." in response.text
    assert claim.assignments.get().decision == Decision.PENDING


def test_a_decision_after_another_reviewer_sent_the_claim_back_keeps_the_comment_and_says_why(
    client, editor, claim
):
    first, second, digest = in_review_with_two_reviewers(claim, editor)
    ask_for_changes(claim, first, digest)

    client.force_login(second)
    response = client.post(
        reverse("claims:review", args=[claim.assignments.get(reviewer=second).pk]),
        {"decision": "approved", "comment": "Looks right to me.", "digest": digest},
    )

    assert response.status_code == 422
    assert "Another reviewer has requested changes" in response.text
    assert "your decision was not recorded" in response.text
    # The comment is there to copy, and no form offers the same refused decision again.
    assert 'id="unposted-comment" readonly rows="4">Looks right to me.</textarea>' in response.text
    assert "Record decision" not in response.text
    assert f'href="{claim.get_absolute_url()}#comments"' in response.text
    assert claim.assignments.get(reviewer=second).decision == Decision.PENDING
    assert not claim.comments.filter(body="Looks right to me.").exists()


def test_a_decision_on_a_claim_sent_back_between_the_page_and_the_post_shows_it_closed(
    client, editor, claim, monkeypatch
):
    # The view read the claim in review; another reviewer's request for changes
    # lands before the decision is recorded, and the service refuses it.
    first, second, digest = in_review_with_two_reviewers(claim, editor)

    def decide_after_the_other_reviewer(**kwargs):
        review_decide(
            assignment=claim.assignments.get(reviewer=first),
            reviewer=first,
            decision=Decision.CHANGES_REQUESTED,
            comment="Cite the table.",
            digest_seen=digest,
        )
        return review_decide(**kwargs)

    monkeypatch.setattr(desk_views, "review_decide", decide_after_the_other_reviewer)
    client.force_login(second)
    response = client.post(
        reverse("claims:review", args=[claim.assignments.get(reviewer=second).pk]),
        {"decision": "approved", "comment": "Looks right to me.", "digest": digest},
    )

    assert response.status_code == 422
    assert "Another reviewer has requested changes" in response.text
    assert "Record decision" not in response.text
    assert 'id="unposted-comment" readonly rows="4">Looks right to me.</textarea>' in response.text


def test_a_refused_decision_form_on_content_changed_meanwhile_says_the_claim_changed(
    client, editor, claim
):
    # The decision is missing, so the form is refused before any digest is compared:
    # the page must still say that what it now shows is not what was read.
    reviewer = ready_for_review(claim, editor)
    claim_submit_for_review(claim=claim, editor=editor)
    seen = claim_digest(Claim.objects.get(pk=claim.pk))
    claim.refresh_from_db()
    claim_update(
        claim=claim,
        editor=editor,
        expected_version=claim.version,
        statement="It now says the opposite.",
    )

    client.force_login(reviewer)
    response = client.post(
        reverse("claims:review", args=[claim.assignments.get().pk]),
        {"comment": "Fine by me.", "digest": seen},
    )

    assert response.status_code == 422
    assert "changed while you were reading" in response.text
    assert "It now says the opposite." in response.text
    assert "Fine by me." in response.text
    assert claim.assignments.get().decision == Decision.PENDING


def test_the_review_page_leads_to_the_claims_discussion_which_the_reviewer_can_read(
    client, editor, claim
):
    reviewer = ready_for_review(claim, editor)
    claim_submit_for_review(claim=claim, editor=editor)
    client.force_login(reviewer)

    review = client.get(reverse("claims:review", args=[claim.assignments.get().pk]))
    discussion = client.get(claim.get_absolute_url())

    assert f'href="{claim.get_absolute_url()}#comments"' in review.text
    assert discussion.status_code == 200
    assert 'id="comments"' in discussion.text


def test_another_reviewers_assignment_is_not_found(client, claim):
    assignment = ReviewAssignmentFactory(claim=claim)
    client.force_login(ReviewerFactory())

    assert client.get(reverse("claims:review", args=[assignment.pk])).status_code == 404


def test_my_reviews_puts_overdue_first_and_counts_open_ones_in_the_navigation(
    client, reviewer, editor
):
    today = datetime.date.today()
    later = ClaimFactory(author=editor, statement="Due later")
    overdue = ClaimFactory(author=editor, statement="Overdue one")
    for claim, due in (
        (later, today + datetime.timedelta(days=5)),
        (overdue, today - datetime.timedelta(days=2)),
    ):
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer, due_on=due)
        Claim.objects.filter(pk=claim.pk).update(status=ClaimStatus.IN_REVIEW)
    client.force_login(reviewer)

    response = client.get(reverse("claims:my_reviews"))

    assert response.text.index("Overdue one") < response.text.index("Due later")
    assert "Overdue:" in response.text
    assert '<span class="visually-hidden">, 2 waiting</span>' in response.text


def test_my_reviews_never_calls_a_claim_not_in_review_overdue_and_says_where_it_is(
    client, reviewer, editor
):
    long_ago = datetime.date.today() - datetime.timedelta(days=30)
    draft = ClaimFactory(author=editor, statement="A draft, due long ago")
    ready = ClaimFactory(author=editor, statement="In review, due later")
    withdrawn = ClaimFactory(author=editor, statement="Withdrawn, due long ago")
    ReviewAssignmentFactory(claim=draft, reviewer=reviewer, due_on=long_ago)
    ReviewAssignmentFactory(
        claim=ready, reviewer=reviewer, due_on=datetime.date.today() + datetime.timedelta(days=3)
    )
    ReviewAssignmentFactory(claim=withdrawn, reviewer=reviewer, due_on=long_ago)
    Claim.objects.filter(pk=ready.pk).update(status=ClaimStatus.IN_REVIEW)
    Claim.objects.filter(pk=withdrawn.pk).update(status=ClaimStatus.WITHDRAWN)
    client.force_login(reviewer)

    page = client.get(reverse("claims:my_reviews") + "?show=all").text

    assert "Overdue" not in page
    draft_row = page[page.index("A draft, due long ago") :]
    assert "Not in review yet (draft)" in draft_row[: draft_row.index("</tr>")]


def test_the_menu_counts_reviews_only_for_a_user_who_can_decide_them(client, reviewer, editor):
    # An editor once made a reviewer, since given the editor's role alone.
    claim = ClaimFactory(author=editor)
    ReviewAssignmentFactory(claim=claim, reviewer=editor)
    Claim.objects.filter(pk=claim.pk).update(status=ClaimStatus.IN_REVIEW)
    client.force_login(editor)

    with CaptureQueriesContext(connection) as queries:
        page = client.get(reverse("claims:case_list"))

    assert open_review_count(editor) == 1
    assert "waiting</span>" not in page.text
    assert not any("decided_at" in query["sql"] for query in queries)


def test_my_reviews_lists_the_claims_awaiting_a_decision_and_every_assignment_when_asked(
    client, reviewer, editor
):
    in_review = ClaimFactory(author=editor, statement="In review, undecided")
    draft = ClaimFactory(author=editor, statement="Still a draft")
    decided = ClaimFactory(author=editor, statement="Decided already")
    for claim in (in_review, draft, decided):
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
    Claim.objects.filter(pk__in=[in_review.pk, decided.pk]).update(status=ClaimStatus.IN_REVIEW)
    decided.assignments.update(decision=Decision.CHANGES_REQUESTED, decided_at=timezone.now())
    client.force_login(reviewer)

    awaiting = client.get(reverse("claims:my_reviews"))
    every = client.get(reverse("claims:my_reviews") + "?show=all")

    assert "In review, undecided" in awaiting.text
    assert "Still a draft" not in awaiting.text
    assert "Decided already" not in awaiting.text
    assert awaiting.context["page"].paginator.count == open_review_count(reviewer) == 1
    assert '<span class="visually-hidden">, 1 waiting</span>' in awaiting.text
    assert 'href="/reviews/?show=all"' in awaiting.text
    for statement in ("In review, undecided", "Still a draft", "Decided already"):
        assert statement in every.text
    assert every.context["page"].paginator.count == 3


def test_my_reviews_pages_keep_showing_every_assignment(client, reviewer):
    for _ in range(REVIEWS_PER_PAGE + 1):
        ReviewAssignmentFactory(reviewer=reviewer)
    client.force_login(reviewer)

    first = client.get(reverse("claims:my_reviews") + "?show=all")
    second = client.get(reverse("claims:my_reviews") + "?show=all&page=2")

    assert "?show=all&amp;page=2" in first.text
    assert len(second.context["page"].object_list) == 1


def test_a_reviewer_is_mailed_when_the_claim_goes_to_review_not_only_when_assigned(
    editor, mailoutbox
):
    claim = ClaimFactory(author=editor, verdict=RatingFactory())
    EvidenceFactory(claim=claim, quotation=QuotationFactory())
    reviewer = ReviewerFactory()
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    assert "not in review yet" in mailoutbox[-1].body

    claim_submit_for_review(claim=claim, editor=editor)

    assert mailoutbox[-1].to == [reviewer.email]
    assert mailoutbox[-1].subject.startswith(
        f"[factcheck] Ready for your review: claim {claim.number} of “{claim.case.title}” — "
    )


def test_my_reviews_says_when_an_undecided_reviews_claim_was_withdrawn(client, reviewer, editor):
    withdrawn = ClaimFactory(author=editor, statement="Withdrawn meanwhile")
    ReviewAssignmentFactory(claim=withdrawn, reviewer=reviewer)
    Claim.objects.filter(pk=withdrawn.pk).update(status=ClaimStatus.WITHDRAWN)
    client.force_login(reviewer)

    response = client.get(reverse("claims:my_reviews") + "?show=all")

    row = response.text[response.text.index("Withdrawn meanwhile") :]
    row = row[: row.index("</tr>")]
    assert "Claim withdrawn" in row
    assert "Pending" not in row


def test_a_reviewers_case_page_filters_only_what_it_can_show_them(client, reviewer, editor):
    case = case_with_claims(3)
    ReviewAssignmentFactory(claim=case.claims.first(), reviewer=reviewer)
    client.force_login(reviewer)

    response = client.get(case.get_absolute_url())

    html = lxml.html.fromstring(response.text)
    (draft,) = html.xpath("//select[@id='status-filter']/option[@value='draft']")
    assert draft.text_content() == "Draft (1)"
    assert not html.xpath("//select[@id='reviewer-filter']")
    # The case's progress above still counts every claim.
    assert "3</span> Draft" in response.text


def test_the_open_review_count_is_of_undecided_assignments_to_claims_in_review(reviewer):
    def assigned(status, **fields):
        assignment = ReviewAssignmentFactory(reviewer=reviewer, **fields)
        Claim.objects.filter(pk=assignment.claim_id).update(status=status)
        return assignment

    assigned(ClaimStatus.IN_REVIEW)
    assigned(ClaimStatus.IN_REVIEW)
    assigned(
        ClaimStatus.IN_REVIEW,
        decision=Decision.CHANGES_REQUESTED,
        decided_at=timezone.now(),
    )
    assigned(ClaimStatus.DRAFT)
    someone_elses = ReviewAssignmentFactory()
    Claim.objects.filter(pk=someone_elses.claim_id).update(status=ClaimStatus.IN_REVIEW)

    assert open_review_count(reviewer) == 2
    assert open_review_count(someone_elses.reviewer) == 1
    assert open_review_count(AnonymousUser()) == 0


def test_the_claim_page_is_titled_by_its_number_in_the_case_not_its_database_id(editor_client):
    ClaimFactory()  # of another case: the next claim's id is not 1
    claim = ClaimFactory(statement="Start-up fell from 467 s to 9.0 s.")

    response = editor_client.get(claim.get_absolute_url())

    page = lxml.html.fromstring(response.content)
    assert claim.number == 1 and claim.pk != 1
    assert page.findtext(".//title").startswith("Claim 1: Start-up fell from 467 s to 9.0 s. · ")
    assert page.findtext(".//h1") == "Claim 1"


def test_the_rationale_is_rendered_as_sanitised_markdown(editor_client, claim):
    Claim.objects.filter(pk=claim.pk).update(
        rationale="**Sum is 460.** <script>alert(1)</script> [x](javascript:alert(2))"
    )

    response = editor_client.get(claim.get_absolute_url())

    assert "<strong>Sum is 460.</strong>" in response.text
    assert "<script>alert(1)</script>" not in response.text
    assert 'href="javascript:' not in response.text


def test_the_figure_check_warns_about_figures_missing_from_the_evidence(editor_client, claim):
    Claim.objects.filter(pk=claim.pk).update(statement="Start-up fell from 467 s to 9.0 s.")
    EvidenceFactory(claim=claim, quotation=QuotationFactory(exact="467 seconds"))

    response = editor_client.get(claim.get_absolute_url())

    assert "Figure check:" in response.text
    assert ">9.0 s<" in response.text
    assert ">467 s<" not in response.text


# Query counts do not grow with the number of claims.


def count_queries(client, path):
    # Each count starts with no content type remembered (the audit history's is read
    # once per process), whichever test ran before.
    ContentType.objects.clear_cache()
    with CaptureQueriesContext(connection) as captured:
        assert client.get(path).status_code == 200
    return len(captured)


@pytest.mark.parametrize("page", ["case", "claim", "my_reviews", "my_reviews_all"])
def test_pages_run_the_same_number_of_queries_for_10_and_200_claims(client, page):
    counts = []
    for size in (10, 200):
        reviewer = ReviewerFactory()
        case, claims = make_case_with_claims(size, reviewer)
        client.force_login(reviewer)
        path = {
            "case": case.get_absolute_url(),
            "claim": claims[-1].get_absolute_url(),
            "my_reviews": reverse("claims:my_reviews"),
            "my_reviews_all": reverse("claims:my_reviews") + "?show=all",
        }[page]
        counts.append(count_queries(client, path))
    assert counts[0] == counts[1], counts


def test_attaching_evidence_does_not_make_the_open_edit_form_stale(editor_client, claim):
    opened_at = claim.version
    editor_client.post(
        url("evidence_add", claim),
        {"quotation": QuotationFactory(exact="467 seconds").pk, "stance": "supports"},
        headers=HTMX,
    )

    response = edit(editor_client, claim, opened_at, rationale="Written while attaching.")

    assert response.status_code == 200
    assert Claim.objects.get(pk=claim.pk).rationale == "Written while attaching."


def test_a_claim_of_another_case_is_not_found(editor_client, claim):
    other = CaseFactory()

    response = editor_client.get(reverse("claims:claim_detail", args=[other.slug, claim.pk]))

    assert response.status_code == 404


def test_a_published_claims_page_asks_for_its_retraction_only_when_there_is_one(
    editor_client, editor, claim
):
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at=timezone.now()
    )

    def reads_of_corrections():
        with CaptureQueriesContext(connection) as queries:
            page = editor_client.get(claim.get_absolute_url())
        assert page.status_code == 200
        # A query of its own, not the EXISTS the claim is read with.
        return sum(
            '"claims_correction"' in query["sql"] and "EXISTS" not in query["sql"]
            for query in queries
        )

    assert reads_of_corrections() == 0
    retract_published(claim)
    assert reads_of_corrections() == 1
    assert "Retracted" in editor_client.get(claim.get_absolute_url()).text


def retract_published(claim):
    PublishedCorrectionFactory(
        case=claim.case, claim=Claim.objects.get(pk=claim.pk), kind="retraction"
    )


def test_the_history_says_what_happened_in_words_not_codes(editor_client, editor, claim):
    claim_update(
        claim=claim,
        editor=editor,
        expected_version=claim.version,
        statement="A sharper statement.",
        verdict=RatingFactory(label="Misleading"),
    )

    page = editor_client.get(claim.get_absolute_url()).text
    history = page[page.index('id="history"') :]

    assert "edited the claim" in history
    assert "claim.update" not in history
    assert "→ A sharper statement.</dd>" in history
    assert "none → Misleading" in history
    assert "<dt>Statement</dt>" in history
    assert "[" not in history.split("</section>", 1)[0].split("<ol", 1)[1]


def test_the_history_writes_statuses_and_field_names_as_words(editor_client, editor, claim):
    ready_for_review(claim, editor)
    claim_submit_for_review(claim=claim, editor=editor)
    claim_transition(claim=claim, action=Action.WITHDRAW, actor=editor)

    page = editor_client.get(claim.get_absolute_url()).text
    history = page[page.index('id="history"') :]

    assert "draft → in review" in history
    assert "in review → withdrawn" in history
    assert "withdrew it" in history
    assert "in_review" not in history


def test_the_reviewer_to_assign_and_the_lead_editor_are_chosen_by_name(editor_client, claim):
    rosa = ReviewerFactory(username="rosa", first_name="Rosa", last_name="Alvarez")
    unnamed = ReviewerFactory(username="zed", first_name="", last_name="")
    ReviewerFactory(username="amy", first_name="amy", last_name="lowercase")
    ReviewerFactory(username="yan", first_name="Yan", last_name="Zhou")

    claim_page = lxml.html.fromstring(editor_client.get(claim.get_absolute_url()).text)
    new_case = lxml.html.fromstring(editor_client.get(reverse("claims:case_create")).text)

    offered = {
        option.get("value"): option.text
        for option in claim_page.xpath("//select[@id='id_reviewer']/option")
    }
    assert offered[str(rosa.pk)] == "Rosa Alvarez (rosa)"
    assert offered[str(unnamed.pk)] == "zed"
    # In the order the names read, capitals aside; a username stands for a missing name.
    ours = ["amy lowercase (amy)", "Rosa Alvarez (rosa)", "Yan Zhou (yan)", "zed"]
    assert [label for label in offered.values() if label in ours] == ours
    editor = claim.case.lead_editor or claim.author
    leads = [option.text for option in new_case.xpath("//select[@id='id_lead_editor']/option")]
    assert f"{editor.get_full_name()} ({editor.username})" in leads
