"""
List rows are stored under a digest of what they show: a row is rendered again
exactly when something it shows has changed, never served from before.
"""

import datetime
import re

import pytest
from django.core.cache import caches
from django.template import Context, Template, TemplateSyntaxError
from django.template.loader import get_template
from django.test import Client
from django.test.signals import template_rendered
from django.urls import reverse, set_script_prefix
from django.utils import timezone

from claims.forms import PassageFinderForm
from claims.models import Case, Claim, Rating
from claims.selectors import case_claim_index, case_list, claims_for_rows, reviews_for
from factcheck.fragments import (
    CACHE_ALIAS,
    NEARBY_CACHE_ALIAS,
    digest,
    render_fragments,
    rendered_rows,
)
from factcheck.templatetags.stored import _holds_input, csrf_stand_in
from tests.factories import (
    ClaimFactory,
    RatingFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    case_with_claims,
)

pytestmark = pytest.mark.django_db

CLAIM_ROW = "claims/case_detail.html#claim-row"
#: The name a partial is rendered under (template_rendered's template.name).
CLAIM_ROW_PARTIAL = "claim-row"


def rendered_templates(action):
    """The names of the templates ``action()`` rendered."""
    names = []

    def note(sender, template, **kwargs):
        names.append(template.name)

    template_rendered.connect(note)
    try:
        action()
    finally:
        template_rendered.disconnect(note)
    return names


def claims_of(case):
    return claims_for_rows(case, case_claim_index(case))


def test_a_row_is_rendered_once_and_then_served_as_stored():
    claim = ClaimFactory(statement="Exports rose by 4 per cent.")
    case = Case.objects.get(pk=claim.case_id)

    first = []
    first_renders = rendered_templates(
        lambda: first.extend(rendered_rows(CLAIM_ROW, "claim", claims_of(case)))
    )
    again = []
    renders = rendered_templates(
        lambda: again.extend(rendered_rows(CLAIM_ROW, "claim", claims_of(case)))
    )

    assert "Exports rose by 4 per cent." in first[0][1]
    assert first_renders == [CLAIM_ROW_PARTIAL]
    assert renders == []
    assert again[0][1] == first[0][1]


@pytest.mark.parametrize(
    "change",
    [
        pytest.param({"statement": "Exports fell."}, id="its own field"),
        pytest.param({"exact": "exports fell"}, id="its quotation"),
        pytest.param({"verdict_label": "False"}, id="its verdict"),
        pytest.param({"case_slug": "moved"}, id="its case"),
        pytest.param({"number": 7}, id="its number in the case"),
    ],
)
def test_a_row_whose_data_changed_is_rendered_again(change):
    case = ClaimFactory().case
    claim = claims_of(case)[0]
    before = digest(CLAIM_ROW, {"claim": claim})

    assert digest(CLAIM_ROW, {"claim": claim._replace(**change)}) != before


def test_an_object_whose_data_changed_is_rendered_again():
    assignment = ReviewAssignmentFactory()
    row = "claims/my_reviews.html#assignment-row"
    before = digest(row, {"assignment": assignment})

    assignment.claim.case.title = "Renamed"

    assert digest(row, {"assignment": assignment}) != before


def test_a_changed_rating_label_shows_in_every_row_that_has_it():
    rating = RatingFactory(label="Mostly accurate", order=4)
    claim = ClaimFactory(verdict=rating)
    case = claim.case
    rendered_rows(CLAIM_ROW, "claim", claims_of(case))

    Rating.objects.filter(pk=rating.pk).update(label="Largely accurate")

    html = rendered_rows(CLAIM_ROW, "claim", claims_of(case))[0][1]
    assert "Largely accurate" in html
    assert "Mostly accurate" not in html


def test_a_template_writes_rendered_rows_whole_with_their_text_escaped_once():
    case = case_with_claims(2)
    Claim.objects.filter(case=case).update(statement="Growth <b>doubled</b> & more")
    rows = rendered_rows(CLAIM_ROW, "claim", claims_of(case))

    written = Template("<ul>{{ rows }}</ul>").render(Context({"rows": rows}))

    assert written == "<ul>" + rows[0][1] + rows[1][1] + "</ul>"
    assert written.count("Growth &lt;b&gt;doubled&lt;/b&gt; &amp; more") == 2


def test_whether_an_assignment_is_overdue_is_worked_out_again_the_next_day(monkeypatch):
    due = timezone.localdate() + datetime.timedelta(days=1)
    assignment = ReviewAssignmentFactory(due_on=due, claim__status="in_review")
    row = "claims/my_reviews.html#assignment-row"
    today = render_fragments(row, [{"assignment": assignment}])[0]

    monkeypatch.setattr(timezone, "localdate", lambda: due + datetime.timedelta(days=1))

    assert "Overdue" not in today
    assert "Overdue" in render_fragments(row, [{"assignment": assignment}])[0]


def test_a_row_is_rendered_again_for_a_site_served_under_another_prefix():
    case = ClaimFactory().case
    claim = claims_of(case)[0]
    at_root = render_fragments(CLAIM_ROW, [{"claim": claim}])[0]

    set_script_prefix("/desk/")
    try:
        under_prefix = render_fragments(CLAIM_ROW, [{"claim": claim}])[0]
    finally:
        set_script_prefix("/")

    assert f'href="/desk/cases/{case.slug}/' in under_prefix
    assert f'href="/cases/{case.slug}/' in at_root


def cache_reads(action):
    """``[(method, number of keys)]`` for each read ``action()`` makes of the fragment cache."""
    calls = []
    cache = caches[CACHE_ALIAS]
    get, get_many = cache.get, cache.get_many

    def counted_get(key, *args, **kwargs):
        calls.append(("get", 1))
        return get(key, *args, **kwargs)

    def counted_get_many(keys, *args, **kwargs):
        calls.append(("get_many", len(keys)))
        cache.get = get  # a backend may read each key with get: part of this one call
        try:
            return get_many(keys, *args, **kwargs)
        finally:
            cache.get = counted_get

    cache.get, cache.get_many = counted_get, counted_get_many
    try:
        action()
    finally:
        del cache.get, cache.get_many
    return calls


def test_a_list_shown_again_unchanged_is_one_read_from_the_cache():
    claims = claims_of(case_with_claims(3))
    first = rendered_rows(CLAIM_ROW, "claim", claims)
    caches[NEARBY_CACHE_ALIAS].clear()  # as in another process
    again = []

    reads = cache_reads(lambda: again.extend(rendered_rows(CLAIM_ROW, "claim", claims)))

    assert reads == [("get", 1)]
    assert again == first
    assert [claim.pk for claim, _html in again] == [claim.pk for claim in claims]


def test_a_list_this_process_has_shown_is_not_read_from_the_shared_cache_again(settings):
    # As with REDIS_URL: the shared cache is another process, and one is kept nearby.
    settings.CACHES = settings.CACHES | {
        NEARBY_CACHE_ALIAS: {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "fragments-nearby-test",
        }
    }
    claims = claims_of(case_with_claims(3))
    first = rendered_rows(CLAIM_ROW, "claim", claims)
    again = []

    reads = cache_reads(lambda: again.extend(rendered_rows(CLAIM_ROW, "claim", claims)))

    assert reads == []
    assert again == first


def test_in_a_list_with_one_changed_row_the_others_are_read_in_one_call_and_not_rendered():
    case = case_with_claims(3)
    rendered_rows(CLAIM_ROW, "claim", claims_of(case))
    changed = claims_of(case)[1]
    Claim.objects.filter(pk=changed.pk).update(statement="Exports fell.")
    claims = claims_of(case)
    rows = []

    renders = []
    reads = cache_reads(
        lambda: renders.extend(
            rendered_templates(lambda: rows.extend(rendered_rows(CLAIM_ROW, "claim", claims)))
        )
    )

    assert reads == [("get", 1), ("get_many", 3)]
    assert renders == [CLAIM_ROW_PARTIAL]
    assert "Exports fell." in rows[1][1]
    assert "Exports fell." not in rows[0][1] + rows[2][1]


def test_a_fragment_cannot_be_keyed_on_a_queryset():
    with pytest.raises(TypeError, match="QuerySet"):
        digest(CLAIM_ROW, {"claim": Claim.objects.all()})


def test_rows_that_cannot_be_keyed_are_rendered_every_time(caplog):
    claims = Claim.objects.all()
    ClaimFactory(statement="Exports rose by 4 per cent.")

    contexts = [{"claim": claims.first(), "all": claims}]
    html = render_fragments(CLAIM_ROW, contexts)
    again = rendered_templates(lambda: render_fragments(CLAIM_ROW, contexts))

    assert "Exports rose by 4 per cent." in html[0]
    assert "cannot be stored" in caplog.text
    assert again == [CLAIM_ROW_PARTIAL]


def test_identical_rows_are_rendered_once_in_a_list():
    contexts = [{"value": "same"}, {"value": "same"}]
    renders = rendered_templates(lambda: render_fragments(CLAIM_ROW, contexts))
    assert len(renders) == 1


def test_the_case_page_shows_an_edited_claim_though_its_row_was_stored(editor_client):
    claim = ClaimFactory(statement="Exports rose by 4 per cent.")
    url = claim.case.get_absolute_url()
    assert "Exports rose by 4 per cent." in editor_client.get(url).text

    Claim.objects.filter(pk=claim.pk).update(statement="Exports rose by 3 per cent.")

    page = editor_client.get(url).text
    assert "Exports rose by 3 per cent." in page
    assert "Exports rose by 4 per cent." not in page


def test_my_reviews_shows_a_renamed_case_though_its_row_was_stored(client):
    reviewer = ReviewerFactory()
    assignment = ReviewAssignmentFactory(reviewer=reviewer)
    client.force_login(reviewer)
    url = reverse("claims:my_reviews") + "?show=all"
    assert assignment.claim.case.title in client.get(url).text

    Case.objects.filter(pk=assignment.claim.case_id).update(title="Renamed case")

    assert "Renamed case" in client.get(url).text


def test_a_case_page_with_every_row_stored_renders_none_of_them(editor_client, settings):
    settings.DESK_PAGE_CACHE = False  # else the whole page is served as stored
    case = case_with_claims(4)
    url = case.get_absolute_url()
    caches[CACHE_ALIAS].clear()
    first_renders = rendered_templates(lambda: editor_client.get(url))
    pages = []
    renders = rendered_templates(lambda: pages.append(editor_client.get(url).text))

    assert first_renders.count(CLAIM_ROW_PARTIAL) == 4
    assert CLAIM_ROW_PARTIAL not in renders
    assert "claims/case_detail.html" in renders
    assert pages[0].count('class="claim" id="claim-') == 4


def test_a_row_first_met_through_another_rows_cycle_is_keyed_on_all_it_shows():
    case = case_with_claims(3)

    def keys():
        # Prefetching a case's claims sets each claim's case: claim -> case -> claims -> claim.
        claims = list(Case.objects.prefetch_related("claims").get(pk=case.pk).claims.all())
        return [digest(CLAIM_ROW, {"claim": claim}) for claim in claims]

    before = keys()
    Case.objects.filter(pk=case.pk).update(slug="a-renamed-case")

    assert all(old != new for old, new in zip(before, keys(), strict=True))


def test_a_case_page_row_shows_all_it_was_read_with_and_reads_nothing_more(
    django_assert_num_queries,
):
    case = case_with_claims(2)
    Claim.objects.filter(case=case).update(
        verdict=RatingFactory(label="Misleading"),
        claimant="The ministry",
        rationale="Two sources disagree.",
        needs_attention="The source changed.",
    )
    claims = claims_of(case)
    template = get_template(CLAIM_ROW)

    with django_assert_num_queries(0):
        rows = [template.render({"claim": claim}) for claim in claims]

    for claim, row in zip(claims, rows, strict=True):
        assert claim.get_absolute_url() in row
        for shown in ("Misleading", "The ministry", "Two sources disagree.", "The source changed."):
            assert shown in row


@pytest.mark.parametrize(
    ("rows_of", "row", "name"),
    [
        (lambda user: case_list(), "claims/case_list.html#case-row", "case"),
        (reviews_for, "claims/my_reviews.html#assignment-row", "assignment"),
    ],
    ids=["case list", "my reviews"],
)
def test_a_list_row_reads_nothing_its_object_was_not_loaded_with(
    rows_of, row, name, django_assert_num_queries
):
    reviewer = ReviewerFactory()
    for _ in range(2):
        ReviewAssignmentFactory(reviewer=reviewer, due_on=timezone.localdate())
    objects = list(rows_of(reviewer))
    template = get_template(row)

    with django_assert_num_queries(0):
        rows = [template.render({name: item}) for item in objects]

    assert len(rows) == 2
    for assignment in reviewer.review_assignments.select_related("claim__case"):
        assert any(assignment.claim.case.title in html for html in rows)


def test_a_case_pages_stored_header_and_filters_are_not_rendered_again_unchanged(
    editor_client, settings
):
    settings.DESK_PAGE_CACHE = False  # else the whole page is served as stored
    case = case_with_claims(2)
    url = case.get_absolute_url()
    first_renders = rendered_templates(lambda: editor_client.get(url))
    pages = []

    renders = rendered_templates(lambda: pages.append(editor_client.get(url).text))

    stored = {"case-header", "claim-filters", "reader-tools", "reader-end"}
    assert stored <= set(first_renders)
    assert not stored & set(renders)
    assert f"<h1>{case.title}</h1>" in pages[0]
    assert 'aria-label="Filter the claims"' in pages[0]


def test_a_case_pages_stored_header_shows_a_change_at_once(editor_client, settings):
    settings.DESK_PAGE_CACHE = False
    case = case_with_claims(2)
    url = case.get_absolute_url()
    editor_client.get(url)

    Case.objects.filter(pk=case.pk).update(title="A renamed case")
    Claim.objects.filter(case=case).update(status="in_review")
    page = editor_client.get(url).text

    assert "<h1>A renamed case</h1>" in page
    assert '<span class="progress-summary__count">2</span> In review' in page


@pytest.mark.parametrize(
    "tag",
    ["{% stored %}", "{% stored header %}", '{% stored "header" case %}'],
)
def test_a_stored_partial_without_a_quoted_name_and_pairs_is_a_template_error(tag):
    with pytest.raises(TemplateSyntaxError):
        Template("{% load stored %}" + tag)


def test_the_stored_desk_menus_logout_form_carries_the_pages_own_token(editor, settings):
    settings.DESK_PAGE_CACHE = False
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    url = reverse("claims:case_list")
    client.get(url)  # renders and stores the menu
    page = client.get(url).text  # the menu served as stored

    token = re.search(
        f'action="{reverse("logout")}">'
        r'<input type="hidden" name="csrfmiddlewaretoken" value="([^"]+)"',
        page,
    )
    assert token
    assert csrf_stand_in() not in page
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token[1]}).status_code == 302


def test_a_stored_reader_s_claim_form_carries_the_pages_own_token(editor, settings):
    settings.DESK_PAGE_CACHE = False
    case = case_with_claims(1)
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    client.get(case.get_absolute_url())  # renders and stores the piece with its blank form
    page = client.get(case.get_absolute_url()).text

    form = page[page.index('id="claim-create"') :]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
    response = client.post(
        reverse("claims:claim_create", args=[case.slug]),
        {"csrfmiddlewaretoken": token, "start": 0, "end": 4, "selected_text": "x"},
    )
    assert response.status_code == 422  # past the CSRF check, refused for its selection
    assert csrf_stand_in() not in page


def test_a_stored_partial_takes_constants_only_as_pairs():
    Template('{% load stored %}{% stored "header" case=case constant form=form %}')
    with pytest.raises(TemplateSyntaxError):
        Template('{% load stored %}{% stored "header" case=case constant form %}')


def test_a_refused_claims_typed_text_is_never_stored_for_the_next_visitor(editor_client, settings):
    settings.DESK_PAGE_CACHE = False
    case = case_with_claims(1)
    url = case.get_absolute_url()
    editor_client.get(url)  # the blank piece, stored

    refused = editor_client.post(
        reverse("claims:claim_create", args=[case.slug]),
        {"start": 0, "end": 4, "selected_text": "not the text", "statement": "Typed by me."},
    )
    again = editor_client.get(url)

    assert refused.status_code == 422
    assert "Typed by me." in refused.text
    assert "Typed by me." not in again.text


def test_only_a_blank_form_may_be_a_stored_partials_constant():
    assert not _holds_input(PassageFinderForm())
    assert _holds_input(PassageFinderForm({"passage": "typed words"}))
    assert _holds_input(PassageFinderForm(initial={"passage": "picked"}))
