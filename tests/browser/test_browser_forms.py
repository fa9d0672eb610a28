"""Plain forms in the browser: a form sent twice at once makes its change once."""

import pytest
from django.urls import reverse
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from claims.models import Claim, ClaimStatus, Correction
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.factories import ClaimFlagFactory, QuotationFactory, flagged

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_plain_form_sent_again_while_it_is_being_sent_is_not_sent_twice(
    browser, live_server, desk
):
    _editor, _reviewer, case = desk
    claim = case.claims.first()
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at="2026-11-05T10:00:00Z"
    )
    base = live_server.url
    page = new_page(browser)  # noqa: F405
    log_in(page, base, "eddie")  # noqa: F405
    page.goto(f"{base}/desk/corrections/")
    page.select_option("#id_case", value=str(case.pk))
    page.fill("#id_what_was_wrong", "We said 467 seconds.")
    page.fill("#id_what_is_right", "The parts add up to 460 seconds.")

    # Two submits before the browser has left the page (a double click, or Enter
    # pressed twice): the second is cancelled, the first goes.
    cancelled = page.evaluate(
        """() => {
            const form = document.querySelector("#id_what_was_wrong").form;
            const submit = () => {
                const event = new SubmitEvent("submit", {bubbles: true, cancelable: true});
                form.dispatchEvent(event);
                return event.defaultPrevented;
            };
            return [submit(), submit()];
        }"""
    )
    assert cancelled == [False, True]

    # Sent for real, from the page opened again: one draft.
    page.goto(f"{base}/desk/corrections/")
    page.select_option("#id_case", value=str(case.pk))
    page.fill("#id_what_was_wrong", "We said 467 seconds.")
    page.fill("#id_what_is_right", "The parts add up to 460 seconds.")
    with page.expect_navigation():
        page.click("text=Save draft")
    expect(page.locator(".messages")).to_contain_text("draft")
    assert Correction.objects.count() == 1


def focus_in_the_form(page):
    """Wait for the focus in the claim's redrawn form: focus.js moves it once the swap settles."""
    try:
        # A function, not an expression: the page's CSP forbids evaluating a string in it.
        page.wait_for_function(
            "() => document.getElementById('claim-fields').contains(document.activeElement)",
            timeout=3000,
        )
    except PlaywrightTimeoutError:
        pytest.fail(
            page.evaluate("'Focus is on ' + document.activeElement.outerHTML.slice(0, 120)")
        )


def editor_on_a_flagged_claim(browser, live_server, desk):
    """``(page, claim)``: an editor's page open on a claim of the desk's case, flagged."""
    _editor, _reviewer, case = desk
    claim = case.claims.first()
    ClaimFlagFactory(claim=claim, note="The evidence's words are gone.")
    page = new_page(browser)  # noqa: F405
    log_in(page, live_server.url, "eddie")  # noqa: F405
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    return page, claim


def test_a_flag_clear_refused_from_the_keyboard_leaves_the_focus_in_the_redrawn_form(
    browser, live_server, desk
):
    # The button is in the claim's header, which the refusal redraws out of band
    # beside the edit form: the focus must not fall back to the top of the page.
    page, claim = editor_on_a_flagged_claim(browser, live_server, desk)
    page.fill("#id_claimant", "Typed and not saved yet")

    page.get_by_role("button", name="Dealt with: clear the flag").focus()
    page.keyboard.press("Enter")

    expect(page.locator("#claim-fields")).to_contain_text("not saved")
    expect(page.locator("#id_claimant")).to_have_value("Typed and not saved yet")
    focus_in_the_form(page)
    assert flagged(claim) == "The evidence's words are gone."


def test_a_flag_cleared_from_the_keyboard_leaves_the_focus_on_its_message(
    browser, live_server, desk
):
    page, claim = editor_on_a_flagged_claim(browser, live_server, desk)

    page.get_by_role("button", name="Dealt with: clear the flag").focus()
    page.keyboard.press("Enter")

    message = page.locator("#claim-fields .messages")
    expect(message).to_contain_text("The review flag is cleared")
    expect(page.locator("#claim-header")).not_to_contain_text("Needs review")
    expect(page.locator("#history")).to_contain_text("cleared its review flag")
    focus_in_the_form(page)
    assert flagged(claim) == ""


def test_enter_in_the_evidence_search_lists_the_matches_and_attaches_nothing(
    browser, live_server, desk
):
    _editor, _reviewer, case = desk
    claim = case.claims.first()
    QuotationFactory(version__text="The step took 9.0 seconds after.", exact="9.0 seconds after")
    evidence = claim.evidence.count()
    page = new_page(browser)  # noqa: F405
    log_in(page, live_server.url, "eddie")  # noqa: F405
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    sent = []
    page.on("request", lambda request: sent.append((request.method, request.url)))
    search_url = reverse("claims:quotation_search", args=[case.slug, claim.pk])

    page.locator("#quotation-search").press_sequentially("9.0 sec")
    page.keyboard.press("Enter")

    expect(page.locator("#quotation-results")).to_contain_text("9.0 seconds after")
    expect(page.locator("#evidence")).not_to_contain_text("Pick a quotation")
    assert page.evaluate("document.activeElement.id") == "quotation-search"
    page.wait_for_timeout(600)
    # One search, for the words typed; nothing sent to the Attach form.
    assert [method for method, address in sent if search_url in address] == ["GET"]
    assert [address for method, address in sent if method == "POST"] == []
    assert claim.evidence.count() == evidence
