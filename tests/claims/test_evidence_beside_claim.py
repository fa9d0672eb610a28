"""Quoting a source beside a claim: the quotation and the evidence made in one step."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from claims.models import Claim, Evidence
from claims.services import evidence_add_from_selection
from claims.workflow import claim_digest
from factcheck.exceptions import NotAllowed
from factcheck.models import AuditEvent
from sources.models import Quotation
from sources.services import source_version_create_from_text
from tests.factories import (
    ClaimFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
TEXT = "Start-up took 467 seconds before.\nThe page says 3.7× higher throughput on a B200 🚀."


@pytest.fixture
def claim(editor):
    return ClaimFactory(author=editor)


@pytest.fixture
def version(db):
    return SourceVersionFactory(text=TEXT)


def span(text, words):
    start = text.index(words)
    return start, start + len(words)


def url(name, claim, *args):
    return reverse(f"claims:{name}", args=[claim.case.slug, claim.pk, *args])


def test_a_selection_becomes_a_quotation_and_evidence_together(claim, version, editor):
    start, end = span(TEXT, "467 seconds")

    evidence = evidence_add_from_selection(
        claim=claim,
        version=version,
        start=start,
        end=end,
        selected_text="467 seconds",
        stance="contradicts",
        note="The sum is 460.",
        editor=editor,
    )

    assert (evidence.quotation.exact, evidence.quotation.version) == ("467 seconds", version)
    assert (evidence.stance, evidence.note) == ("contradicts", "The sum is 460.")
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert {"quotation.create", "evidence.add"} <= actions


def test_a_passage_found_by_its_words_is_quoted_with_the_texts_own_words(claim, version, editor):
    start, end = span(TEXT, "3.7× higher")

    evidence = evidence_add_from_selection(
        claim=claim,
        version=version,
        start=start,
        end=end,
        selected_text=None,
        stance="supports",
        editor=editor,
    )

    assert evidence.quotation.exact == "3.7× higher"


def test_offsets_after_an_emoji_count_code_points(claim, editor):
    version = SourceVersionFactory(text="🚀 launch: 51.9× faster steps.")
    start, end = span(version.extracted_text, "51.9×")

    evidence = evidence_add_from_selection(
        claim=claim,
        version=version,
        start=start,
        end=end,
        selected_text="51.9×",
        stance="supports",
        editor=editor,
    )

    assert evidence.quotation.exact == "51.9×"


def attach(claim, version, editor, **changes):
    start, end = span(TEXT, "467 seconds")
    arguments = {
        "claim": claim,
        "version": version,
        "start": start,
        "end": end,
        "selected_text": "467 seconds",
        "stance": "supports",
        "note": "",
        "editor": editor,
    } | changes
    return evidence_add_from_selection(**arguments)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"selected_text": "468 seconds"}, "does not match the stored text"),
        ({"start": 0, "end": 10_000}, "outside the text"),
        ({"selected_text": "   ", "start": 8, "end": 9}, "only white space"),
    ],
    ids=["not-in-the-text", "out-of-range", "blank"],
)
def test_a_selection_that_is_not_the_texts_stores_nothing(claim, version, editor, changes, said):
    with pytest.raises(ValidationError, match=said) as refused:
        attach(claim, version, editor, **changes)

    assert refused.value.code == "selection"
    assert not Quotation.objects.filter(version=version).exists()
    assert not Evidence.objects.exists()


def test_a_replaced_version_is_refused_and_nothing_is_stored(claim, version, editor):
    source_version_create_from_text(source=version.source, text=TEXT + " More.", actor=None)

    with pytest.raises(ValidationError, match="replaced by version 2"):
        attach(claim, version, editor)

    assert not Quotation.objects.filter(version=version).exists()


def test_the_piece_under_check_is_not_evidence_for_its_own_claims(claim, editor):
    piece_version = claim.quotation.version
    start, end = span(piece_version.extracted_text, "467 seconds")

    with pytest.raises(ValidationError, match="not from the piece") as refused:
        attach(claim, piece_version, editor, start=start, end=end)

    assert refused.value.code == "evidence_from_piece"
    assert Quotation.objects.filter(version=piece_version).count() == 1


def test_a_quotation_already_attached_is_refused_without_a_second_quotation(claim, version, editor):
    attach(claim, version, editor)

    with pytest.raises(ValidationError, match="already evidence"):
        attach(claim, version, editor, stance="contradicts")

    assert Quotation.objects.filter(version=version).count() == 1
    assert claim.evidence.count() == 1


def test_a_reviewer_cannot_quote_evidence_and_nothing_is_stored(claim, version):
    with pytest.raises(NotAllowed):
        attach(claim, version, ReviewerFactory())

    assert not Quotation.objects.filter(version=version).exists()


# Through the claim page.


def test_the_claim_page_offers_the_cases_sources_to_open_beside_the_claim(
    editor_client, claim, version
):
    page = editor_client.get(claim.get_absolute_url()).text

    assert "Quote a source beside the claim" in page
    assert url("evidence_reader", claim, version.source.pk) in page
    # The piece under check is not offered: its claims are made in it.
    assert url("evidence_reader", claim, claim.case.source_under_check.pk) not in page


def test_the_source_finder_narrows_sources_by_title(editor_client, claim, version):
    SourceFactory(title="Inflation report 2025")

    response = editor_client.get(url("evidence_sources", claim), {"q": "inflation"}, headers=HTMX)

    assert "Inflation report 2025" in response.text
    assert version.source.title not in response.text
    nothing = editor_client.get(url("evidence_sources", claim), {"q": "zzzz"}, headers=HTMX)
    assert "No source’s title holds “zzzz”" in nothing.text.replace("&#x27;", "’").replace("'", "’")


def test_opening_a_source_shows_its_text_with_offsets_to_select(editor_client, claim, version):
    response = editor_client.get(url("evidence_reader", claim, version.source.pk), headers=HTMX)

    assert response.status_code == 200
    assert "data-quote-reader" in response.text
    assert 'data-start="0"' in response.text
    assert "467 seconds" in response.text


def test_opening_a_source_without_javascript_shows_the_claim_page_with_its_text(
    editor_client, claim, version
):
    response = editor_client.get(url("evidence_reader", claim, version.source.pk))

    assert "Statement and verdict" in response.text
    assert "data-quote-reader" in response.text


def test_the_piece_under_check_cannot_be_opened_as_evidence(editor_client, claim):
    piece = claim.case.source_under_check

    assert editor_client.get(url("evidence_reader", claim, piece.pk)).status_code == 404


def test_attaching_a_selection_redraws_the_evidence_and_the_figure_check(
    editor_client, claim, version
):
    start, end = span(TEXT, "467 seconds")
    before = claim_digest(claim)

    response = editor_client.post(
        url("evidence_quote", claim, version.source.pk),
        {
            "version": version.number,
            "start": start,
            "end": end,
            "selected_text": "467 seconds",
            "via": "selection",
            "stance": "contradicts",
            "note": "Sum is 460.",
        },
        headers=HTMX,
    )

    assert response.status_code == 200
    after = claim_digest(Claim.objects.get(pk=claim.pk))
    assert after != before
    assert f'title="{after}"' in response.text
    evidence = claim.evidence.get()
    assert (evidence.quotation.exact, evidence.note) == ("467 seconds", "Sum is 460.")
    # The header (status, figure check) comes out of band; the reader again, its quotation marked.
    assert 'id="claim-header" hx-swap-oob="true"' in response.text
    assert 'id="evidence-reader" hx-swap-oob="true"' in response.text
    assert "quote-mark" in response.text


def test_the_keyboard_path_finds_the_words_then_attaches_the_passage_picked(
    editor_client, claim, version
):
    found = editor_client.get(
        url("evidence_find", claim, version.source.pk),
        {"q": "higher THROUGHPUT", "version": version.number},
        headers=HTMX,
    )
    start, end = span(TEXT, "higher throughput")
    assert f'value="{start}-{end}"' in found.text

    response = editor_client.post(
        url("evidence_quote", claim, version.source.pk),
        {"version": version.number, "passage": f"{start}-{end}", "via": "passage"}
        | {"stance": "supports"},
        headers=HTMX,
    )

    assert response.status_code == 200
    assert claim.evidence.get().quotation.exact == "higher throughput"


def test_words_not_in_the_text_are_said_not_found(editor_client, claim, version):
    found = editor_client.get(
        url("evidence_find", claim, version.source.pk),
        {"q": "tokens per minute", "version": version.number},
        headers=HTMX,
    )

    assert "is not in this text word for word" in found.text


@pytest.mark.parametrize(
    ("sent", "said"),
    [
        ({"via": "selection"}, "Nothing is selected in the source"),
        ({"via": "passage"}, "Pick one of the passages found first"),
        (
            {"via": "selection", "start": 0, "end": 5, "selected_text": "Stop-"},
            "does not match the stored text",
        ),
    ],
    ids=["nothing-selected", "nothing-picked", "not-the-text"],
)
def test_a_refused_attach_says_why_in_the_reader_and_keeps_the_note(
    editor_client, claim, version, sent, said
):
    response = editor_client.post(
        url("evidence_quote", claim, version.source.pk),
        {"version": version.number, "stance": "supports", "note": "My typed note."} | sent,
        headers=HTMX,
    )

    assert response.status_code == 422
    assert response["HX-Retarget"] == "#evidence-reader"
    assert said in response.text
    assert "My typed note." in response.text
    assert not Quotation.objects.filter(version=version).exists()
    assert not claim.evidence.exists()


def test_a_stale_version_is_refused_and_the_reader_shows_the_current_one(
    editor_client, claim, version
):
    source_version_create_from_text(source=version.source, text="Start-up took 460 s.", actor=None)
    start, end = span(TEXT, "467 seconds")

    response = editor_client.post(
        url("evidence_quote", claim, version.source.pk),
        {
            "version": version.number,
            "start": start,
            "end": end,
            "selected_text": "467 seconds",
            "via": "selection",
            "stance": "supports",
            "note": "Kept.",
        },
        headers=HTMX,
    )

    assert response.status_code == 422
    assert "replaced by version 2" in response.text
    assert 'name="version" value="2"' in response.text
    assert "Kept." in response.text
    assert not claim.evidence.exists()


def test_a_reviewer_cannot_attach_evidence_from_the_reader(client, claim, version):
    client.force_login(ReviewerFactory())
    start, end = span(TEXT, "467 seconds")

    response = client.post(
        url("evidence_quote", claim, version.source.pk),
        {"version": version.number, "start": start, "end": end, "selected_text": "467 seconds"}
        | {"via": "selection", "stance": "supports"},
    )

    assert response.status_code == 403
    assert not Quotation.objects.filter(version=version).exists()
