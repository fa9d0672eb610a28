"""Quoting from a selection, the quote finder, and re-anchoring on a new version."""

import lxml.html
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from claims.models import ClaimFlag
from claims.receivers import flag_raise
from claims.services import claim_flags_clear
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from factcheck.search import search
from sources.models import AnchoringStatus, Quotation, Reanchoring, SourceVersion
from sources.selectors import source_reader
from sources.services import (
    find_span,
    quotation_create,
    reanchoring_confirm,
    source_update,
    source_version_create_from_text,
    source_version_upload,
    version_reanchor,
)
from sources.views import FINDER_MATCHES_SHOWN
from tests import sample_files
from tests.factories import (
    ClaimFactory,
    ClaimFlagFactory,
    EvidenceFactory,
    PieceUnderCheckFactory,
    QuotationFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
    flagged,
    long_source_text,
)

pytestmark = pytest.mark.django_db

#: A backend that only records tasks, so that a new version waits for its text.
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
EMOJI_TEXT = "Intro 🐍 line.\nThe café\u0301 serves 2.6× more 👍🏽 tokens.\nEnd."


def quote(client, version, start, end, selected_text, **headers):
    return client.post(
        reverse("sources:quotation_create", args=[version.source_id, version.number]),
        {"start": start, "end": end, "selected_text": selected_text},
        headers=headers,
    )


def test_a_selection_becomes_a_quotation_of_the_exact_stored_text(editor_client):
    version = SourceVersionFactory(text=EMOJI_TEXT)
    start, end = find_span(EMOJI_TEXT, "serves 2.6× more 👍🏽 tokens")

    response = quote(editor_client, version, start, end, "serves 2.6× more 👍🏽 tokens")

    assert response.status_code == 302
    quotation = Quotation.objects.get()
    assert quotation.exact == "serves 2.6× more 👍🏽 tokens"
    assert EMOJI_TEXT[quotation.start : quotation.end] == quotation.exact
    assert quotation.prefix.endswith("The café\u0301 ")


@pytest.mark.parametrize("htmx", [True, False])
def test_quoting_a_version_replaced_since_the_page_was_opened_is_refused_with_the_newer_shown(
    editor_client, htmx
):
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    new_version(old.source, "The mayor said 2.7 times.")
    headers = {"HX-Request": "true"} if htmx else {}

    response = quote(editor_client, old, 0, 14, "The mayor said", **headers)

    message = "Version 1 was replaced by version 2 after this page was opened"
    if htmx:
        assert response.status_code == 409
        assert message in response.text
        assert "2.7 times" in response.text  # the page now reads the newer version
    else:
        assert response.status_code == 302
        assert message in editor_client.get(response["Location"]).text
    assert not old.quotations.exists()


def test_a_refused_finder_quotation_brings_the_finder_for_the_newer_version_with_its_words(
    editor_client,
):
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    new_version(old.source, "The mayor said 2.7 times.")

    response = editor_client.post(
        reverse("sources:quotation_create", args=[old.source_id, old.number]),
        {"q": "mayor said", "start": 4, "end": 14, "selected_text": "mayor said"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 409
    finder = response.text.split('<div id="quote-finder" hx-swap-oob="true">', 1)[1]
    assert "find it in version 2" in finder
    assert f'action="{reverse("sources:quote_finder", args=[old.source_id, 2])}"' in finder
    assert ">\nmayor said</textarea>" in finder
    assert not old.quotations.exists()


def test_a_finder_quotation_refused_while_the_newer_version_is_read_leaves_the_finder(
    editor_client,
):
    # Nothing can be searched yet: the finder keeps its words until the poll brings
    # the new version's.
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    pdf = sample_files.make_text_pdf(["The mayor said 2.7 times."])
    with override_settings(TASKS=QUEUED_ONLY):
        source_version_upload(source=old.source, content=pdf, filename="v2.pdf", actor=None)

    response = editor_client.post(
        reverse("sources:quotation_create", args=[old.source_id, old.number]),
        {"q": "mayor said", "start": 4, "end": 14, "selected_text": "mayor said"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 409
    assert 'id="quote-finder"' not in response.text


def test_quoting_the_old_version_while_a_newer_one_is_read_waits_for_it(editor_client):
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    pdf = sample_files.make_text_pdf(["The mayor said 2.7 times."])
    with override_settings(TASKS=QUEUED_ONLY):  # its text waits for the worker
        source_version_upload(source=old.source, content=pdf, filename="v2.pdf", actor=None)

    response = quote(editor_client, old, 0, 14, "The mayor said", **{"HX-Request": "true"})

    assert response.status_code == 409
    assert "Version 2 of this source is being read now, so nothing was quoted" in response.text
    assert not old.quotations.exists()


def test_a_selection_across_a_line_break_is_quoted_with_the_break(editor_client):
    version = SourceVersionFactory(text=EMOJI_TEXT)
    start, end = find_span(EMOJI_TEXT, "line.\nThe")

    quote(editor_client, version, start, end, "line.\n\nThe")

    assert Quotation.objects.get().exact == "line.\nThe"


def test_a_selection_that_does_not_match_the_stored_text_is_refused_with_the_reason(
    editor_client,
):
    version = SourceVersionFactory(text=EMOJI_TEXT)
    start, end = find_span(EMOJI_TEXT, "2.6×")

    response = quote(
        editor_client,
        version,
        start,
        end,
        "3.7×",
        **{"HX-Request": "true", "HX-Target": "version-panel"},
    )

    assert response.status_code == 422
    assert "does not match the stored text" in response.text
    assert not Quotation.objects.exists()


def test_a_selection_outside_the_text_is_refused(editor_client):
    version = SourceVersionFactory(text=EMOJI_TEXT)

    response = quote(editor_client, version, 0, 10_000, "anything", follow=False)

    assert response.status_code == 302
    assert not Quotation.objects.exists()
    page = editor_client.get(version.source.get_absolute_url())
    assert "outside the text" in page.text


def test_the_quote_finder_lists_every_exact_occurrence(editor_client):
    text = "2.6 here. Then 2.6 there. And 3.7 elsewhere."
    version = SourceVersionFactory(text=text)

    response = editor_client.get(
        reverse("sources:quote_finder", args=[version.source_id, version.number]),
        {"q": "2.6"},
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 200
    assert "Found 2 exact occurrences" in response.text
    assert response.text.count("Quote this occurrence") == 2


def test_the_quote_finder_sent_from_a_page_of_a_replaced_version_searches_the_current_one(
    editor_client,
):
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    new_version(old.source, "Later, the mayor said 2.7 times.")
    url = reverse("sources:quote_finder", args=[old.source_id, old.number])

    response = editor_client.get(url, {"q": "mayor said"}, follow=True)

    current = reverse("sources:quote_finder", args=[old.source_id, 2])
    assert response.redirect_chain == [(f"{current}?q=mayor+said", 302)]
    assert "Found 1 exact occurrence" in response.text
    assert "characters 11–21" in response.text  # in the newer text, not the old one (4–14)


def test_the_quote_finder_says_a_passage_is_too_long_or_missing(editor_client):
    version = SourceVersionFactory(text="The mayor said 2.6 times.")
    url = reverse("sources:quote_finder", args=[version.source_id, version.number])

    too_long = editor_client.get(url, {"q": "word " * 1200}, headers={"HX-Request": "true"})
    blank = editor_client.get(url, {"q": "  "}, headers={"HX-Request": "true"})

    assert "is at most 5000 characters; this one has 5999. Type fewer words." in too_long.text
    assert "Type some words of the text to find them." in blank.text


def finder(client, version, words):
    return client.get(
        reverse("sources:quote_finder", args=[version.source_id, version.number]),
        {"q": words},
        headers={"HX-Request": "true"},
    )


def test_the_quote_finder_says_when_it_shows_only_the_first_occurrences(editor_client):
    version = SourceVersionFactory(text="2.6 and " * (FINDER_MATCHES_SHOWN + 5))

    response = finder(editor_client, version, "2.6")

    assert f"The first {FINDER_MATCHES_SHOWN} exact occurrences; there are more." in response.text
    assert response.text.count("Quote this occurrence") == FINDER_MATCHES_SHOWN


def test_the_quote_finder_asks_for_words_when_given_only_spaces(editor_client):
    version = SourceVersionFactory(text="Some words.")

    response = finder(editor_client, version, "   ")

    assert "Type some words of the text to find them." in response.text


def test_the_quote_finder_shows_the_closest_passage_with_the_difference(editor_client):
    text = "The persistent engine reduces the iteration step to 9.0 seconds in all."
    version = SourceVersionFactory(text=text)

    response = editor_client.get(
        reverse("sources:quote_finder", args=[version.source_id, version.number]),
        {"q": "reduces the iteration step to 9.5 seconds"},
        headers={"HX-Request": "true"},
    )

    assert "not in the source word for word" in response.text
    assert "<del>" in response.text and "<ins>" in response.text
    assert not Quotation.objects.exists()


def test_the_quote_finder_shows_white_space_it_counts_as_a_difference(editor_client):
    # Drawn as it is, a space the source has and the paste lacks would be nothing to see,
    # yet the count beside the diff includes it.
    version = SourceVersionFactory(text="The engine reduces the iteration step to 9.0 seconds.")

    response = editor_client.get(
        reverse("sources:quote_finder", args=[version.source_id, version.number]),
        {"q": "reduces the iterationstep to 9.0 seconds"},
        headers={"HX-Request": "true"},
    )

    diff = lxml.html.fromstring(response.text).find_class("diff")[0]
    (inserted,) = diff.findall("ins")
    assert inserted.text_content() == "␣a white-space character"
    assert inserted.find_class("diff__space")[0].get("aria-hidden") == "true"
    assert "1 character differs" in response.text


def test_quoting_from_the_finder_stores_the_sources_words(editor_client):
    text = "The persistent engine reduces the iteration step to 9.0 seconds in all."
    version = SourceVersionFactory(text=text)
    start, end = find_span(text, "iteration step to 9.0 seconds")

    quote(editor_client, version, start, end, "iteration step to 9.0 seconds")

    assert Quotation.objects.get().exact == "iteration step to 9.0 seconds"


def new_version(source, text):
    version, _created = source_version_create_from_text(source=source, text=text, actor=None)
    return version


def claim_quoting(text, exact):
    """A piece under check whose first version is ``text``, and a claim quoting ``exact`` in it."""
    piece = PieceUnderCheckFactory()
    first = SourceVersionFactory(source=piece, text=text)
    return piece, ClaimFactory(case__source_under_check=piece, quotation=quoted(first, exact))


def quoted(version, exact):
    start, end = find_span(version.extracted_text, exact)
    return quotation_create(version=version, start=start, end=end, actor=None)[0]


def test_a_new_version_carries_each_quotation_over_with_its_status():
    old = SourceVersionFactory(
        text="Alpha says 2.6 times. Beta says 3.7 times. Gamma says 467 seconds."
    )
    kept = quoted(old, "Alpha says 2.6 times.")
    moved = quoted(old, "Gamma says 467 seconds.")
    edited = quoted(old, "Beta says 3.7 times.")

    new = new_version(
        old.source, "Alpha says 2.6 times. Beta says 3.8 times. Now Gamma says 467 seconds."
    )

    outcome = {r.quotation_id: r for r in Reanchoring.objects.filter(version=new)}
    assert outcome[kept.pk].status == AnchoringStatus.UNCHANGED
    assert outcome[moved.pk].status == AnchoringStatus.MOVED
    assert outcome[edited.pk].status == AnchoringStatus.CHANGED
    assert outcome[edited.pk].new_quotation.exact == "Beta says 3.8 times."
    for reanchoring in outcome.values():
        quotation = reanchoring.new_quotation
        assert new.extracted_text[quotation.start : quotation.end] == quotation.exact


def test_text_that_is_gone_is_orphaned_and_its_claims_flagged():
    piece, claim = claim_quoting(
        "Keep this sentence. Drop this claim entirely.", "Drop this claim entirely."
    )

    new_version(piece, "Keep this sentence.")

    reanchoring = Reanchoring.objects.get(quotation=claim.quotation)
    assert reanchoring.status == AnchoringStatus.ORPHANED
    assert reanchoring.new_quotation is None
    claim.refresh_from_db()
    assert "no longer in version 2" in flagged(claim)


def test_text_that_comes_back_in_a_later_version_is_found_again_and_its_flag_goes():
    text = "Keep this sentence. Drop this claim entirely."
    piece, claim = claim_quoting(text, "Drop this claim entirely.")
    first_quotation = claim.quotation
    new_version(piece, "Keep this sentence.")
    claim.refresh_from_db()
    assert "no longer in version 2" in flagged(claim)

    third = new_version(piece, text)

    claim.refresh_from_db()
    assert flagged(claim) == ""
    assert claim.quotation.version == third
    assert claim.quotation.exact == "Drop this claim entirely."
    found = Reanchoring.objects.get(quotation=first_quotation, version=third)
    assert found.status == AnchoringStatus.UNCHANGED
    assert found.new_quotation == claim.quotation
    # Run again (a task retried), nothing more is carried or flagged.
    assert version_reanchor(version=third) == []


def test_text_still_gone_from_a_later_version_is_not_flagged_again():
    piece, claim = claim_quoting(
        "Keep this sentence. Drop this claim entirely.", "Drop this claim entirely."
    )
    new_version(piece, "Keep this sentence.")
    claim.refresh_from_db()
    before = flagged(claim)

    third = new_version(piece, "Keep this sentence. Add another.")

    claim.refresh_from_db()
    assert flagged(claim) == before  # one reason, still version 2's
    assert not Reanchoring.objects.filter(quotation=claim.quotation, version=third).exists()
    assert claim.quotation.version.number == 1


def test_text_back_after_its_source_was_renamed_still_takes_its_flag_off():
    text = "Keep this sentence. Drop this claim entirely."
    piece, claim = claim_quoting(text, "Drop this claim entirely.")
    new_version(piece, "Keep this sentence.")
    source_update(source=piece, actor=None, title="A new title for the piece")

    new_version(piece, text)

    claim.refresh_from_db()
    assert flagged(claim) == ""


def test_evidence_whose_text_comes_back_two_versions_later_is_followed_and_unflagged():
    claim, cited = claim_with_evidence_gone()  # gone from version 2
    new_version(cited, "Keep this sentence. Still gone.")  # version 3: still gone
    claim.refresh_from_db()
    assert "no longer in version 2" in flagged(claim)

    fourth = new_version(cited, "Keep this sentence. Drop this\nwrapped passage entirely.")

    claim.refresh_from_db()
    assert flagged(claim) == ""
    (evidence,) = claim.evidence.all()
    assert evidence.quotation.version == fourth
    # Told apart on the source page from what was carried over from version 3 (nothing).
    summary = source_reader(cited)["reanchoring_summary"]
    assert summary.pop("found again") == 1
    assert set(summary.values()) == {0}


def claim_whose_figure_changed_in_a_second_version():
    """``(piece, claim, second)``: a claim quoting a figure that the piece's version 2 changed."""
    piece, claim = claim_quoting(
        "Keep this sentence. The compiler took 467 seconds in all.",
        "The compiler took 467 seconds in all.",
    )
    second = new_version(piece, "Keep this sentence. The compiler took 468 seconds in all.")
    return piece, claim, second


def changed_in(version):
    """The re-anchoring that found a quotation's words changed in ``version``."""
    return Reanchoring.objects.get(version=version, status=AnchoringStatus.CHANGED)


def test_confirming_new_wording_after_the_source_was_renamed_takes_the_flag_off(editor):
    piece, claim, second = claim_whose_figure_changed_in_a_second_version()
    source_update(source=piece, actor=editor, title="A new title for the piece")
    changed = changed_in(second)

    reanchoring_confirm(reanchoring=changed, actor=editor)

    claim.refresh_from_db()
    assert flagged(claim) == ""
    assert claim.quotation == changed.new_quotation


def test_new_wording_confirmed_after_a_newer_version_came_is_followed_to_it(editor):
    piece, claim, second = claim_whose_figure_changed_in_a_second_version()
    third = new_version(piece, "A new opening. The compiler took 468 seconds in all.")
    changed = changed_in(second)

    reanchoring_confirm(reanchoring=changed, actor=editor)

    claim.refresh_from_db()
    assert flagged(claim) == ""
    assert claim.quotation.version == third
    assert claim.quotation.exact == "The compiler took 468 seconds in all."


def test_confirming_an_older_change_follows_a_newer_change_confirmed_already(editor):
    piece, claim, second = claim_whose_figure_changed_in_a_second_version()
    third = new_version(piece, "Keep this sentence. The compiler took 469 seconds in all.")
    reanchoring_confirm(reanchoring=changed_in(third), actor=editor)

    reanchoring_confirm(reanchoring=changed_in(second), actor=editor)

    claim.refresh_from_db()
    assert flagged(claim) == ""
    assert claim.quotation.version == third
    assert claim.quotation.exact == "The compiler took 469 seconds in all."


def test_new_wording_confirmed_after_a_newer_version_lost_it_flags_the_claim_for_that(editor):
    piece, claim, second = claim_whose_figure_changed_in_a_second_version()
    new_version(piece, "Keep this sentence.")
    changed = changed_in(second)

    reanchoring_confirm(reanchoring=changed, actor=editor)

    claim.refresh_from_db()
    (reason,) = flagged(claim).splitlines()
    assert "is no longer in version 3: “The compiler took 468 seconds in all.”." in reason
    assert claim.quotation == changed.new_quotation


def test_text_that_comes_back_reworded_trades_its_gone_flag_for_a_confirmation():
    text = "Keep this sentence. The compiler took 467 seconds in all."
    piece, claim = claim_quoting(text, "The compiler took 467 seconds in all.")
    new_version(piece, "Keep this sentence.")

    third = new_version(piece, "Keep this sentence. The compiler took 468 seconds in all.")

    claim.refresh_from_db()
    (reason,) = flagged(claim).splitlines()
    assert f"changed in version {third.number}" in reason
    assert "now reads “The compiler took 468 seconds in all.”" in reason


def claim_with_evidence_gone():
    """A claim whose evidence, quoted across a line break, is gone from its source's new version."""
    _piece, claim = claim_quoting(
        "The compiler took 467 seconds.", "The compiler took 467 seconds."
    )
    cited = SourceVersionFactory(text="Keep this sentence. Drop this\nwrapped passage entirely.")
    EvidenceFactory(claim=claim, quotation=quoted(cited, "Drop this\nwrapped passage entirely."))
    new_version(cited.source, "Keep this sentence.")
    claim.refresh_from_db()
    return claim, cited.source


def shown_flags(claim):
    """The ids of ``claim``'s open flags, as its page sends them."""
    return [
        str(pk) for pk in ClaimFlag.objects.open().filter(claim=claim).values_list("pk", flat=True)
    ]


def clear_flag(client, claim, flag_ids):
    return client.post(
        reverse("claims:claim_flags_clear", args=[claim.case.slug, claim.pk]),
        {"flag": flag_ids},
        follow=True,
    )


def test_a_flag_about_evidence_that_is_gone_is_cleared_by_an_editor_and_audited(
    editor, editor_client
):
    claim, cited = claim_with_evidence_gone()
    # A quoted line break stays inside its reason: one reason, one line.
    shown = [
        f"The text quoted from “{cited}” is no longer in version 2: "
        "“Drop this wrapped passage entirely.”."
    ]
    assert flagged(claim).splitlines() == shown
    page = editor_client.get(claim.get_absolute_url()).text
    assert "Dealt with: clear the flag" in page
    # Only its evidence changed: its own passage is where the piece shows it.
    assert "Show it in the piece" in page

    response = clear_flag(editor_client, claim, shown_flags(claim))

    claim.refresh_from_db()
    assert flagged(claim) == ""
    assert "The review flag is cleared" in response.text
    event = AuditEvent.objects.get(action="claim.flags_cleared", target_id=str(claim.pk))
    assert event.actor == editor
    assert event.changes["reasons"] == shown[0]


def test_clearing_a_flag_keeps_a_reason_added_since_the_page_was_read(editor_client):
    claim, _cited = claim_with_evidence_gone()
    shown = shown_flags(claim)
    ClaimFlagFactory(claim=claim, note="A newer reason.")

    clear_flag(editor_client, claim, shown)

    assert flagged(claim) == "A newer reason."


def test_clearing_a_flag_is_refused_while_the_claim_form_holds_unsaved_text(editor_client):
    claim, _cited = claim_with_evidence_gone()
    before = flagged(claim)

    response = editor_client.post(
        reverse("claims:claim_flags_clear", args=[claim.case.slug, claim.pk]),
        {
            "flag": shown_flags(claim),
            # The edit form, sent along by the page (hx-include).
            "version": claim.version,
            "statement": "Typed and not saved yet.",
            "claimant": claim.claimant,
            "verdict": claim.verdict_id or "",
            "rationale": claim.rationale,
        },
        headers={"HX-Request": "true"},
    )

    assert response.status_code == 409
    assert "Typed and not saved yet." in response.text
    assert flagged(claim) == before


def test_a_claim_whose_own_passage_is_gone_keeps_its_flag(editor_client):
    piece, claim = claim_quoting(
        "Keep this. Drop this claim entirely.", "Drop this claim entirely."
    )
    new_version(piece, "Keep this.")
    claim.refresh_from_db()
    before = flagged(claim)
    page = editor_client.get(claim.get_absolute_url()).text
    assert "Dealt with: clear the flag" not in page
    assert "clearing would not deal with this flag" in page
    assert "Show it in the piece" not in page

    # A page read before the new version still offers it: the service refuses.
    response = clear_flag(editor_client, claim, shown_flags(claim))

    assert response.status_code == 409
    assert "own passage changed or is gone in the current version of the piece" in response.text
    assert flagged(claim) == before


def test_only_an_editor_clears_a_claims_review_flag(client):
    claim = ClaimFactory()
    flag = ClaimFlagFactory(claim=claim, note="The quoted text is gone.")

    with pytest.raises(NotAllowed):
        claim_flags_clear(claim=claim, editor=ReviewerFactory(), flag_ids=[flag.pk])

    assert flagged(claim) == "The quoted text is gone."


def test_the_same_reason_raised_twice_is_one_open_flag_and_two_audit_events():
    piece, claim = claim_quoting(
        "Keep this sentence. Drop this claim entirely.", "Drop this claim entirely."
    )
    second = new_version(piece, "Keep this sentence.")
    reanchoring = Reanchoring.objects.get(version=second)

    flag_raise(claim, reanchoring)  # a retried task raising it again

    (flag,) = ClaimFlag.objects.filter(claim=claim)
    assert (flag.kind, flag.quotation, flag.version) == (
        ClaimFlag.Kind.QUOTATION_GONE,
        claim.quotation,
        second,
    )
    assert AuditEvent.objects.filter(action="claim.flag", target_id=str(claim.pk)).count() == 2


def test_a_flag_cleared_by_an_editor_is_kept_with_who_cleared_it(editor):
    claim, _cited = claim_with_evidence_gone()
    (flag,) = ClaimFlag.objects.filter(claim=claim)

    (cleared,) = claim_flags_clear(claim=claim, editor=editor, flag_ids=[flag.pk, 10**12])

    flag.refresh_from_db()
    assert cleared == flag
    assert flag.cleared_by == editor and flag.cleared_at is not None
    assert flagged(claim) == ""


def test_a_changed_quotation_flags_its_claims_until_a_person_confirms_it(editor):
    piece, claim = claim_quoting(
        "Intro. The speedup is up to 2.6 times higher. Outro.",
        "The speedup is up to 2.6 times higher.",
    )
    old = claim.quotation.version
    evidence = EvidenceFactory(claim=claim, quotation=claim.quotation)

    new_version(piece, "Intro. The speedup is up to 2.7 times higher. Outro.")

    claim.refresh_from_db()
    assert "changed in version 2" in flagged(claim)
    assert claim.quotation.version == old
    reanchoring = Reanchoring.objects.get(quotation=claim.quotation)
    assert reanchoring.needs_confirmation

    flagged_at = claim.updated_at

    reanchoring_confirm(reanchoring=reanchoring, actor=editor)

    claim.refresh_from_db()
    evidence.refresh_from_db()
    assert claim.quotation == reanchoring.new_quotation
    assert claim.quotation.exact == "The speedup is up to 2.7 times higher."
    assert evidence.quotation == reanchoring.new_quotation
    assert flagged(claim) == ""  # the flag asked for this confirmation
    assert claim.updated_at > flagged_at  # its pages, public copies included, change with it


def test_a_quotation_whose_lines_were_wrapped_anew_is_followed_without_a_flag():
    piece, claim = claim_quoting(
        "Intro. Exports grew by twelve percent in the third quarter. Outro.",
        "Exports grew by twelve percent in the third quarter.",
    )

    new = new_version(piece, "Intro. Exports grew by twelve\npercent in the third\nquarter. Outro.")

    claim.refresh_from_db()
    assert Reanchoring.objects.get(version=new).status == AnchoringStatus.MOVED
    assert claim.quotation.version == new
    assert claim.quotation.exact == "Exports grew by twelve\npercent in the third\nquarter."
    assert flagged(claim) == ""


def test_claims_follow_quotations_found_word_for_word():
    piece, claim = claim_quoting("One claim here.", "One claim here.")

    new = new_version(piece, "A new first line.\nOne claim here.")

    claim.refresh_from_db()
    assert claim.quotation.version == new
    assert claim.quotation.exact == "One claim here."
    assert flagged(claim) == ""


@pytest.mark.parametrize("htmx", [True, False])
def test_confirming_a_quotation_that_did_not_change_is_refused_with_a_message(editor_client, htmx):
    old = SourceVersionFactory(text="Stable words here.")
    quoted(old, "Stable words here.")
    new_version(old.source, "Stable words here. And more.")
    reanchoring = Reanchoring.objects.get()
    confirm = reverse("sources:reanchoring_confirm", args=[old.source_id, reanchoring.pk])

    response = editor_client.post(confirm, headers={"HX-Request": "true"} if htmx else {})

    message = "Only a quotation whose text changed needs confirming."
    if htmx:
        assert response.status_code == 409
        assert 'id="version-panel"' in response.text
        assert message in response.text
    else:
        assert response.status_code == 302
        assert message in editor_client.get(response["Location"]).text
    reanchoring.refresh_from_db()
    assert reanchoring.confirmed_at is None


def test_confirming_new_wording_in_place_says_so_in_the_panel(editor_client):
    old = SourceVersionFactory(text="Intro. The speedup is up to 2.6 times higher. Outro.")
    quoted(old, "The speedup is up to 2.6 times higher.")
    new_version(old.source, "Intro. The speedup is up to 2.7 times higher. Outro.")
    reanchoring = Reanchoring.objects.get()
    confirm = reverse("sources:reanchoring_confirm", args=[old.source_id, reanchoring.pk])

    response = editor_client.post(confirm, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert 'id="version-panel"' in response.text
    assert "Confirmed the new wording" in response.text
    reanchoring.refresh_from_db()
    assert reanchoring.confirmed_at is not None


def test_reanchoring_twice_changes_nothing():
    old = SourceVersionFactory(text="Stable words here.")
    quoted(old, "Stable words here.")
    new = new_version(old.source, "Stable words here, and more.")

    assert version_reanchor(version=new) == []
    assert Reanchoring.objects.count() == 1


def test_the_source_page_reports_what_became_of_each_quotation(editor_client):
    old = SourceVersionFactory(text="Alpha says 2.6 times. Beta is removed later.")
    quoted(old, "Alpha says 2.6 times.")
    quoted(old, "Beta is removed later.")
    new_version(old.source, "Alpha says 2.6 times.")

    response = editor_client.get(old.source.get_absolute_url())

    assert "Quotations carried over from version 1" in response.text
    assert "Unchanged" in response.text
    assert "Orphaned" in response.text


def test_a_flagged_claim_shows_why_on_the_case_page(editor_client):
    claim = ClaimFactory()
    ClaimFlagFactory(claim=claim, note="The quoted text changed.")

    response = editor_client.get(claim.case.get_absolute_url())

    assert "Needs review:" in response.text
    assert "The quoted text changed." in response.text


def test_a_selection_across_a_pdf_page_break_is_quoted_on_its_first_page(editor_client):
    source = SourceFactory()
    pdf = sample_files.make_text_pdf(["The end of page one.", "The start of page two."])
    editor_client.post(
        reverse("sources:version_upload", args=[source.pk]),
        {"file": SimpleUploadedFile("paper.pdf", pdf)},
    )
    version = SourceVersion.objects.get(source=source)
    start, end = find_span(version.extracted_text, "page one.\n\nThe start")

    # What the browser rebuilds from the rendered paragraphs: one line break.
    quote(editor_client, version, start, end, "page one.\nThe start")

    quotation = Quotation.objects.get(version=version)
    assert quotation.exact == "page one.\n\nThe start"
    assert quotation.page == 1
    assert version.page_at(quotation.end - 1) == 2


def test_a_long_source_is_read_a_part_at_a_time_with_links_between_parts(editor_client):
    text = long_source_text()
    version = SourceVersionFactory(text=text)
    url = version.source.get_absolute_url()
    middle = text.index("Paragraph 300:")

    first = editor_client.get(url)
    second = editor_client.get(url, {"at": middle})

    assert "Part 1 of 3" in first.text
    assert "Paragraph 0:" in first.text and "Paragraph 300:" not in first.text
    assert 'rel="prev"' not in first.text
    assert "Part 2 of 3" in second.text
    assert f'data-start="{middle}">Paragraph 300:' in second.text  # offsets into the whole text
    assert 'rel="prev"' in second.text and 'rel="next"' in second.text
    assert "Paragraph 0:" not in second.text


@pytest.mark.parametrize("at", ["", "abc", "-40", "99999999999"])
def test_an_offset_that_is_not_in_the_text_shows_its_first_or_last_part(editor_client, at):
    version = SourceVersionFactory(text=long_source_text())

    response = editor_client.get(version.source.get_absolute_url(), {"at": at})

    assert response.status_code == 200
    assert ("Part 3 of 3" if at == "99999999999" else "Part 1 of 3") in response.text


def test_quoting_in_a_later_part_shows_that_part_again_with_the_new_quotation(editor_client):
    text = long_source_text()
    version = SourceVersionFactory(text=text)
    start = text.index("Paragraph 500:")

    response = quote(editor_client, version, start, start + 14, "Paragraph 500:", HX_Request="true")

    assert response.status_code == 200
    assert Quotation.objects.get(version=version).start == start
    assert "Part 3 of 3" in response.text
    assert f'<mark class="quote-mark" data-start="{start}">Paragraph 500:</mark>' in response.text
    # Without htmx: back to that part of the page.
    plain = quote(editor_client, version, start, start + 9, "Paragraph")
    assert plain.url == f"{version.source.get_absolute_url()}?at={start}"


def test_a_quotation_in_a_long_source_links_to_its_part(editor_client):
    text = long_source_text()
    version = SourceVersionFactory(text=text)
    quotation = QuotationFactory(version=version, exact="Paragraph 450:")

    response = editor_client.get(version.source.get_absolute_url())

    assert f'href="{version.source.get_absolute_url()}?at={quotation.start}#text-heading"' in (
        response.text
    )


def test_a_search_hit_in_a_long_source_opens_the_part_it_is_in(editor_client):
    text = long_source_text()
    version = SourceVersionFactory(text=text)
    start = text.index("Paragraph 520:")

    hit = next(hit for hit in search("turbine 520")[0:10] if hit.kind == "source")
    page = editor_client.get(hit.url)

    assert hit.url.startswith(f"{version.source.get_absolute_url()}?at=")
    assert "Part 3 of 3" in page.text
    assert f'data-start="{start}">Paragraph 520:' in page.text


def test_the_quote_finder_finds_words_a_line_break_separates_and_quotes_the_texts_own(
    editor_client,
):
    version = SourceVersionFactory(text="The benchmark covers four\nfrontier models.")

    found = finder(editor_client, version, "covers four frontier")
    start, end = find_span(version.extracted_text, "covers four\nfrontier")
    quoted = quote(editor_client, version, start, end, "covers four\nfrontier")

    assert "Found 1 exact occurrence" in found.text
    assert f'name="start" value="{start}"' in found.text
    assert quoted.status_code == 302  # without htmx: back to the source page
    assert version.quotations.get().exact == "covers four\nfrontier"


@pytest.mark.parametrize(
    "selection",
    [
        {"start": "", "end": "", "selected_text": ""},  # quote.js found nothing selected
        {},  # no selection fields at all
        {"start": "4", "end": "", "selected_text": "mayor"},
    ],
)
@pytest.mark.parametrize("htmx", [True, False])
def test_quoting_with_nothing_selected_is_refused_saying_so(editor_client, selection, htmx):
    version = SourceVersionFactory(text="The mayor said 2.6 times.")
    headers = {"HX-Request": "true"} if htmx else {}

    response = editor_client.post(
        reverse("sources:quotation_create", args=[version.source_id, version.number]),
        selection,
        headers=headers,
    )

    message = "Nothing was quoted: no passage was selected."
    if htmx:
        assert response.status_code == 422
        assert message in response.text
    else:
        assert response.status_code == 302
        assert message in editor_client.get(response["Location"]).text
    assert not Quotation.objects.exists()


def test_quoting_a_selection_of_white_space_only_is_refused(editor_client):
    version = SourceVersionFactory(text="The mayor said.\n\nThe end.")
    start = version.extracted_text.index("\n")

    response = quote(editor_client, version, start, start + 2, "\n\n", **{"HX-Request": "true"})

    assert response.status_code == 422
    assert "The selection is only white space." in response.text
    assert not Quotation.objects.exists()


def test_the_source_pages_quote_button_is_pressable_with_nothing_selected(editor_client):
    # quote.js then says that nothing is selected, rather than the button doing nothing.
    version = SourceVersionFactory(text="The mayor said 2.6 times.")

    page = lxml.html.fromstring(editor_client.get(version.source.get_absolute_url()).text)

    [button] = page.xpath('//form[@id="quote-form"]//button[@data-quote-button]')
    assert button.get("disabled") is None
    assert button.get("aria-disabled") == "true"
    [preview] = page.xpath('//form[@id="quote-form"]//*[@data-quote-preview]')
    assert preview.text_content() == "Nothing selected."


@pytest.mark.parametrize(
    "selection",
    [{"start": "", "end": "", "selected_text": ""}, {}],
)
def test_a_claim_with_nothing_selected_is_refused_and_keeps_what_was_typed(
    editor_client, first_case, selection
):
    response = editor_client.post(
        reverse("claims:claim_create", args=[first_case.slug]),
        {**selection, "statement": "Typed before selecting.", "claimant": "The mayor"},
    )

    assert response.status_code == 422
    form = lxml.html.fromstring(response.text).get_element_by_id("claim-create")
    said = " ".join(form.find_class("form-errors")[0].text_content().split())
    assert said == (
        "No claim was made: select the passage the claim is made in first; what you typed is kept."
    )
    assert form.xpath('.//textarea[@name="statement"]')[0].text.strip() == (
        "Typed before selecting."
    )
    assert form.xpath('.//input[@name="claimant"]/@value') == ["The mayor"]
    assert "Nothing selected." in form.text_content()
    assert not first_case.claims.filter(statement="Typed before selecting.").exists()
