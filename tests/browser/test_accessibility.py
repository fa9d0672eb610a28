"""
Accessibility of the key pages, checked by axe-core (Deque's engine, vendored in
tests/vendor/axe-core/) in Debian's Chromium: a page fails on any violation of
impact "serious" or "critical".

The data is built with the services, not by clicking, so each test only opens
its page and runs axe.
"""

import datetime
import json
import re
import tempfile
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from claims.corrections import correction_approve, correction_draft, correction_publish
from claims.models import Correction, Decision, Rating, ReviewAssignment
from claims.services import (
    claim_submit_for_review,
    claim_update,
    comment_add,
    evidence_add,
    review_decide,
    reviewer_assign,
)
from claims.workflow import Action, claim_digest, claim_transition
from sources.models import Source
from sources.services import find_span, quotation_create, source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the browser fixtures and helpers)
from tests.browser.support import DESKTOP, PHONE, log_in, shot
from tests.factories import EditorFactory, SourceFactory

# The live server's thread must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe-core" / "axe.min.js"
FAILING_IMPACTS = {"serious", "critical"}
CASE = "three-numbers-one-announcement"
CITED = "Together Compiler: Continuous Compilation for AI inference"
CITED_TEXT = (
    "Our persistent engine reduces the iteration step to 9.0 seconds: 1.7 seconds for "
    "RPC and compiler setup plus 7.3 seconds for CUDA-graph capture.\n"
    "Before, every iteration began with a cold start of 467 seconds.\n"
    "The compiler reached 1,111 tokens per second on a B200."
)
QUOTED = ["reduces the iteration step to 9.0 seconds", "467 seconds", "1,111 tokens per second"]


@pytest.fixture
def newsroom(desk):
    """
    The seeded case with work at every stage: a cited source with a text version
    and three quotations; claim 1 in review with evidence, a verdict, rosa
    assigned and a comment; claim 2 published and then corrected (with a case-level
    correction beside it) so the public pages and the log have entries.
    """
    editor, reviewer, case = desk
    source = Source.objects.get(title=CITED)
    version, _created = source_version_create_from_text(
        source=source, text=CITED_TEXT, actor=editor, original_filename="notes.txt"
    )
    quotations = []
    for exact in QUOTED:
        start, end = find_span(version.extracted_text, exact)
        quotations.append(quotation_create(version=version, start=start, end=end, actor=editor)[0])
    unproven = Rating.objects.get(label="Unproven")
    in_review, published = case.claims.order_by("pk")[:2]
    for claim, quotation in ((in_review, quotations[0]), (published, quotations[1])):
        evidence_add(claim=claim, quotation=quotation, stance="context", editor=editor)
        claim_update(
            claim=claim,
            editor=editor,
            expected_version=claim.version,
            verdict=unproven,
            rationale="The figure is the company's own measurement; nobody has reproduced it.",
        )
        reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
        comment_add(claim=claim, author=editor, body="Which table does the figure come from?")
        claim_submit_for_review(claim=claim, editor=editor)
    review_decide(
        assignment=published.assignments.get(),
        reviewer=reviewer,
        decision=Decision.APPROVED,
        digest_seen=claim_digest(published),
    )
    # Nobody publishes their own work: another editor does.
    published = claim_transition(claim=published, action=Action.PUBLISH, actor=EditorFactory())
    for claim, new_verdict in ((published, Rating.objects.get(label="Misleading")), (None, None)):
        correction = draft = correction_draft(
            case=case,
            claim=claim,
            editor=editor,
            kind=Correction.Kind.CORRECTION,
            what_was_wrong="We rated it without the arithmetic.",
            what_is_right="The start-up figures give 51.9×, not 252×.",
            new_verdict=new_verdict,
        )
        correction_approve(correction=draft, approver=reviewer)
        correction_publish(correction=draft, editor=editor)
    return {
        "correction": correction,
        "source": source,
        "in_review": in_review,
        "published": published,
        "assignment": in_review.assignments.get(),
    }


# page name -> (who is logged in, or None; the path, from the newsroom fixture)
PAGES = {
    "login": (None, lambda n: "/login/"),
    "case-list": ("eddie", lambda n: "/cases/"),
    "case-page": ("eddie", lambda n: f"/cases/{CASE}/"),
    "source-reader": ("eddie", lambda n: n["source"].get_absolute_url()),
    "claim-editor": ("eddie", lambda n: n["in_review"].get_absolute_url()),
    "my-reviews": ("rosa", lambda n: "/reviews/"),
    "review": ("rosa", lambda n: f"/reviews/{n['assignment'].pk}/"),
    "public-case": (None, lambda n: f"/published/{CASE}/"),
    "public-claim": (None, lambda n: f"/published/{CASE}/claims/{n['published'].pk}/"),
    "corrections-log": (None, lambda n: "/corrections/"),
    "correction-entry": (None, lambda n: f"/corrections/{n['correction'].pk}/"),
    "source-list": ("eddie", lambda n: "/sources/"),
    "new-source": ("eddie", lambda n: "/sources/new/"),
    "new-case": ("eddie", lambda n: "/cases/new/"),
    "corrections-desk": ("eddie", lambda n: "/desk/corrections/"),
    "search": ("eddie", lambda n: "/search/?q=seconds"),
}
PHONE_PAGES = ["case-page", "claim-editor", "review", "public-case"]


def axe_page(browser, base, user, viewport):
    # add_script_tag(path=...) inlines axe into the page; a Content-Security-Policy
    # without 'unsafe-inline' would block that script, so axe's contexts bypass CSP.
    context = browser.new_context(viewport=viewport, bypass_csp=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    if user:
        log_in(page, base, user)
    return page


def serious_violations(page):
    """
    Run axe on the page as it is now: the violations of impact serious or critical,
    and the results of that impact axe could not decide ("incomplete"), such as an
    aria-describedby naming an id that is not on the page. Undecided colour
    contrast is left out: axe reports it wherever it cannot compute a background
    (text next to the claim numbers, the aria-hidden ✓ of the logo); those pairs
    are the CSS's own colours, e.g. --ink on --mark is 13.7:1.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    # target-size (WCAG 2.2 AA, off by default in axe) matters at the phone viewport.
    results = page.evaluate(
        "async () => await axe.run(document, {rules: {'target-size': {enabled: true}}})"
    )
    undecided = [v for v in results["incomplete"] if v["id"] != "color-contrast"]
    return [v for v in results["violations"] + undecided if v["impact"] in FAILING_IMPACTS]


def report(violations):
    lines = []
    for violation in violations:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            summary = node.get("failureSummary") or "; ".join(
                check["message"] for kind in ("any", "all", "none") for check in node[kind]
            )
            lines.append(f"    {json.dumps(node['target'])}: {summary}")
    return "\n".join(lines)


def assert_accessible(page, name):
    violations = serious_violations(page)
    if violations:
        shot(page, f"a11y-{name}")
    assert not violations, f"axe found on {name} ({page.url}):\n{report(violations)}"


@pytest.mark.parametrize(
    ("name", "viewport"),
    [(name, DESKTOP) for name in PAGES] + [(name, PHONE) for name in PHONE_PAGES],
    ids=[f"{name}-desktop" for name in PAGES] + [f"{name}-phone" for name in PHONE_PAGES],
)
def test_key_page_has_no_serious_accessibility_violations(
    browser, live_server, newsroom, name, viewport
):
    user, path = PAGES[name]
    page = axe_page(browser, live_server.url, user, viewport)
    response = page.goto(f"{live_server.url}{path(newsroom)}")
    assert response.status == 200, f"{name} answered {response.status}"

    assert_accessible(page, f"{name}-{viewport['width']}")


def test_case_page_after_filtering_claims_in_place_has_no_serious_violations(
    browser, live_server, newsroom
):
    page = axe_page(browser, live_server.url, "eddie", DESKTOP)
    page.goto(f"{live_server.url}/cases/{CASE}/")
    with page.expect_response(lambda response: "status=in_review" in response.url):
        page.select_option("#status-filter", "in_review")
    expect(page.locator("#claim-list .claim")).to_have_count(1)
    assert_accessible(page, "case-page-filtered")

    # A filter that matches nothing swaps in the empty state.
    with page.expect_response(lambda response: "verdict=" in response.url):
        page.select_option("#verdict-filter", label="Accurate")
    page.wait_for_selector("#claim-list .empty-state")
    assert_accessible(page, "case-page-filtered-empty")


def test_a_long_source_read_in_parts_has_no_serious_violations(browser, live_server, newsroom):
    source = SourceFactory(title="A long annual report")
    text = "\n".join(f"Paragraph {n}: the engine ran." + " filler" * 40 for n in range(800))
    version, _created = source_version_create_from_text(source=source, text=text, actor=None)
    quotation_create(version=version, start=0, end=12, actor=None)
    page = axe_page(browser, live_server.url, "eddie", DESKTOP)

    page.goto(f"{live_server.url}{source.text_url(len(text) // 2)}")

    expect(page.locator(".part-nav")).to_have_count(2)
    assert_accessible(page, "reader-long-source-part")


def test_results_swapped_into_the_reader_and_the_claim_editor_have_no_serious_violations(
    browser, live_server, newsroom
):
    base = live_server.url
    page = axe_page(browser, base, "eddie", DESKTOP)
    page.goto(f"{base}{newsroom['source'].get_absolute_url()}")
    page.fill("#id_q", "reduces the iteration stp to 9.0 secs")
    page.click("#finder-heading ~ form button[type=submit]")
    page.wait_for_selector("#finder-results .diff")
    assert_accessible(page, "quote-finder-closest")

    page.goto(f"{base}{newsroom['in_review'].get_absolute_url()}")
    page.fill("#quotation-search", "1,111")
    page.wait_for_selector("#quotation-results .quotation-option")
    assert_accessible(page, "evidence-picker-results")


def test_forms_showing_their_errors_have_no_serious_violations(
    browser, live_server, newsroom, settings
):
    settings.SOURCE_UPLOAD_MAX_BYTES = 1000
    base = live_server.url
    page = axe_page(browser, base, None, DESKTOP)
    page.goto(f"{base}/login/")
    page.click("button[type=submit]")
    page.wait_for_selector(".field__error")
    assert_accessible(page, "login-errors")

    log_in(page, base, "eddie")
    page.goto(f"{base}/sources/new/")
    page.fill("#id_title", "Too big")
    big = Path(tempfile.mkdtemp()) / "big.txt"
    big.write_bytes(b"a" * (settings.SOURCE_UPLOAD_MAX_BYTES + 1))
    # Refused by the server, not by upload.js before sending: the page it sends back.
    page.eval_on_selector("input[type=file]", "input => delete input.dataset.maxBytes")
    page.set_input_files("input[type=file]", str(big))
    page.click("text=Save source")
    page.wait_for_selector(".dropzone [role=alert] .field__error")
    assert_accessible(page, "new-source-errors")

    page.goto(f"{base}{newsroom['in_review'].get_absolute_url()}")
    page.fill("#id_statement", " ")
    page.click("#claim-fields button:text-is('Save')")
    page.wait_for_selector("#claim-fields .field__error")
    assert_accessible(page, "claim-editor-errors")


def test_the_check_fails_on_a_field_without_a_label(browser):
    page = browser.new_page()
    page.set_content('<html lang="en"><title>t</title><main><input type="text"></main></html>')

    assert [v["id"] for v in serious_violations(page)] == ["label"]
    page.close()


def test_results_swapped_into_a_page_are_read_out_by_a_live_region_that_stays(
    browser, live_server, newsroom
):
    # A live region replaced whole is a new element that screen readers often do
    # not read: the page's one #announcer stays and takes each part's sentence.
    base = live_server.url
    page = axe_page(browser, base, "eddie", DESKTOP)
    announcer = page.locator("#announcer")

    page.goto(f"{base}/cases/{CASE}/")
    page.evaluate("window.announcerAtLoad = document.getElementById('announcer')")
    page.select_option("#status-filter", "in_review")
    expect(announcer).to_have_text("1 claim matches the filters.")
    page.select_option("#verdict-filter", label="Accurate")
    expect(announcer).to_have_text("No claims match these filters.")
    assert page.evaluate("document.getElementById('announcer') === window.announcerAtLoad")

    page.goto(f"{base}{newsroom['in_review'].get_absolute_url()}")
    page.fill("#quotation-search", "1,111")
    expect(announcer).to_have_text("1 matching quotation.")
    page.fill("#quotation-search", "words quoted nowhere")
    expect(announcer).to_have_text("No quotation of a source contains “words quoted nowhere”.")

    page.goto(f"{base}{newsroom['source'].get_absolute_url()}")
    page.fill("#id_q", "467 seconds")
    page.click("#finder-heading ~ form button[type=submit]")
    expect(announcer).to_have_text("Found 1 exact occurrence.")

    page.goto(f"{base}/search/")
    page.fill("#search-query", "persistent engine")
    expect(announcer).to_have_text(re.compile(r"^\d+ passages? found\.$"))
    assert announcer.inner_text() == page.locator("#results > p.muted").inner_text()
    assert page.locator("[aria-live]").count() == 1


def test_an_answer_shown_away_from_the_pressed_button_is_read_out(browser, live_server, newsroom):
    # The refusal lands in the fields panel and the quotation in the version panel,
    # while the focus stays on the button pressed elsewhere: the announcer says it.
    base = live_server.url
    page = axe_page(browser, base, "eddie", DESKTOP)
    announcer = page.locator("#announcer")
    draft = newsroom["published"].case.claims.filter(status="draft").first()

    page.goto(f"{base}{draft.get_absolute_url()}")
    page.click("button[name=action][value=submit]")
    expect(announcer).to_contain_text("The claim cannot go to review yet")

    page.goto(f"{base}{newsroom['source'].get_absolute_url()}")
    page.fill("#id_q", "Before, every iteration")
    page.click("#finder-heading ~ form button[type=submit]")
    page.click("#finder-results button:has-text('Quote this occurrence')")
    expect(announcer).to_contain_text("Quoted “Before, every iteration”")


def test_pages_showing_messages_have_no_serious_violations(browser, live_server, newsroom):
    # A list of messages is a list inside a status region, not a list that is the region.
    base = live_server.url
    page = axe_page(browser, base, "eddie", DESKTOP)
    page.goto(f"{base}{newsroom['in_review'].get_absolute_url()}")
    page.fill("#id_claimant", "Together AI, in its announcement")
    page.click("#claim-fields button:text-is('Save')")
    expect(page.locator("#claim-fields [role=status]")).to_contain_text("Claim saved.")
    assert_accessible(page, "claim-saved-message")

    page.goto(f"{base}/desk/corrections/")
    page.select_option("#id_case", label=newsroom["published"].case.title)
    page.fill("#id_what_was_wrong", "We misread the table.")
    page.fill("#id_what_is_right", "The table gives 460 seconds.")
    page.click("button:text-is('Save draft')")
    expect(page.locator("main [role=status]")).to_contain_text("drafted")
    assert_accessible(page, "desk-drafted-message")


@pytest.mark.parametrize(
    ("name", "column"), [("my-reviews", "Decision"), ("source-reader", "Text")]
)
def test_a_phone_shows_every_column_of_a_table(browser, live_server, newsroom, name, column):
    # Scrolled sideways in its box if need be: a version's extraction status or a
    # review's decision is not dropped for want of room.
    user, path = PAGES[name]
    page = axe_page(browser, live_server.url, user, PHONE)

    page.goto(f"{live_server.url}{path(newsroom)}")

    expect(page.locator(f".table th:text-is('{column}')")).to_be_visible()


@pytest.mark.parametrize("name", list(PAGES))
def test_no_page_scrolls_sideways_on_a_phone(browser, live_server, newsroom, name):
    # A wide table scrolls inside its own box (.table-wrap), not the whole page.
    user, path = PAGES[name]
    # Overdue reviews are the widest rows of My reviews.
    ReviewAssignment.objects.update(due_on=timezone.localdate() - datetime.timedelta(days=3))
    page = axe_page(browser, live_server.url, user, PHONE)

    page.goto(f"{live_server.url}{path(newsroom)}")

    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], f"{name} is {widths[0]} px wide on a {widths[1]} px screen"


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_what_a_new_version_changed_has_no_serious_violations(
    browser, live_server, newsroom, viewport
):
    # A changed quotation word by word on the source page, its confirmation in
    # place and on its own page, and the two versions compared.
    source = newsroom["source"]
    source_version_create_from_text(
        source=source,
        text=CITED_TEXT.replace("9.0 seconds", "8.5 seconds").replace("467", "470"),
        actor=None,
    )
    reanchoring = source.versions.get(number=2).reanchorings.filter(status="changed").first()
    base = live_server.url
    page = axe_page(browser, base, "eddie", viewport)

    page.goto(f"{base}{source.get_absolute_url()}")
    expect(page.locator(".reanchoring-item--changed .diff del").first).to_be_visible()
    assert_accessible(page, f"reanchoring-diffs-{viewport['width']}")
    page.locator(".reanchoring-item--changed a.button").first.click()
    page.wait_for_selector(".reanchoring-confirm")
    assert_accessible(page, f"reanchoring-confirm-in-place-{viewport['width']}")

    page.goto(f"{base}/sources/{source.pk}/reanchorings/{reanchoring.pk}/confirm/")
    assert_accessible(page, f"reanchoring-confirm-{viewport['width']}")

    page.goto(f"{base}/sources/{source.pk}/versions/1/compare/2/")
    expect(page.locator(".version-diff__change").first).to_be_visible()
    assert_accessible(page, f"version-diff-{viewport['width']}")
    widths = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert widths[0] <= widths[1], f"the version diff is {widths[0]} px wide on {widths[1]} px"
