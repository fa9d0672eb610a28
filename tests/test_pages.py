import re

import lxml.html
import pytest
from django.db import connection
from django.template.loader import render_to_string
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse, set_script_prefix
from django.utils import timezone

from claims.models import Case, Claim, ClaimStatus, Rating
from claims.selectors import case_claim_index, case_list, claim_status_summary, reviews_for
from claims.views.desk import CASES_PER_PAGE, CLAIMS_PER_PAGE, PASSAGE_MATCHES_SHOWN
from claims.workflow import Action, claim_transition
from factcheck.pagination import Paginator
from factcheck.templatetags.numbers import thousands
from sources.models import Source, SourceRole
from sources.services import find_span, source_version_create_from_text, source_version_upload
from sources.tasks import extract_source_version
from sources.views import SOURCES_PER_PAGE
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    CorrectionFactory,
    PublishedCorrectionFactory,
    QuotationFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
    case_with_claims,
    long_source_text,
    make_case_with_claims,
)

pytestmark = pytest.mark.django_db


def test_the_editor_lands_on_the_case_list_after_logging_in(client, editor, first_case):
    response = client.post(
        reverse("login"), {"username": editor.username, "password": "correct horse battery staple"}
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("claims:case_list")

    response = client.get(response["Location"])
    assert response.status_code == 200
    assert first_case.title in response.text
    assert first_case.get_absolute_url() in response.text


def test_a_wrong_password_is_refused_with_a_message_and_keeps_the_username(client, editor):
    response = client.post(reverse("login"), {"username": editor.username, "password": "nope"})

    assert response.status_code == 200
    assert "Please enter a correct username and password" in response.text
    assert f'value="{editor.username}"' in response.text


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
    # The first view reads the piece's text to render it; later views use the rendering.
    with django_assert_max_num_queries(14):
        response = editor_client.get(first_case.get_absolute_url())
    assert response.status_code == 200
    with django_assert_max_num_queries(13):
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


def test_the_case_list_is_empty_with_a_pointer_to_sources(editor_client):
    response = editor_client.get(reverse("claims:case_list"))

    assert "No cases yet" in response.text


def test_a_reviewer_with_no_cases_is_not_told_to_upload_sources(client, reviewer, first_case):
    client.force_login(reviewer)

    response = client.get(reverse("claims:case_list"))

    assert "No cases for you yet" in response.text
    assert "Upload it under" not in response.text
    assert reverse("claims:my_reviews") in response.text


def test_the_source_list_shows_cited_sources_as_awaiting_upload(editor_client, first_case):
    response = editor_client.get(reverse("sources:source_list"))

    assert response.status_code == 200
    assert "Together Compiler: Continual Compilation for AI Inference" in response.text
    assert response.text.count("awaiting upload") == 4


def test_the_source_list_counts_each_sources_versions_in_a_fixed_number_of_queries(
    editor_client,
):
    revised = SourceFactory(title="A source uploaded twice")
    SourceVersionFactory(source=revised)
    with CaptureQueriesContext(connection) as with_one_source:
        editor_client.get(reverse("sources:source_list"))
    SourceVersionFactory(source=revised, text="The second text, corrected.")
    SourceFactory(title="A source not yet uploaded")
    SourceFactory.create_batch(SOURCES_PER_PAGE)

    with CaptureQueriesContext(connection) as with_a_full_page:
        response = editor_client.get(reverse("sources:source_list"))

    rows = {
        title: response.text.split(title, 1)[1].split("</tr>", 1)[0]
        for title in ("A source uploaded twice", "A source not yet uploaded")
    }
    assert "<td>2</td>" in rows["A source uploaded twice"]
    assert "awaiting upload" in rows["A source not yet uploaded"]
    assert response.text.count("<tr>") == SOURCES_PER_PAGE + 1
    assert len(with_a_full_page) == len(with_one_source)


def test_a_source_without_versions_explains_that_it_awaits_upload(editor_client, first_case):
    source = Source.objects.get(publisher="Unite.AI")

    response = editor_client.get(source.get_absolute_url())

    assert "Awaiting upload" in response.text


def test_the_article_source_page_shows_its_text_and_digest(editor_client, first_case):
    article = Source.objects.get(role=SourceRole.UNDER_CHECK)

    response = editor_client.get(article.get_absolute_url())

    version = article.versions.get()
    assert version.sha256 in response.text
    assert "Where the speed actually comes from" in response.text
    assert 'class="quote-mark"' in response.text


def test_my_reviews_lists_only_my_assignments(client, reviewer, first_case):
    mine = ReviewAssignmentFactory(claim=first_case.claims.first(), reviewer=reviewer)
    other = ReviewAssignmentFactory(claim=first_case.claims.last())
    client.force_login(reviewer)

    response = client.get(reverse("claims:my_reviews") + "?show=all")

    assert mine.claim.statement[:60] in response.text
    assert other.claim.statement[:60] not in response.text


def test_the_case_list_and_my_reviews_count_exactly_the_rows_they_list(client, reviewer):
    other_reviewer = ReviewerFactory()
    for _ in range(CASES_PER_PAGE + 2):
        claim = ClaimFactory()
        ReviewAssignmentFactory(claim=claim, reviewer=reviewer)
        ReviewAssignmentFactory(claim=claim, reviewer=other_reviewer)
    ReviewAssignmentFactory(reviewer=other_reviewer)
    client.force_login(reviewer)

    pages = {
        "cases": client.get(reverse("claims:case_list")).context["page"],
        "reviews": client.get(reverse("claims:my_reviews") + "?show=all").context["page"],
    }

    # Counted from plain querysets, listed from annotated ones: the same rows.
    assert pages["cases"].paginator.count == len(case_list(reviewer)) == CASES_PER_PAGE + 2
    assert pages["reviews"].paginator.count == len(reviews_for(reviewer)) == CASES_PER_PAGE + 2
    assert pages["cases"].paginator.num_pages == 2


def test_my_reviews_has_an_empty_state(client, reviewer):
    client.force_login(reviewer)

    assert "Nothing awaits your decision" in client.get(reverse("claims:my_reviews")).text
    assert "Nothing to review" in client.get(reverse("claims:my_reviews") + "?show=all").text


def test_the_public_corrections_log_shows_published_entries_only(client, first_case):
    published = PublishedCorrectionFactory(case=first_case, what_was_wrong="Published wording")
    CorrectionFactory(case=first_case, what_was_wrong="Draft wording")

    response = client.get(reverse("claims:corrections_log"))

    assert response.status_code == 200
    assert "Published wording" in response.text
    assert "Draft wording" not in response.text
    assert f'id="correction-{published.pk}"' in response.text


def test_the_corrections_log_has_an_empty_state(client, db):
    assert "No corrections published" in client.get(reverse("claims:corrections_log")).text


def test_pages_carry_the_navigation_and_vendored_htmx(editor_client, first_case):
    response = editor_client.get(reverse("claims:case_list"))

    for label in ("Cases", "Sources", "My reviews", "Corrections"):
        assert f">{label}</a>" in response.text
    assert "/static/vendor/htmx/htmx.min.js" in response.text
    assert 'aria-current="page"' in response.text


@pytest.mark.parametrize(
    "url_name", ["claims:corrections_log", "claims:corrections_desk", "claims:reports_inbox"]
)
def test_the_corrections_desk_and_reports_are_marked_as_the_corrections_section(
    editor_client, url_name
):
    page = editor_client.get(reverse(url_name)).text

    current = re.findall(r'<a href="([^"]+)" aria-current="page">', page)
    assert current == [reverse("claims:corrections_log")]


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


def test_the_case_list_counts_each_cases_claims_and_published_ones(editor_client):
    empty = CaseFactory(title="A case with no claims yet")
    first = ClaimFactory()
    busy = first.case
    ClaimFactory(
        case=busy,
        quotation=QuotationFactory(version=first.quotation.version, exact="467 seconds"),
        status=Claim.Status.PUBLISHED,
        published_at=timezone.now(),
    )

    response = editor_client.get(reverse("claims:case_list"))

    cards = {
        case.title: response.text.split(case.title, 1)[1].split("</li>", 1)[0]
        for case in (empty, busy)
    }
    assert "0 claims · 0 published" in cards[empty.title]
    assert "2 claims · 1 published" in cards[busy.title]


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


def test_the_navigation_links_follow_the_path_the_app_is_served_under(editor_client):
    # Reversed once per prefix and kept: a second prefix must not get the first's links.
    case_list = reverse("claims:case_list")
    set_script_prefix("/desk/")
    try:
        under_desk = editor_client.get(case_list)
    finally:
        set_script_prefix("/")
    at_root = editor_client.get(case_list)

    assert '<a href="/desk/reviews/"' in under_desk.text
    assert '<a href="/reviews/"' in at_root.text
    assert '<a href="/desk/' not in at_root.text


# The error pages.


def test_a_page_not_found_keeps_the_site_and_says_our_reason(client, first_case):
    response = client.get(reverse("claims:public_case", args=[first_case.slug]))

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.text
    assert "This case has no published fact-checks." in response.text
    assert 'class="site-header"' in response.text
    assert reverse("claims:corrections_log") in response.text


def test_a_page_not_found_does_not_show_djangos_wording_about_models(client, db):
    response = client.get(reverse("claims:correction_detail", args=[987654]))

    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in response.text
    assert "matches the given query" not in response.text


def test_a_refused_page_says_so_with_the_site_around_it(client, reviewer):
    client.force_login(reviewer)

    response = client.get(reverse("claims:case_create"))

    assert response.status_code == 403
    assert "not allowed to open this page" in response.text
    assert reverse("claims:case_list") in response.text


def test_the_server_error_page_needs_neither_a_request_nor_the_database(rf):
    from django.views import defaults

    response = defaults.server_error(rf.get("/"))

    assert response.status_code == 500
    assert b"Something went wrong on our side" in response.content


def test_the_brand_links_a_reader_to_the_public_log_not_the_login(client, db):
    page = client.get(reverse("claims:corrections_log"))

    (brand,) = lxml.html.fromstring(page.content).xpath("//a[@class='brand']")
    assert brand.get("href") == reverse("claims:corrections_log")


def test_a_claim_out_of_a_reviewers_reach_is_not_found_without_naming_the_model(
    client, reviewer, first_case
):
    client.force_login(reviewer)

    response = client.get(first_case.claims.first().get_absolute_url())

    assert response.status_code == 404
    assert "matching query" not in response.text
    assert "<h1>Page not found</h1>" in response.text


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


@pytest.mark.parametrize(
    ("asked", "shown"), [("0", 1), ("-3", 1), ("two", 1), ("", 1), ("2", 2), ("99", 2)]
)
def test_a_page_number_below_the_first_shows_the_first_page_and_one_past_the_last_the_last(
    editor_client, asked, shown
):
    case, _claims = make_case_with_claims(CLAIMS_PER_PAGE + 1, ReviewerFactory())

    page = editor_client.get(case.get_absolute_url(), {"page": asked})

    assert page.status_code == 200
    assert page.context["page"].number == shown


def test_long_counts_group_their_thousands():
    page = Paginator(range(30_000), 20).get_page(1)

    html = render_to_string("includes/pagination.html", {"page": page})

    assert "Page 1 of 1,500" in html
    assert thousands(25_000) == "25,000"
    assert thousands(999) == "999"
    assert thousands("") == ""
