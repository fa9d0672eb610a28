"""
Seeing what changed: a changed quotation's words compared on the source page,
the claim page, the review page and before "Confirm new wording"; two versions
of a source compared; the claims a new version affected.
"""

import re

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from sources.models import Reanchoring
from sources.services import (
    find_span,
    quotation_create,
    source_version_create_from_text,
    source_version_upload,
)
from tests import sample_files
from tests.factories import (
    ClaimFactory,
    EditorFactory,
    EvidenceFactory,
    PieceUnderCheckFactory,
    ReviewAssignmentFactory,
    ReviewerFactory,
    SourceFactory,
    SourceVersionFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
INTRO = "Intro. The speedup is up to 193 times higher. Outro."
CHANGED = "Intro. The speedup is up to 200 times higher. Outro."
QUOTED = "The speedup is up to 193 times higher."


def new_version(source, text):
    version, _created = source_version_create_from_text(source=source, text=text, actor=None)
    return version


def quoted(version, exact):
    start, end = find_span(version.extracted_text, exact)
    return quotation_create(version=version, start=start, end=end, actor=None)[0]


def claim_whose_passage_changed(old=INTRO, new=CHANGED, exact=QUOTED):
    piece = PieceUnderCheckFactory()
    first = SourceVersionFactory(source=piece, text=old)
    claim = ClaimFactory(case__source_under_check=piece, quotation=quoted(first, exact))
    new_version(piece, new)
    return claim, Reanchoring.objects.get(quotation=claim.quotation, status="changed")


def compare_url(source, old, new):
    return reverse("sources:version_diff", args=[source.pk, old, new])


def confirm_url(reanchoring):
    return reverse(
        "sources:reanchoring_confirm", args=[reanchoring.version.source_id, reanchoring.pk]
    )


def visible_text(html):
    """The words a sighted reader sees: tags and the visually hidden labels dropped."""
    html = re.sub(r'<span class="visually-hidden">[^<]*</span>', "", html)
    return " ".join(re.sub(r"<[^>]+>", "", html).split())


# --- A changed quotation, word by word ------------------------------------------


def test_the_source_page_shows_a_changed_quotation_word_by_word(editor_client):
    claim, reanchoring = claim_whose_passage_changed()

    response = editor_client.get(claim.quotation.version.source.get_absolute_url())

    html = response.text
    assert "[deleted: </span>193<" in html
    assert "[inserted: </span>200<" in html
    assert '<del\n  ><span class="visually-hidden">[deleted: </span>193' in html
    assert "→ now" not in html
    # The confirmation is a step away, where the whole comparison is shown first.
    assert f'href="{confirm_url(reanchoring)}"' in html
    assert f'hx-get="{confirm_url(reanchoring)}"' in html


def test_a_long_changed_passage_shows_its_changes_and_the_whole_in_a_details(editor_client):
    filler = " ".join(f"word{n}" for n in range(120))
    old = f"Intro. {filler} reached 193 tokens {filler}. Outro."
    new = f"Intro. {filler} reached 200 tokens {filler}. Outro."
    claim, _reanchoring = claim_whose_passage_changed(
        old, new, f"{filler} reached 193 tokens {filler}."
    )

    response = editor_client.get(claim.quotation.version.source.get_absolute_url())

    html = response.text
    assert "unchanged words left out" in html
    assert '<details class="diff__whole">' in html
    # Every word is on the page: the whole passage, in the details.
    whole = html[html.index('<details class="diff__whole">') :]
    assert "word0" in whole and "word119" in whole
    assert "truncatechars" not in html and "word119." in visible_text(whole)


def test_an_orphaned_long_passage_is_shown_whole_in_a_details(editor_client):
    long_passage = "Gone words " * 40
    old = SourceVersionFactory(text=f"Kept. {long_passage.strip()}. Kept too.")
    quoted(old, long_passage.strip())
    new_version(old.source, "Kept. Kept too.")

    html = editor_client.get(old.source.get_absolute_url()).text

    assert "The whole passage (" in html
    assert long_passage.strip() in html


def test_confirm_new_wording_shows_the_whole_comparison_first_without_javascript(editor_client):
    claim, reanchoring = claim_whose_passage_changed()

    response = editor_client.get(confirm_url(reanchoring))

    assert response.status_code == 200
    html = response.text
    assert "<h1>Confirm new wording</h1>" in html
    assert "[deleted: </span>193" in html and "[inserted: </span>200" in html
    assert QUOTED in html and "The speedup is up to 200 times higher." in html
    # The claims that will follow the new words, linked.
    assert claim.get_absolute_url() in html
    # On its own page the form posts and redirects, no htmx target to miss.
    form = html[html.index('<form method="post" action="' + confirm_url(reanchoring)) :]
    assert "hx-post" not in form[: form.index(">")]
    reanchoring.refresh_from_db()
    assert reanchoring.confirmed_at is None  # looking confirms nothing

    posted = editor_client.post(confirm_url(reanchoring))

    assert posted.status_code == 302
    reanchoring.refresh_from_db()
    assert reanchoring.confirmed_at is not None
    claim.refresh_from_db()
    assert claim.quotation == reanchoring.new_quotation


def test_confirm_new_wording_in_place_brings_the_comparison_and_the_htmx_form(editor_client):
    _claim, reanchoring = claim_whose_passage_changed()

    response = editor_client.get(confirm_url(reanchoring), headers={"HX-Request": "true"})

    assert response.status_code == 200
    html = response.text
    assert html.strip().startswith(f'<li id="reanchoring-{reanchoring.pk}"')
    assert "<html" not in html
    assert f'hx-post="{confirm_url(reanchoring)}" hx-target="#version-panel"' in html

    posted = editor_client.post(confirm_url(reanchoring), headers={"HX-Request": "true"})

    assert posted.status_code == 200
    assert "Confirmed the new wording" in posted.text
    assert 'id="version-panel"' in posted.text


def test_a_confirmed_change_says_who_confirmed_it_and_offers_no_button(editor_client):
    _claim, reanchoring = claim_whose_passage_changed()
    editor_client.post(confirm_url(reanchoring))

    html = editor_client.get(confirm_url(reanchoring)).text

    assert "Confirmed by test-editor" in html
    assert 'type="submit" class="button button--primary">Confirm new wording' not in html


def test_only_a_changed_quotation_has_a_confirmation_page(editor_client):
    old = SourceVersionFactory(text="Stays the same. Gone soon.")
    quoted(old, "Gone soon.")
    new_version(old.source, "Stays the same.")
    orphaned = Reanchoring.objects.get(status="orphaned")

    assert editor_client.get(confirm_url(orphaned)).status_code == 404
    other = reverse("sources:reanchoring_confirm", args=[SourceFactory().pk, orphaned.pk])
    assert editor_client.get(other).status_code == 404


def test_the_claim_page_shows_its_flag_word_by_word(editor_client):
    claim, reanchoring = claim_whose_passage_changed()

    html = editor_client.get(claim.get_absolute_url()).text

    flag = html[html.index("Needs review:") :]
    assert '<span class="diff diff--inline">' in flag
    assert "[deleted: </span>193" in flag and "[inserted: </span>200" in flag
    assert f'href="{confirm_url(reanchoring)}"' in flag


def test_the_review_page_shows_what_changed_in_a_passage_the_claim_relies_on(client):
    claim, _reanchoring = claim_whose_passage_changed()
    assignment = ReviewAssignmentFactory(claim=claim)
    client.force_login(assignment.reviewer)

    response = client.get(reverse("claims:review", args=[assignment.pk]))

    assert response.status_code == 200
    assert "Needs review:" in response.text
    assert "[deleted: </span>193" in response.text
    assert "[inserted: </span>200" in response.text


# --- The claims a new version affected ------------------------------------------


def test_the_source_page_lists_each_claim_a_new_version_affected(editor_client):
    piece = PieceUnderCheckFactory()
    first = SourceVersionFactory(source=piece, text=f"{INTRO} Another claim here. Kept.")
    changed = ClaimFactory(case__source_under_check=piece, quotation=quoted(first, QUOTED))
    gone = ClaimFactory(case=changed.case, quotation=quoted(first, "Another claim here."))
    untouched = ClaimFactory(case=changed.case, quotation=quoted(first, "Kept."))
    cited = SourceVersionFactory(text="The cited source says 9 seconds.")
    evidence = EvidenceFactory(quotation=quoted(cited, "says 9 seconds"))
    new_version(piece, f"{CHANGED} Kept.")
    new_version(cited.source, "The cited source says 10 seconds.")

    piece_page = editor_client.get(piece.get_absolute_url()).text
    cited_page = editor_client.get(cited.source.get_absolute_url()).text

    affected = piece_page[piece_page.index("Claims affected (2)") :]
    assert changed.get_absolute_url() in affected
    assert gone.get_absolute_url() in affected
    assert untouched.get_absolute_url() not in piece_page
    # A claim whose evidence changed is listed on the cited source's page.
    assert "Claims affected (1)" in cited_page
    assert evidence.claim.get_absolute_url() in cited_page


def test_a_reviewer_sees_only_the_affected_claims_in_their_reach(client):
    piece = PieceUnderCheckFactory()
    first = SourceVersionFactory(source=piece, text=f"{INTRO} Another claim here.")
    assigned = ClaimFactory(case__source_under_check=piece, quotation=quoted(first, QUOTED))
    other = ClaimFactory(case=assigned.case, quotation=quoted(first, "Another claim here."))
    reviewer = ReviewerFactory()
    ReviewAssignmentFactory(claim=assigned, reviewer=reviewer)
    new_version(piece, CHANGED)
    client.force_login(reviewer)

    html = client.get(piece.get_absolute_url()).text

    assert "Claims affected (1)" in html
    assert assigned.get_absolute_url() in html
    assert other.get_absolute_url() not in html


def source_page_queries(client, claims):
    piece = PieceUnderCheckFactory()
    sentences = [f"Sentence {n} says {n} apples." for n in range(claims)]
    first = SourceVersionFactory(source=piece, text=" ".join(sentences))
    case = None
    for sentence in sentences:
        claim = ClaimFactory(
            quotation=quoted(first, sentence),
            **({"case": case} if case else {"case__source_under_check": piece}),
        )
        case = claim.case
        EvidenceFactory(claim=claim, quotation=quoted(SourceVersionFactory(), "467 seconds"))
    new_version(piece, " ".join(s.replace("apples", "pears") for s in sentences))
    with CaptureQueriesContext(connection) as queries:
        response = client.get(piece.get_absolute_url())
    assert response.status_code == 200
    assert f"Claims affected ({claims})" in response.text
    return len(queries)


def test_the_source_page_reads_the_affected_claims_in_a_fixed_number_of_queries(editor_client):
    assert source_page_queries(editor_client, 2) == source_page_queries(editor_client, 8)


# --- Two versions compared --------------------------------------------------------


def test_the_versions_table_links_each_ready_version_to_the_one_before(editor_client):
    old = SourceVersionFactory(text="One.\nTwo.")
    new_version(old.source, "One.\nThree.")

    html = editor_client.get(old.source.get_absolute_url()).text

    assert f'href="{compare_url(old.source, 1, 2)}">Compare with version 1</a>' in html
    assert "Compare with version 0" not in html


def test_two_versions_compared_mark_changed_words_and_list_the_quotations_touched(editor_client):
    same = "\n".join(f"Unchanged paragraph {n}." for n in range(12))
    old = SourceVersionFactory(text=f"{same}\nThe speedup is 193 times.\nLast line.")
    touched = quoted(old, "speedup is 193 times")
    untouched = quoted(old, "Unchanged paragraph 3.")
    new_version(old.source, f"{same}\nThe speedup is 200 times.\nLast line.")
    reanchoring = Reanchoring.objects.get(quotation=touched)

    response = editor_client.get(compare_url(old.source, 1, 2))

    assert response.status_code == 200
    html = response.text
    assert "1 change" in html
    assert "… 12 unchanged paragraphs …" in html
    assert "<details>" in html
    assert "[deleted: </span>193" in html and "[inserted: </span>200" in html
    change = html[html.index('id="change-1"') :]
    assert f"#reanchoring-{reanchoring.pk}" in change
    assert "“speedup is 193 times”" in change
    assert str(untouched) not in change


def test_versions_compared_the_other_way_round_swap_deleted_and_inserted(editor_client):
    old = SourceVersionFactory(text="The figure was 193.")
    new_version(old.source, "The figure was 200.")

    html = editor_client.get(compare_url(old.source, 2, 1)).text

    assert "[deleted: </span>200" in html and "[inserted: </span>193" in html


def test_versions_that_differ_only_in_white_space_have_no_differences(editor_client):
    old = SourceVersionFactory(text="One.\nTwo.")
    new_version(old.source, "One.\n\n  Two.")

    response = editor_client.get(compare_url(old.source, 1, 2))

    assert response.status_code == 200
    assert "No differences." in response.text
    assert "<del" not in response.text.split("No differences.")[1]


def test_a_source_gone_back_to_an_earlier_file_has_no_differences_with_it(editor_client):
    old = SourceVersionFactory(text="The first words.")
    new_version(old.source, "Other words.")
    new_version(old.source, "The first words.")

    html = editor_client.get(compare_url(old.source, 1, 3)).text

    assert "No differences." in html
    assert "the same file (same SHA-256)" in html


def test_a_version_still_being_read_cannot_be_compared_yet(editor_client):
    old = SourceVersionFactory(text="The mayor said 2.6 times.")
    with override_settings(TASKS=QUEUED_ONLY):
        source_version_upload(
            source=old.source,
            content=sample_files.make_text_pdf(["The mayor said 2.7 times."]),
            filename="v2.pdf",
            actor=None,
        )

    response = editor_client.get(compare_url(old.source, 1, 2))
    page = editor_client.get(old.source.get_absolute_url()).text

    assert response.status_code == 200
    assert "The text of version 2 is not ready yet" in response.text
    assert "Compare with version" not in page


@pytest.mark.parametrize(("old", "new"), [(1, 1), (1, 3), (0, 1), (3, 2)])
def test_versions_that_are_not_two_of_the_sources_answer_404(editor_client, old, new):
    first = SourceVersionFactory(text="One.")
    new_version(first.source, "Two.")

    assert editor_client.get(compare_url(first.source, old, new)).status_code == 404


def test_versions_of_a_missing_source_answer_404(editor_client):
    assert editor_client.get(reverse("sources:version_diff", args=[10**9, 1, 2])).status_code == 404


def test_comparing_versions_takes_the_source_pages_permission(client):
    old = SourceVersionFactory(text="One.")
    new_version(old.source, "Two.")
    url = compare_url(old.source, 1, 2)

    assert client.get(url).status_code == 302  # to the login page
    client.force_login(UserFactory())
    assert client.get(url).status_code == 403
    client.force_login(ReviewerFactory())
    assert client.get(url).status_code == 200
    client.force_login(EditorFactory())
    assert client.get(url).status_code == 200


def test_many_changes_come_a_page_at_a_time(editor_client):
    old = "\n".join(f"Paragraph {n}: same." for n in range(240))
    new = "\n".join(f"Paragraph {n}: {'other' if n % 2 else 'same'}." for n in range(240))
    first = SourceVersionFactory(text=old)
    new_version(first.source, new)
    url = compare_url(first.source, 1, 2)

    page_one = editor_client.get(url).text
    page_three = editor_client.get(f"{url}?page=3").text
    nonsense = editor_client.get(f"{url}?page=banana")

    assert "120 changes" in page_one
    assert "this page shows changes 1 to 50" in page_one
    assert 'id="change-50"' in page_one and 'id="change-51"' not in page_one
    assert "this page shows changes 101 to 120" in page_three
    assert nonsense.status_code == 200
    assert "this page shows changes 1 to 50" in nonsense.text


def test_comparing_versions_takes_a_fixed_number_of_queries(
    editor_client, django_assert_max_num_queries
):
    text = "\n".join(f"Paragraph {n} says {n} things." for n in range(100))
    old = SourceVersionFactory(text=text)
    for n in range(1, 100, 4):
        quoted(old, f"Paragraph {n} says")
    # Every other paragraph changes: 50 changes, one in two touching a quotation.
    changed = "\n".join(
        f"Paragraph {n} says {n} {'matters' if n % 2 else 'things'}." for n in range(100)
    )
    new_version(old.source, changed)

    with django_assert_max_num_queries(14):
        response = editor_client.get(compare_url(old.source, 1, 2))

    assert response.status_code == 200
    assert response.text.count('class="version-diff__change"') == 50
    assert response.text.count("Quotations this change touched") == 25
