"""The case page: the piece, its claims, filters, the passage finder, new claims and cases."""

import lxml.html
import pytest
from django.test import override_settings
from django.urls import reverse

from claims.models import Case, Claim, ClaimStatus, Rating
from claims.selectors import case_claim_index, claim_status_summary
from claims.services import claim_update
from claims.views.desk import CLAIMS_PER_PAGE, PASSAGE_MATCHES_SHOWN
from claims.workflow import Action, claim_transition
from sources.services import find_span, source_version_create_from_text, source_version_upload
from sources.tasks import extract_source_version
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    ClaimFlagFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    SourceVersionFactory,
    case_with_claims,
    long_source_text,
    make_case_with_claims,
)

pytestmark = pytest.mark.django_db


def test_the_case_page_marks_every_claim_in_the_article_and_lists_them_by_pages(
    editor_client, first_case
):
    claims = list(first_case.claims.order_by("quotation__start", "quotation__end", "id"))
    assert len(claims) > CLAIMS_PER_PAGE

    response = editor_client.get(first_case.get_absolute_url())
    following = editor_client.get(first_case.get_absolute_url(), {"page": 2})

    assert response.status_code == 200
    assert "Where the speed actually comes from" in response.text
    for claim in claims:
        assert f'<a class="claim-ref" href="{claim.get_absolute_url()}"' in response.text
    listed = [claim for claim in claims if f'id="claim-{claim.pk}"' in response.text]
    listed_next = [claim for claim in claims if f'id="claim-{claim.pk}"' in following.text]
    assert listed == claims[:CLAIMS_PER_PAGE]
    assert listed_next == claims[CLAIMS_PER_PAGE:]
    assert f'href="{first_case.get_absolute_url()}?page=2" rel="next"' in response.text
    assert f"Claims 1–{CLAIMS_PER_PAGE} of {len(claims)}; the piece marks all of them." in (
        response.text
    )
    assert f"{len(claims)}</span> Draft" in response.text


def test_the_claim_list_pages_keep_the_filters(editor_client, first_case):
    response = editor_client.get(first_case.get_absolute_url(), {"status": "draft"})

    assert f'href="{first_case.get_absolute_url()}?status=draft&amp;page=2" rel="next"' in (
        response.text
    )


def test_the_case_page_takes_a_constant_number_of_queries(
    editor_client, first_case, django_assert_max_num_queries
):
    # The first view reads the piece's text and the listed claims to render them; later
    # views use the renderings, kept under what they show.
    with django_assert_max_num_queries(15):
        response = editor_client.get(first_case.get_absolute_url())
    assert response.status_code == 200
    with django_assert_max_num_queries(12):
        response = editor_client.get(first_case.get_absolute_url())
    assert response.status_code == 200


def test_filtering_by_status_with_htmx_returns_only_the_claim_list(editor_client, first_case):
    claim = first_case.claims.first()
    Claim.objects.filter(pk=claim.pk).update(status=Claim.Status.WITHDRAWN)

    response = editor_client.get(
        first_case.get_absolute_url(),
        {"status": "withdrawn"},
        headers={"HX-Request": "true", "HX-Target": "claim-list"},
    )

    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="claim-list"')
    assert "<html" not in response.text
    assert f'id="claim-{claim.pk}"' in response.text
    assert response.text.count('class="claim"') == 1


def test_filtering_by_a_status_with_no_claims_says_so(editor_client, first_case):
    response = editor_client.get(first_case.get_absolute_url(), {"status": "published"})

    assert "No claims match these filters" in response.text


def test_an_unknown_status_filter_shows_all_claims(editor_client, first_case):
    response = editor_client.get(first_case.get_absolute_url(), {"status": "bogus"})

    assert response.text.count('class="claim"') == min(first_case.claims.count(), CLAIMS_PER_PAGE)
    assert "No claims match" not in response.text


def test_an_unknown_case_is_not_found(editor_client):
    assert (
        editor_client.get(reverse("claims:case_detail", args=["no-such-case"])).status_code == 404
    )


def test_the_claim_list_filters_by_verdict_and_reviewer(editor_client, first_case):
    accurate = Rating.objects.get(label="Accurate")
    with_verdict, with_reviewer = first_case.claims.all()[:2]
    Claim.objects.filter(pk=with_verdict.pk).update(verdict=accurate)
    assignment = ReviewAssignmentFactory(claim=with_reviewer)
    headers = {"HX-Request": "true", "HX-Target": "claim-list"}

    by_verdict = editor_client.get(
        first_case.get_absolute_url(), {"verdict": accurate.pk}, headers=headers
    )
    by_reviewer = editor_client.get(
        first_case.get_absolute_url(), {"reviewer": assignment.reviewer_id}, headers=headers
    )

    assert by_verdict.text.count('class="claim"') == 1
    assert f'id="claim-{with_verdict.pk}"' in by_verdict.text
    assert by_reviewer.text.count('class="claim"') == 1
    assert f'id="claim-{with_reviewer.pk}"' in by_reviewer.text


def test_the_reviewer_filter_names_each_reviewer_and_keeps_the_one_chosen(
    editor_client, first_case
):
    named, unnamed = first_case.claims.all()[:2]
    chosen = ReviewAssignmentFactory(
        claim=named, reviewer=ReviewerFactory(first_name="Ada", last_name="Byron")
    ).reviewer
    other = ReviewAssignmentFactory(
        claim=unnamed, reviewer=ReviewerFactory(first_name="", last_name="")
    ).reviewer

    page = editor_client.get(first_case.get_absolute_url(), {"reviewer": chosen.pk}).text

    assert f'<option value="{chosen.pk}" selected>Ada Byron</option>' in page
    assert f'<option value="{other.pk}">{other.username}</option>' in page


def test_a_claim_is_made_from_a_selection_of_the_article(editor_client, editor, first_case):
    version = first_case.source_under_check.latest_version
    sentence = "Together also says the system serves trillions of tokens a day"
    start, end = find_span(version.extracted_text, sentence)

    response = editor_client.post(
        reverse("claims:claim_create", args=[first_case.slug]),
        {
            "start": start,
            "end": end,
            "selected_text": sentence,
            "statement": "Together serves trillions of tokens a day.",
            "claimant": "Together AI",
        },
    )

    claim = Claim.objects.get(statement="Together serves trillions of tokens a day.")
    assert response.status_code == 302
    assert response["Location"] == claim.get_absolute_url()
    assert claim.quotation.exact == sentence
    assert claim.author == editor


def test_a_claim_from_a_mismatched_selection_is_refused_and_keeps_the_statement(
    editor_client, first_case
):
    count = Claim.objects.count()

    response = editor_client.post(
        reverse("claims:claim_create", args=[first_case.slug]),
        {"start": 0, "end": 10, "selected_text": "Not these words", "statement": "Kept words."},
    )

    assert response.status_code == 422
    assert "does not match the stored text" in response.text
    assert "Kept words." in response.text
    assert "Nothing selected." in response.text
    assert Claim.objects.count() == count


def test_the_new_claim_address_opened_again_leads_to_the_case_page(editor_client, first_case):
    # A refused claim's page is shown at this address; Enter in the address bar opens it.
    response = editor_client.get(reverse("claims:claim_create", args=[first_case.slug]))

    assert response.status_code == 302
    assert response["Location"] == first_case.get_absolute_url()


def test_a_claim_with_a_blank_statement_is_refused_and_keeps_the_selection(
    editor_client, first_case
):
    version = first_case.source_under_check.latest_version
    sentence = "Together also says the system serves trillions of tokens a day"
    start, end = find_span(version.extracted_text, sentence)

    response = editor_client.post(
        reverse("claims:claim_create", args=[first_case.slug]),
        {"start": start, "end": end, "selected_text": sentence, "statement": "  "},
    )

    assert response.status_code == 422
    assert "please correct what is marked below" in response.text
    assert f"“{sentence}”" in response.text
    assert f'name="start" value="{start}"' in response.text


def test_a_withdrawn_claim_stays_in_the_list_but_is_no_longer_marked_in_the_article(
    editor_client, editor, first_case
):
    kept, withdrawn = first_case.claims.order_by("quotation__start", "id")[:2]
    claim_transition(claim=withdrawn, action=Action.WITHDRAW, actor=editor)

    page = editor_client.get(first_case.get_absolute_url()).text
    article = page.split("data-quote-reader", 1)[1].split("</article>", 1)[0]

    assert f'<a class="claim-ref" href="{kept.get_absolute_url()}"' in article
    assert withdrawn.get_absolute_url() not in article
    assert f'id="claim-{withdrawn.pk}"' in page


def test_a_claim_made_from_a_page_showing_a_replaced_version_says_so_and_keeps_the_statement(
    editor_client, editor
):
    case = CaseFactory()
    source_version_create_from_text(
        source=case.source_under_check, text="The mayor said 2.6 times.", actor=None
    )
    source_version_create_from_text(
        source=case.source_under_check, text="Updated. The mayor said 2.7 times.", actor=None
    )

    def make_claim(start, end, version):
        return editor_client.post(
            reverse("claims:claim_create", args=[case.slug]),
            {
                "start": start,
                "end": end,
                "selected_text": "The mayor said",
                "version": version,
                "statement": "Kept words.",
            },
        )

    response = make_claim(0, 14, version=1)

    assert response.status_code == 422
    assert "Version 1 was replaced by version 2 after this page was opened" in response.text
    assert "Kept words." in response.text
    assert not case.claims.exists()
    # The old selection is not offered again: it is of words the page no longer shows.
    form = lxml.html.fromstring(response.text).get_element_by_id("claim-create")
    assert form.find_class("form-errors")[0].get("autofocus") is not None
    assert [form.xpath(f'.//input[@name="{name}"]/@value') for name in ("start", "end")] == [
        [""],
        [""],
    ]
    assert "Nothing selected." in response.text
    assert form.xpath(".//button[@data-quote-button]/@disabled") == ["disabled"]
    # The page now shows version 2, and a selection made in it is quoted from it.
    assert 'name="version" value="2"' in response.text
    again = make_claim(9, 23, version=2)
    assert again.status_code == 302
    assert case.claims.get().quotation.version.number == 2


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (None, "is being read"),
        (b"%PDF-1.4 not a real PDF", "could not be read: "),
    ],
)
def test_a_case_whose_piece_has_no_readable_text_says_why_and_offers_no_claim_form(
    editor_client, content, said
):
    case = CaseFactory()
    with override_settings(
        TASKS={"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    ):
        version, _ = source_version_upload(
            source=case.source_under_check,
            content=content or b"Words on their way.",
            filename="piece",
            actor=None,
        )
    if content:
        extract_source_version.call(version.pk)

    page = editor_client.get(case.get_absolute_url())

    assert page.status_code == 200
    assert "The text of version 1 of" in page.text
    assert said in page.text
    assert "Select a sentence to make a new claim of it" not in page.text
    assert 'id="claim-create"' not in page.text


def test_a_refused_claim_shown_at_the_forms_url_links_its_lists_to_the_case_page(
    editor_client, editor
):
    case, _claims = make_case_with_claims(60, ReviewerFactory())  # two pages of claims
    create = reverse("claims:claim_create", args=[case.slug])

    response = editor_client.post(
        create, {"start": 0, "end": 10, "selected_text": "Not these words", "statement": "Kept."}
    )

    assert response.status_code == 422
    html = lxml.html.fromstring(response.text)
    (next_page,) = html.xpath("//nav[@class='pagination']//a[@rel='next']")
    assert next_page.get("href").startswith(case.get_absolute_url() + "?")
    (filters,) = html.xpath("//form[contains(@class, 'filter-bar')]")
    assert filters.get("action") == case.get_absolute_url()


def test_the_passage_finder_lists_where_typed_words_occur_in_the_article(editor_client, first_case):
    version = first_case.source_under_check.latest_version
    words = "serves trillions of tokens"
    start, end = find_span(version.extracted_text, words)

    response = editor_client.get(
        first_case.get_absolute_url(),
        {"passage": words},
        headers={"HX-Request": "true", "HX-Target": "passage-results"},
    )

    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="passage-results"')
    assert f'name="start" value="{start}"' in response.text
    assert f'name="end" value="{end}"' in response.text
    # Each button names its passage: a screen reader's list of buttons tells them apart.
    assert (
        "Make a claim of this passage"
        f'<span class="visually-hidden">, characters {start}–{end}</span></button>'
    ) in response.text


def find_in_the_article(client, case, words):
    return client.get(
        case.get_absolute_url(),
        {"passage": words},
        headers={"HX-Request": "true", "HX-Target": "passage-results"},
    )


def test_the_passage_finder_finds_words_capitals_aside_and_quotes_the_pieces_own(
    editor_client, first_case
):
    version = first_case.source_under_check.latest_version
    words = "Together also says"
    start, _end = find_span(version.extracted_text, words)

    response = find_in_the_article(editor_client, first_case, "together ALSO says")

    assert f'name="start" value="{start}"' in response.text
    assert f"<mark>{words}</mark>" in response.text


def test_the_passage_finder_matches_from_the_start_of_a_word(editor_client):
    case = CaseFactory()
    source_version_create_from_text(
        source=case.source_under_check, text="The data say: a tenth.", actor=None
    )

    response = find_in_the_article(editor_client, case, "a")

    assert response.text.count("<mark>a</mark>") == 1
    assert 'name="start" value="14"' in response.text


def test_the_passage_finder_says_when_it_shows_only_the_first_matches(editor_client, first_case):
    response = find_in_the_article(editor_client, first_case, "the")

    assert f"The first {PASSAGE_MATCHES_SHOWN} matches in the piece; there are more" in (
        response.text
    )


def test_the_passage_finder_asks_for_words_when_given_only_spaces(editor_client, first_case):
    response = find_in_the_article(editor_client, first_case, "   ")

    assert "Type some words of the piece to find them." in response.text
    assert "Make a claim of this passage" not in response.text


def test_an_emptied_passage_finder_clears_what_it_found_without_a_message(
    editor_client, first_case
):
    page = lxml.html.fromstring(editor_client.get(first_case.get_absolute_url()).text)
    (box,) = page.xpath("//input[@id='id_passage']")

    response = find_in_the_article(editor_client, first_case, "")

    assert box.get("required") is None  # the browser sends the emptied box
    assert response.text.lstrip().startswith('<div id="passage-results"')
    assert "form-errors" not in response.text
    assert "Make a claim of this passage" not in response.text


def test_words_not_in_the_article_say_so(editor_client, first_case):
    response = editor_client.get(
        first_case.get_absolute_url(),
        {"passage": "words the article never uses"},
        headers={"HX-Request": "true", "HX-Target": "passage-results"},
    )

    assert "not in the piece word for word" in response.text
    assert 'name="start"' not in response.text


def test_a_picked_passage_fills_the_claim_form_and_focuses_the_statement(editor_client, first_case):
    version = first_case.source_under_check.latest_version
    sentence = "Together also says the system serves trillions of tokens a day"
    start, end = find_span(version.extracted_text, sentence)

    fragment = editor_client.get(
        first_case.get_absolute_url(),
        {"start": start, "end": end},
        headers={"HX-Request": "true", "HX-Target": "claim-create"},
    )
    page = editor_client.get(first_case.get_absolute_url(), {"start": start, "end": end})

    assert fragment.text.lstrip().startswith('<form id="claim-create"')
    for response in (fragment, page):
        assert f'name="selected_text" value="{sentence}"' in response.text
        assert f'name="start" value="{start}" data-quote-start' in response.text
        assert "autofocus" in response.text
        assert "data-quote-button disabled" not in response.text


@pytest.mark.parametrize(
    "pick", [{"start": "5", "end": "2"}, {"start": "0", "end": "99999999"}, {"start": "x"}]
)
def test_a_picked_passage_outside_the_article_leaves_the_claim_form_empty(
    editor_client, first_case, pick
):
    response = editor_client.get(first_case.get_absolute_url(), pick)

    assert response.status_code == 200
    assert 'name="selected_text" value=""' in response.text
    assert "data-quote-button disabled" in response.text


def test_an_editor_opens_a_case_for_a_piece_under_check(editor_client, editor, first_case):
    response = editor_client.post(
        reverse("claims:case_create"),
        {
            "title": "Second look",
            "slug": "second-look",
            "source_under_check": first_case.source_under_check_id,
            "lead_editor": editor.pk,
        },
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("claims:case_detail", args=["second-look"])


def test_a_case_with_a_taken_slug_is_refused_next_to_the_field(editor_client, first_case):
    response = editor_client.post(
        reverse("claims:case_create"),
        {
            "title": "Again",
            "slug": first_case.slug,
            "source_under_check": first_case.source_under_check_id,
        },
    )

    assert response.status_code == 422
    assert "already exists" in response.text
    summary = lxml.html.fromstring(response.text).find_class("form-errors")[0]
    assert summary.get("autofocus") is not None
    assert "Please correct the fields marked below" in summary.text_content()


@pytest.mark.parametrize(
    "slug, said",
    [
        ("new", "is the address of a page of its own"),
        ("THREE-numbers-one-announcement", "already exists"),
        ("-", "words joined by single hyphens"),
        ("under_score", "words joined by single hyphens"),
        ("two--hyphens", "words joined by single hyphens"),
    ],
    ids=["a-page's-address", "the-same-but-for-case", "a-hyphen", "underscore", "double-hyphen"],
)
def test_a_case_address_that_cannot_be_its_own_is_refused(editor_client, first_case, slug, said):
    response = editor_client.post(
        reverse("claims:case_create"),
        {"title": "Again", "slug": slug, "source_under_check": first_case.source_under_check_id},
    )

    assert response.status_code == 422
    assert said in response.text
    assert Case.objects.count() == 1


def test_a_case_address_is_kept_in_lowercase(editor_client, first_case):
    editor_client.post(
        reverse("claims:case_create"),
        {
            "title": "Loud",
            "slug": "Second-Look",
            "source_under_check": first_case.source_under_check_id,
        },
    )

    assert Case.objects.filter(slug="second-look").exists()


@pytest.mark.parametrize("reviewer", ["abc", "²", "9" * 40, "-1", "0"])
def test_a_reviewer_filter_that_names_nobody_lists_no_claims(editor_client, first_case, reviewer):
    response = editor_client.get(first_case.get_absolute_url(), {"reviewer": reviewer})

    assert response.status_code == 200
    assert "No claims match these filters" in response.text


def test_a_page_of_claims_swapped_in_by_htmx_takes_the_focus_and_a_filter_change_does_not(
    editor_client, first_case
):
    swap = {"HX-Request": "true", "HX-Target": "claim-list"}

    paged = editor_client.get(first_case.get_absolute_url(), {"page": 2}, headers=swap)
    filtered = editor_client.get(first_case.get_absolute_url(), {"status": "draft"}, headers=swap)
    full = editor_client.get(first_case.get_absolute_url(), {"page": 2})

    assert paged.text.lstrip().startswith('<div id="claim-list"')
    assert 'id="claim-list-range" tabindex="-1" autofocus' in paged.text
    assert 'id="claim-list-range" tabindex="-1">' in filtered.text
    assert "autofocus" not in full.text.split('id="claim-list"', 1)[1]
    assert 'hx-boost="true" hx-target="#claim-list"' in filtered.text
    assert f'href="{first_case.get_absolute_url()}?status=draft&amp;page=2"' in filtered.text


def test_the_status_summary_counted_from_the_index_is_the_one_the_database_counts():
    case = case_with_claims(4)
    Claim.objects.filter(pk__in=list(case.claims.values_list("pk", flat=True))[:3]).update(
        status=ClaimStatus.IN_REVIEW
    )

    from_index = claim_status_summary(case, index=case_claim_index(case))

    assert from_index == claim_status_summary(case)
    assert (ClaimStatus.IN_REVIEW, ClaimStatus.IN_REVIEW.label, 3) in from_index


def test_a_reviewer_sees_every_claim_counted_in_the_summary_though_only_theirs_listed(client):
    case = case_with_claims(3)
    reviewer = ReviewerFactory()
    ReviewAssignmentFactory(reviewer=reviewer, claim=case.claims.first())
    client.force_login(reviewer)

    page = client.get(case.get_absolute_url()).text

    assert page.count('class="claim" id="claim-') == 1
    assert '<span class="progress-summary__count">3</span> Draft' in page


def long_piece_case():
    """A case whose piece is three parts long, with a claim in the first and one in the last."""
    case = CaseFactory()
    version = SourceVersionFactory(source=case.source_under_check, text=long_source_text())
    early = ClaimFactory(
        case=case,
        statement="Early claim",
        quotation=QuotationFactory(version=version, exact="Paragraph 10:"),
    )
    late = ClaimFactory(
        case=case,
        statement="Late claim",
        quotation=QuotationFactory(version=version, exact="Paragraph 550:"),
    )
    return case, version, early, late


def test_a_long_piece_is_read_on_the_case_page_a_part_at_a_time(editor_client):
    case, _version, early, late = long_piece_case()
    url = case.get_absolute_url()
    late_start = late.quotation.start

    first = editor_client.get(url).text
    last = editor_client.get(url, {"at": late_start}).text

    # (Each claim's own passage is quoted in the list of claims too: others are looked for.)
    assert "Part 1 of 3" in first and "Paragraph 549:" not in first
    assert f'<a class="claim-ref" href="{early.get_absolute_url()}"' in first
    assert f'<a class="claim-ref" href="{late.get_absolute_url()}"' not in first
    assert f'href="{url}?at=' in first and 'rel="next"' in first
    # Every claim is listed whichever part is read.
    assert "Early claim" in last and "Late claim" in first
    assert "Part 3 of 3" in last and "Paragraph 11:" not in last
    assert f'<a class="claim-ref" href="{late.get_absolute_url()}"' in last
    assert f'data-start="{late_start}">Paragraph 550:' in last  # offsets into the whole text
    assert f'<input type="hidden" name="at" value="{late_start}">' in last  # kept by the filters


def test_a_claim_refused_in_a_later_part_shows_that_part_again_with_the_typed_text(
    editor_client,
):
    case, version, _early, _late = long_piece_case()
    start = version.extracted_text.index("Paragraph 560:")

    response = editor_client.post(
        reverse("claims:claim_create", args=[case.slug]) + f"?at={start}",
        {"start": start, "end": start + 14, "selected_text": "Paragraph 999:", "statement": "Kept"},
    )

    assert response.status_code == 422
    assert "Part 3 of 3" in response.text
    assert "Kept</textarea>" in response.text


def test_a_passage_picked_without_a_mouse_opens_the_part_it_is_in(editor_client):
    case, version, _early, _late = long_piece_case()
    start = version.extracted_text.index("Paragraph 300:")

    response = editor_client.get(case.get_absolute_url(), {"start": start, "end": start + 14})

    assert "Part 2 of 3" in response.text
    assert "“Paragraph 300:”" in response.text


def test_a_rationale_in_the_case_pages_claim_list_is_rendered_as_on_the_claim_page(editor_client):
    claim = ClaimFactory(
        rationale="The table says **2.6×**, see [the paper](https://example.org/p)."
    )

    page = editor_client.get(claim.case.get_absolute_url())

    assert "<strong>2.6×</strong>" in page.text
    assert '<a href="https://example.org/p"' in page.text
    assert "**2.6×**" not in page.text


def test_a_claim_with_two_reviewers_is_found_by_either_and_the_filter_lists_them_by_username(
    editor_client, first_case
):
    claim = first_case.claims.first()
    zoe = ReviewAssignmentFactory(claim=claim, reviewer=ReviewerFactory(username="zoe")).reviewer
    abe = ReviewAssignmentFactory(claim=claim, reviewer=ReviewerFactory(username="abe")).reviewer
    headers = {"HX-Request": "true", "HX-Target": "claim-list"}

    for reviewer in (zoe, abe):
        found = editor_client.get(
            first_case.get_absolute_url(), {"reviewer": reviewer.pk}, headers=headers
        ).text
        assert found.count('class="claim"') == 1
        assert f'id="claim-{claim.pk}"' in found
    page = editor_client.get(first_case.get_absolute_url()).text
    reviewer_filter = page[page.index('id="reviewer-filter"') :]
    assert reviewer_filter.index(f'<option value="{abe.pk}">') < reviewer_filter.index(
        f'<option value="{zoe.pk}">'
    )


def test_the_kept_claim_rows_change_with_what_they_show(editor_client, editor, first_case):
    claim = first_case.claims.order_by("number").first()
    url = first_case.get_absolute_url()
    assert claim.statement in editor_client.get(url).text  # now kept

    claim_update(
        claim=claim, editor=editor, expected_version=claim.version, statement="A new wording."
    )
    Rating.objects.filter(label="False").update(label="Untrue")
    claim.refresh_from_db()
    claim_update(
        claim=claim,
        editor=editor,
        expected_version=claim.version,
        verdict=Rating.objects.get(label="Untrue"),
    )
    page = editor_client.get(url).text
    assert "A new wording." in page
    assert ">Untrue<" in page

    ClaimFlagFactory(claim=claim, note="A reason raised after the rows were kept.")
    assert "A reason raised after the rows were kept." in editor_client.get(url).text
