"""What readers, search engines and other newsrooms see: published work only."""

import datetime
import json
import re

import feedparser
import lxml.etree
import lxml.html
import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import dateformat, timezone

from claims.corrections import (
    GENESIS,
    correction_approve,
    correction_draft,
    correction_hash,
    correction_publish,
)
from claims.models import Case, Claim, ClaimStatus, Correction, ErrorReport, Rating
from factcheck.models import Organisation
from sources.models import Source
from tests.factories import (
    CaseFactory,
    ClaimFactory,
    CorrectionFactory,
    EditorFactory,
    EvidenceFactory,
    PublishedCorrectionFactory,
    QuotationFactory,
    RatingFactory,
    ReviewerFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def published_claim(db):
    Organisation.objects.update_or_create(
        pk=1,
        defaults={
            "name": "Desk of Record",
            "url": "https://desk.example.org",
            "logo_url": "https://desk.example.org/logo.png",
        },
    )
    RatingFactory(label="False", order=1, value=1)
    claim = ClaimFactory(
        verdict=RatingFactory(label="Mostly accurate", order=4, value=4),
        rationale="The **table** says so.",
    )
    EvidenceFactory(claim=claim, quotation=QuotationFactory(exact="467 seconds"))
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    claim.refresh_from_db()
    return claim


def public_claim_url(claim):
    return reverse("claims:public_claim", args=[claim.case.slug, claim.pk])


def claim_review_of(response):
    match = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', response.text, re.DOTALL
    )
    assert match, "no JSON-LD on the page"
    return json.loads(match.group(1))


@pytest.mark.parametrize(
    "status", ["draft", "in_review", "changes_requested", "approved", "withdrawn"]
)
def test_an_unpublished_claim_answers_404_to_the_public(client, published_claim, status):
    Claim.objects.filter(pk=published_claim.pk).update(status=status, published_at=None)

    assert client.get(public_claim_url(published_claim)).status_code == 404
    assert (
        client.get(reverse("claims:public_case", args=[published_claim.case.slug])).status_code
        == 404
    )


def test_an_unpublished_claim_of_a_published_case_is_not_listed(client, published_claim):
    draft = ClaimFactory(
        case=published_claim.case,
        quotation=QuotationFactory(version=published_claim.quotation.version, exact="9.0 seconds"),
        statement="A draft nobody may see.",
    )

    response = client.get(reverse("claims:public_case", args=[published_claim.case.slug]))

    assert response.status_code == 200
    assert published_claim.statement in response.text
    assert draft.statement not in response.text


def test_a_draft_correction_answers_404_and_stays_off_the_log(client, published_claim):
    draft = CorrectionFactory(case=published_claim.case, what_was_wrong="Draft wording here")

    assert client.get(reverse("claims:correction_detail", args=[draft.pk])).status_code == 404
    assert "Draft wording here" not in client.get(reverse("claims:corrections_log")).text


def test_the_claim_review_markup_has_every_field(client, published_claim):
    review = claim_review_of(client.get(public_claim_url(published_claim)))

    assert review["@type"] == "ClaimReview"
    assert review["claimReviewed"] == published_claim.statement
    assert review["url"].endswith(public_claim_url(published_claim))
    assert review["datePublished"] == "2026-11-05"
    assert review["author"] == {
        "@type": "Organization",
        "name": "Desk of Record",
        "url": "https://desk.example.org",
        "logo": {"@type": "ImageObject", "url": "https://desk.example.org/logo.png"},
    }
    rating = review["reviewRating"]
    assert rating["ratingValue"] == 4
    assert (rating["bestRating"], rating["worstRating"]) == (5, 1)
    assert rating["alternateName"] == "Mostly accurate"
    item = review["itemReviewed"]
    assert item["@type"] == "Claim"
    assert item["appearance"][0]["headline"] == published_claim.quotation.version.source.title


def test_a_claim_nobody_is_named_for_has_no_author_in_its_claimreview(client, published_claim):
    Claim.objects.filter(pk=published_claim.pk).update(claimant="")
    Source.objects.filter(pk=published_claim.quotation.version.source_id).update(publisher="")

    review = claim_review_of(client.get(public_claim_url(published_claim)))

    assert "author" not in review["itemReviewed"]
    assert review["itemReviewed"]["appearance"]


def test_a_script_tag_inside_a_claim_cannot_break_out_of_the_json_ld(client, published_claim):
    Claim.objects.filter(pk=published_claim.pk).update(
        statement="</script><script>alert(1)</script>"
    )

    response = client.get(public_claim_url(published_claim))

    assert "<script>alert(1)</script>" not in response.text
    assert claim_review_of(response)["claimReviewed"] == "</script><script>alert(1)</script>"


def test_a_verdict_changing_correction_shows_both_verdicts_with_the_date(client, published_claim):
    editor = EditorFactory()
    draft = correction_draft(
        case=published_claim.case,
        claim=published_claim,
        editor=editor,
        kind="correction",
        what_was_wrong="We rated it mostly accurate.",
        what_is_right="The figure is unsupported.",
        new_verdict=RatingFactory(label="False", order=1, value=1),
    )
    correction_approve(correction=draft, approver=ReviewerFactory())
    correction = correction_publish(correction=draft, editor=editor)

    response = client.get(public_claim_url(published_claim))

    assert "The verdict was <strong>Mostly accurate</strong> and is now <strong>False</strong>" in (
        response.text
    )
    assert correction.get_absolute_url() in response.text
    review = claim_review_of(response)
    assert review["reviewRating"]["alternateName"] == "False"
    assert review["correction"][0]["@type"] == "CorrectionComment"


def test_the_feeds_parse_as_atom_and_rss(client, published_claim):
    entry = PublishedCorrectionFactory(
        case=published_claim.case, what_was_wrong="Wrong sum", what_is_right="460 seconds"
    )

    atom = feedparser.parse(client.get(reverse("claims:corrections_atom")).content)
    rss = feedparser.parse(client.get(reverse("claims:corrections_rss")).content)

    assert atom.version == "atom10" and not atom.bozo
    assert rss.version == "rss20" and not rss.bozo
    for feed in (atom, rss):
        assert len(feed.entries) == 1
        assert feed.entries[0].link.endswith(entry.get_absolute_url())
        assert "460 seconds" in feed.entries[0].summary


def test_an_entry_published_with_a_control_character_does_not_take_the_feeds_down(
    client, published_claim
):
    # Published before forms dropped them: the entry never changes, so the feeds must cope.
    PublishedCorrectionFactory(
        case=published_claim.case, what_was_wrong="page 3\x0cpage 4", what_is_right="460\x07 s"
    )

    for name in ("claims:corrections_atom", "claims:corrections_rss"):
        response = client.get(reverse(name))
        feed = feedparser.parse(response.content)
        assert response.status_code == 200
        assert not feed.bozo
        assert "page 3 page 4" in feed.entries[0].summary
        assert "460 s" in feed.entries[0].summary


def test_the_json_listing_carries_the_chain_head(client, published_claim):
    first = PublishedCorrectionFactory(case=published_claim.case)
    second = PublishedCorrectionFactory(case=published_claim.case)

    data = client.get(reverse("claims:corrections_json")).json()

    assert data["head_sha256"] == second.sha256
    assert data["chain_verifies"] is True
    assert [entry["sha256"] for entry in data["entries"]] == [second.sha256, first.sha256]
    assert data["entries"][0]["previous_sha256"] == first.sha256


def test_the_json_listing_answers_404_past_its_last_page_or_to_a_page_that_is_no_number(
    client, published_claim
):
    PublishedCorrectionFactory(case=published_claim.case)
    url = reverse("claims:corrections_json")

    past, nonsense, first = (client.get(url, {"page": page}) for page in ("2", "two", "1"))

    assert past.status_code == nonsense.status_code == 404
    assert past.json() == {"error": "There is no such page: the listing has 1."}
    assert first.status_code == 200
    assert first.json()["pages"] == 1


def test_the_log_shows_the_head_filters_and_permalinks(client, published_claim):
    entry = PublishedCorrectionFactory(case=published_claim.case, kind="clarification")

    page = client.get(reverse("claims:corrections_log"))
    filtered = client.get(reverse("claims:corrections_log"), {"kind": "update"})

    assert "hash chain verifies" in page.text
    assert entry.sha256 in page.text
    assert entry.get_absolute_url() in page.text
    assert "No corrections published that match these filters" in filtered.text


def test_each_log_entry_names_and_links_the_claim_and_fact_check_it_corrects(
    client, published_claim
):
    PublishedCorrectionFactory(case=published_claim.case, claim=published_claim)

    page = client.get(reverse("claims:corrections_log")).text

    assert (
        f'On the claim <a href="{published_claim.get_public_url()}">'
        f"“{published_claim.statement}”</a>"
    ) in page
    assert f'<a href="{reverse("claims:public_case", args=[published_claim.case.slug])}">' in page


def test_an_empty_log_has_an_empty_state_and_links_to_the_policy(client, first_case):
    response = client.get(reverse("claims:corrections_log"))

    assert response.status_code == 200
    assert "No corrections published" in response.text
    # No head of zeros to "verify": there is nothing to chain yet.
    assert "the log's hash chain starts with the first entry" in response.text
    assert "hash chain verifies" not in response.text
    assert "Corrections policy" in response.text
    assert reverse("claims:corrections_atom") in response.text
    assert feedparser.parse(client.get(reverse("claims:corrections_atom")).content).version


def test_the_case_export_carries_every_quotation_as_a_web_annotation(client, published_claim):
    response = client.get(reverse("claims:public_case_export", args=[published_claim.case.slug]))

    data = response.json()
    claim = data["claims"][0]
    annotation = claim["evidence"][0]["annotation"]
    assert annotation["type"] == "Annotation"
    quote, position = annotation["target"]["selector"]
    evidence = published_claim.evidence.get().quotation
    assert quote == {
        "type": "TextQuoteSelector",
        "exact": evidence.exact,
        "prefix": evidence.prefix,
        "suffix": evidence.suffix,
    }
    assert position == {
        "type": "TextPositionSelector",
        "start": evidence.start,
        "end": evidence.end,
    }
    assert claim["made_in"]["target"]["selector"][0]["exact"] == published_claim.quotation.exact


def test_a_case_level_correction_is_noticed_on_the_public_case_page(client, published_claim):
    PublishedCorrectionFactory(case=published_claim.case, what_is_right="The headline changed.")

    response = client.get(reverse("claims:public_case", args=[published_claim.case.slug]))

    assert "The headline changed." in response.text


def test_each_correction_of_a_claim_says_on_the_case_page_what_it_corrected(
    client, published_claim
):
    case, claim = published_claim.case, published_claim
    first = PublishedCorrectionFactory(
        case=case, claim=claim, what_was_wrong="We said 467.", what_is_right="It is 460 seconds."
    )
    PublishedCorrectionFactory(
        case=case, claim=claim, what_was_wrong="Said twice.", what_is_right="Once, on air."
    )
    PublishedCorrectionFactory(
        case=case,
        claim=claim,
        what_was_wrong="Still wrong.",
        what_is_right="It is 461 seconds.",
        supersedes=first,
    )

    page = lxml.html.fromstring(client.get(reverse("claims:public_case", args=[case.slug])).text)

    notices = [
        " ".join(notice.text_content().split())
        for notice in page.xpath("//li[@class='card']/p[@class='correction-notice']")
    ]
    published_on = dateformat.format(timezone.localtime(first.published_at), "j F Y")
    assert notices == [
        f"Correction on {published_on}, superseded by entry 3: Entry 1 of our corrections log.",
        f"Correction on {published_on}: Once, on air. Entry 2 of our corrections log.",
        f"Correction on {published_on}: It is 461 seconds. Entry 3 of our corrections log.",
    ]


def test_a_repeated_conditional_get_is_answered_304(client, published_claim):
    PublishedCorrectionFactory(case=published_claim.case)
    for url in (
        reverse("claims:corrections_log"),
        reverse("claims:corrections_atom"),
        reverse("claims:corrections_json"),
        public_claim_url(published_claim),
        reverse("claims:public_case", args=[published_claim.case.slug]),
        reverse("claims:public_case_export", args=[published_claim.case.slug]),
    ):
        first = client.get(url)
        assert first.status_code == 200
        assert first["Cache-Control"] == "no-cache"

        again = client.get(url, headers={"If-None-Match": first["ETag"]})

        assert again.status_code == 304, url
        assert again.content == b""


def test_a_retitled_cited_source_changes_the_case_exports_etag(client, published_claim):
    url = reverse("claims:public_case_export", args=[published_claim.case.slug])
    first = client.get(url)
    cited = published_claim.evidence.get().quotation.version.source
    cited.title = "The company's revised announcement"
    cited.save()

    again = client.get(url, headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    assert "The company's revised announcement" in again.text


def test_a_new_entry_changes_the_logs_etag(client, published_claim):
    first = client.get(reverse("claims:corrections_log"))
    PublishedCorrectionFactory(case=published_claim.case)

    again = client.get(reverse("claims:corrections_log"), headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 200


def test_a_new_readers_report_changes_the_logs_etag_for_an_editor_whose_menu_counts_them(
    client, editor, published_claim
):
    client.force_login(editor)
    first = client.get(reverse("claims:corrections_log"))
    ErrorReport.objects.create(message="The figure is wrong.", page_url="/corrections/")

    again = client.get(reverse("claims:corrections_log"), headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 200
    menu = lxml.html.fromstring(again.text).find(".//nav").text_content()
    assert "1 reader's report open" in menu


def test_a_public_page_for_a_logged_in_reader_is_theirs_alone_and_asked_for_again_each_time(
    client, editor, published_claim
):
    anonymous = client.get(reverse("claims:corrections_log"))
    client.force_login(editor)

    logged_in = client.get(reverse("claims:corrections_log"))

    unchanged = client.get(
        reverse("claims:corrections_log"), headers={"If-None-Match": logged_in["ETag"]}
    )

    assert anonymous["Cache-Control"] == "no-cache"
    # Their menu's counts change without the page: the ETag answers, not a minute's copy.
    assert set(logged_in["Cache-Control"].split(", ")) == {"max-age=0", "no-cache", "private"}
    assert unchanged.status_code == 304
    assert set(unchanged["Cache-Control"].split(", ")) == {"max-age=0", "no-cache", "private"}


def make_chain(case, count):
    """``count`` published entries with a valid chain, written in bulk."""
    previous = GENESIS
    start = timezone.now() - datetime.timedelta(days=count)
    entries = []
    for number in range(1, count + 1):
        entry = Correction(
            case=case,
            kind="correction",
            what_was_wrong=f"Entry {number} was wrong.",
            what_is_right=f"Entry {number} is right.",
            status="published",
            sequence=number,
            previous_sha256=previous,
            published_at=start + datetime.timedelta(days=number),
        )
        entry.sha256 = previous = correction_hash(entry)
        entries.append(entry)
    Correction.objects.bulk_create(entries)


@pytest.mark.parametrize(
    "name", ["claims:corrections_log", "claims:corrections_json", "claims:corrections_atom"]
)
def test_the_log_runs_the_same_number_of_queries_for_10_and_1000_entries(client, name):
    Organisation.current()
    counts = []
    for size in (10, 1000):
        # Not through the model, which refuses to delete a published entry.
        Correction.objects.all().delete()
        make_chain(CaseFactory(), size)
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse(name)).status_code == 200
        counts.append(len(captured))
    assert counts[0] == counts[1], counts


def retract(claim):
    return PublishedCorrectionFactory(
        case=claim.case,
        claim=claim,
        kind="retraction",
        what_was_wrong="The table we cited was a draft.",
        what_is_right="We withdraw this fact-check.",
    )


def test_a_retracted_claims_page_says_so_without_its_verdict_or_a_claim_review(
    client, published_claim
):
    retraction = retract(published_claim)

    page = client.get(public_claim_url(published_claim))

    assert page.status_code == 200
    assert "Retracted on" in page.text
    assert "<s>Mostly accurate</s>" in page.text
    assert "The table we cited was a draft." in page.text
    assert retraction.get_absolute_url() in page.text
    assert "Verdict:" not in page.text
    assert "application/ld+json" not in page.text


def test_a_retracted_claim_is_marked_on_the_case_page_and_in_the_export(client, published_claim):
    retraction = retract(published_claim)
    slug = published_claim.case.slug

    case_page = client.get(reverse("claims:public_case", args=[slug]))
    exported = client.get(reverse("claims:public_case_export", args=[slug])).json()

    assert 'badge--retracted">Retracted<' in case_page.text
    assert '<span class="verdict">Mostly accurate</span>' not in case_page.text
    (claim,) = exported["claims"]
    assert claim["verdict"] is None
    assert claim["retracted"].endswith(retraction.get_absolute_url())


def test_the_atom_feed_has_what_rfc_4287_requires(client, published_claim):
    # Every entry an <updated>, and an author for the feed; feedparser does not check these.
    entry = PublishedCorrectionFactory(case=published_claim.case)
    atom = "{http://www.w3.org/2005/Atom}"

    feed = lxml.etree.fromstring(client.get(reverse("claims:corrections_atom")).content)

    assert feed.find(f"{atom}author/{atom}name").text == "Desk of Record"
    (item,) = feed.findall(f"{atom}entry")
    updated = datetime.datetime.fromisoformat(item.find(f"{atom}updated").text)
    assert updated == entry.published_at


def test_the_claim_reviews_address_is_the_pages_own_without_the_query_a_link_added(
    client, published_claim
):
    response = client.get(public_claim_url(published_claim) + "?utm_source=x&fbclid=abc")

    canonical = f"http://testserver{public_claim_url(published_claim)}"
    assert claim_review_of(response)["url"] == canonical
    assert f'<link rel="canonical" href="{canonical}">' in response.text


def publish_entry(published, **fields):
    return PublishedCorrectionFactory(case=published.case, **{"reason": ""} | fields)


def test_a_superseded_entry_is_marked_as_such_in_the_log_and_on_the_public_pages(
    client, published_claim
):
    on_claim = publish_entry(
        published_claim, claim=published_claim, what_was_wrong="a", what_is_right="Right at first."
    )
    on_case = publish_entry(published_claim, what_was_wrong="b", what_is_right="Case at first.")
    later = {
        entry: publish_entry(
            published_claim,
            claim=entry.claim,
            what_was_wrong="c",
            what_is_right=f"Later word on entry {entry.sequence}.",
            supersedes=entry,
        )
        for entry in (on_claim, on_case)
    }

    log = client.get(reverse("claims:corrections_log")).text
    # The notices a reader sees; the ClaimReview markup lists every correction.
    claim_page = re.sub(
        r"<script.*?</script>", "", client.get(public_claim_url(published_claim)).text, flags=re.S
    )
    case_page = client.get(reverse("claims:public_case", args=[published_claim.case.slug])).text

    for entry, superseding in later.items():
        link = f'<a href="{superseding.get_absolute_url()}">entry {superseding.sequence}</a>'
        assert f"<dt>Superseded by</dt><dd>{link}" in log
        assert f"superseded by {link}" in (claim_page if entry.claim else case_page)
    assert "Right at first." not in claim_page
    assert "Later word on entry 1." in claim_page
    assert "Case at first." not in case_page
    assert "Later word on entry 2." in case_page


def test_a_feed_entry_says_why_and_how_the_verdict_changed(client, published_claim):
    entry = publish_entry(
        published_claim,
        claim=published_claim,
        what_was_wrong="We rated it before the table came out.",
        what_is_right="The table supports it.",
        reason="The company published its table.",
        new_verdict=Rating.objects.get(label="False"),
    )

    atom = feedparser.parse(client.get(reverse("claims:corrections_atom")).content)

    (item,) = atom.entries
    assert item.link.endswith(entry.get_absolute_url())
    assert "Why: The company published its table." in item.summary
    assert "Verdict: was Mostly accurate, now False." in item.summary


def test_a_case_the_log_does_not_know_filters_nothing_as_its_menu_says(client, published_claim):
    entry = PublishedCorrectionFactory(case=published_claim.case, what_is_right="Still listed.")

    response = client.get(reverse("claims:corrections_log") + "?case=no-such-case")

    assert "Still listed." in response.text
    assert "match these filters" not in response.text
    assert entry.get_absolute_url() in response.text


def test_an_entry_that_does_not_exist_is_not_found_even_with_the_logs_etag(client, published_claim):
    PublishedCorrectionFactory(case=published_claim.case)
    log = client.get(reverse("claims:corrections_log"))

    missing = client.get(
        reverse("claims:correction_detail", args=[987654]), headers={"If-None-Match": log["ETag"]}
    )

    assert missing.status_code == 404


def test_a_log_asked_only_if_modified_since_follows_a_retitled_case(client, published_claim):
    PublishedCorrectionFactory(case=published_claim.case)
    first = client.get(reverse("claims:corrections_log"))
    # Two seconds on: Last-Modified counts whole seconds.
    Case.objects.filter(pk=published_claim.case_id).update(
        title="A retitled case", updated_at=timezone.now() + datetime.timedelta(seconds=2)
    )

    again = client.get(
        reverse("claims:corrections_log"), headers={"If-Modified-Since": first["Last-Modified"]}
    )

    assert again.status_code == 200
    assert "A retitled case" in again.text
