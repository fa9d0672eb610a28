"""
Quoting a source beside a claim in a real browser: open its text on the claim
page, select with the mouse (or find the words with the keyboard), attach.
"""

import pytest

from claims.models import Claim
from sources.models import Source, SourceRole
from sources.services import source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the browser fixtures and helpers)
from tests.browser.support import drag_select, log_in, new_page, shot, wait_for_htmx_to_settle

pytestmark = pytest.mark.django_db(transaction=True)

REPORT = (
    "Benchmark report.\n"
    "Start-up took 467 seconds with the old engine 🚀 and 9.0 seconds with the new one.\n"
    "Each agent experiment now costs far less compute than before."
)


@pytest.fixture
def report(desk):
    source = Source.objects.create(title="Engine benchmark report", role=SourceRole.PRIMARY)
    source_version_create_from_text(source=source, text=REPORT, actor=None)
    return source


def open_beside_claim(page, base, claim, report):
    log_in(page, base, "eddie")
    page.goto(f"{base}{claim.get_absolute_url()}")
    page.fill("#evidence-source-search", "benchmark")
    page.click(f"#evidence-sources a:text('{report.title}')")
    page.wait_for_selector("#evidence-reader [data-quote-reader]")
    shot(page, "evidence-reader-open")


def test_a_selection_beside_the_claim_is_attached_in_one_step(browser, live_server, desk, report):
    _editor, _reviewer, case = desk
    claim = Claim.objects.filter(case=case).order_by("number").first()
    page = new_page(browser)
    open_beside_claim(page, live_server.url, claim, report)

    drag_select(page, "9.0 seconds with the new one")
    page.select_option("#quote_stance", "supports")
    page.fill("#quote_note", "The report gives the new figure.")
    shot(page, "evidence-beside-claim")
    page.click("[data-quote-button]")
    wait_for_htmx_to_settle(page)

    page.wait_for_selector("#evidence .quotation:has-text('9.0 seconds with the new one')")
    evidence = claim.evidence.get(quotation__exact="9.0 seconds with the new one")
    assert evidence.note == "The report gives the new figure."
    # The reader stays open, the new quotation marked in its text.
    assert page.locator("#evidence-reader .quote-mark").count() == 1


def test_with_nothing_selected_attaching_says_so_and_keeps_the_note(
    browser, live_server, desk, report
):
    _editor, _reviewer, case = desk
    claim = Claim.objects.filter(case=case).order_by("number").first()
    page = new_page(browser)
    open_beside_claim(page, live_server.url, claim, report)
    drag_select(page, "467 seconds")
    page.fill("#quote_note", "Typed before the selection went.")
    page.evaluate("() => document.getSelection().removeAllRanges()")

    assert page.locator("[data-quote-button]").is_disabled()
    page.locator("[data-quote-button]").evaluate("button => button.disabled = false")
    page.click("[data-quote-button]")

    page.wait_for_selector("#evidence-reader [role=alert]:has-text('Nothing is selected')")
    assert page.input_value("#quote_note") == "Typed before the selection went."
    assert not claim.evidence.exists()


def test_the_keyboard_finds_the_words_and_attaches_the_passage(browser, live_server, desk, report):
    _editor, _reviewer, case = desk
    claim = Claim.objects.filter(case=case).order_by("number").first()
    page = new_page(browser)
    open_beside_claim(page, live_server.url, claim, report)

    page.focus("#evidence-find")
    page.keyboard.type("agent experiment now")
    page.wait_for_selector("#evidence-passages input[type=radio]")
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
    page.select_option("#quote_stance", "context")
    page.click("#evidence-passages button")

    page.wait_for_selector("#evidence .quotation:has-text('agent experiment now')")
    assert claim.evidence.get().quotation.exact == "agent experiment now"
