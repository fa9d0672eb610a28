"""
The whole journey in a real browser: Debian's Chromium driven by Playwright
against the app served by pytest-django's live server.

Skipped, with how to install it, when Chromium is missing outside CI; in CI a
missing browser fails the run.
"""

import tempfile
from pathlib import Path

import pytest

from tests.browser import *  # noqa: F403  (the browser fixtures and helpers)
from tests.browser import PASSWORD, log_in, new_page, select_in_reader, shot
from tests.factories import EditorFactory

# The live server's thread must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_claim_from_selection_to_published_correction(browser, live_server, desk):
    base = live_server.url
    editor_page = new_page(browser)
    log_in(editor_page, base, "eddie")
    shot(editor_page, "01-case-list")

    # A cited source gets its text, and the editor quotes it by selection.
    editor_page.goto(f"{base}/sources/")
    editor_page.click("text=Together Compiler: Continuous Compilation for AI inference")
    editor_page.fill(
        "#id_pasted_text",
        "Our persistent engine reduces the iteration step to 9.0 seconds: 1.7 seconds for "
        "RPC and compiler setup plus 7.3 seconds for CUDA-graph capture.",
    )
    editor_page.click("#upload-form button[type=submit]")
    editor_page.wait_for_selector("[data-quote-reader]")
    select_in_reader(editor_page, "reduces the iteration step to 9.0 seconds")
    editor_page.click("[data-quote-button]")
    editor_page.wait_for_selector(".quotation-list")
    shot(editor_page, "02-source-reader")

    # A claim from a sentence of the article.
    editor_page.goto(f"{base}/cases/three-numbers-one-announcement/")
    shot(editor_page, "03-case-page")
    select_in_reader(
        editor_page, "Together says the faster setup enables 252 times more agent experiments"
    )
    editor_page.fill("#id_statement", "The faster setup enables 252 times more agent experiments.")
    editor_page.fill("#id_claimant", "Together AI")
    editor_page.click("text=Make a claim of the selection")
    editor_page.wait_for_url("**/claims/**")
    claim_url = editor_page.url

    # Evidence, verdict, rationale, reviewer; then to review.
    editor_page.fill("#quotation-search", "9.0 sec")
    editor_page.click(".quotation-option")
    editor_page.select_option("#id_stance", "context")
    editor_page.click("#evidence button:text-is('Attach')")
    editor_page.wait_for_selector("#evidence-heading:text('Evidence (1)')")
    editor_page.select_option("#id_verdict", label="Unproven")
    editor_page.fill("#id_rationale", "The **252×** figure is Together's own comparison.")
    editor_page.click("#claim-fields button:text-is('Save')")
    editor_page.wait_for_selector("text=Claim saved.")
    editor_page.select_option("#id_reviewer", label="rosa")
    editor_page.click("#assignments button:text-is('Assign')")
    editor_page.wait_for_selector("#assignments .badge--pending")
    with editor_page.expect_navigation():
        editor_page.click("button[value=submit]")
    assert editor_page.inner_text(".page-header .badge") == "In review"
    shot(editor_page, "04-claim-editor")

    # The reviewer finds it in My reviews and approves exactly what is shown.
    reviewer_page = new_page(browser)
    log_in(reviewer_page, base, "rosa")
    reviewer_page.click("nav >> text=My reviews")
    shot(reviewer_page, "05-my-reviews")
    reviewer_page.click("table a")
    shot(reviewer_page, "06-review")
    reviewer_page.check("input[value=approved]")
    reviewer_page.click("text=Record decision")
    reviewer_page.wait_for_url(f"{base}/reviews/")

    # The editor publishes, then corrects the verdict through the desk.
    editor_page.goto(claim_url)
    with editor_page.expect_navigation():
        editor_page.click("button[value=publish]")
    assert editor_page.inner_text(".page-header .badge") == "Published"
    editor_page.click("text=Draft a correction")
    editor_page.fill("#id_what_was_wrong", "We rated it Unproven without the arithmetic.")
    editor_page.fill("#id_what_is_right", "The start-up figures give 51.9×, not 252×.")
    editor_page.select_option("#id_new_verdict", label="Misleading")
    editor_page.click("text=Save draft")
    reviewer_page.goto(f"{base}/desk/corrections/")
    reviewer_page.click("button:text-is('Approve')")
    editor_page.goto(f"{base}/desk/corrections/")
    editor_page.click("button:text-is('Publish')")
    editor_page.wait_for_selector("text=Correction published as entry 1.")

    # An anonymous reader sees the claim, its ClaimReview and the log entry.
    reader = new_page(browser)
    reader.goto(claim_url.replace("/cases/", "/published/"))
    assert "The verdict was Unproven and is now Misleading." in reader.inner_text(
        ".correction-notice"
    )
    markup = reader.inner_html("script[type='application/ld+json']")
    assert '"@type": "ClaimReview"' in markup
    shot(reader, "07-public-claim")
    reader.goto(f"{base}/corrections/")
    assert "The start-up figures give 51.9×, not 252×." in reader.inner_text(".corrections")
    assert "hash chain verifies" in reader.inner_text(".chain-status")
    shot(reader, "08-corrections-log")
    feed = reader.goto(f"{base}/corrections/feed/atom/")
    assert "51.9×" in feed.text()


def test_an_oversized_upload_shows_its_error_in_the_page(browser, live_server, desk, settings):
    settings.SOURCE_UPLOAD_MAX_BYTES = 1000
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}/sources/new/")
    page.fill("#id_title", "Too big")
    big = Path(tempfile.mkdtemp()) / "big.txt"
    big.write_bytes(b"a" * 1001)
    page.set_input_files("input[type=file]", str(big))
    page.click("text=Save source")

    page.wait_for_selector(".field__error")
    assert "over the limit" in page.inner_text(".dropzone")
    assert page.input_value("#id_title") == "Too big"


def test_two_editors_on_one_claim_see_the_conflict_view(browser, live_server, desk):
    _editor, _reviewer, case = desk
    EditorFactory(username="other", password=PASSWORD)
    claim = case.claims.first()
    url = f"{live_server.url}{claim.get_absolute_url()}"
    first, second = new_page(browser), new_page(browser)
    log_in(first, live_server.url, "eddie")
    log_in(second, live_server.url, "other")
    first.goto(url)
    second.goto(url)

    first.fill("#id_statement", "First editor's wording.")
    first.click("#claim-fields button:text-is('Save')")
    first.wait_for_selector("text=Claim saved.")
    second.fill("#id_statement", "Second editor's wording.")
    second.click("#claim-fields button:text-is('Save')")

    second.wait_for_selector(".conflict")
    conflict = second.inner_text(".conflict")
    assert "First editor's wording." in conflict
    assert "Second editor's wording." in conflict
    assert second.input_value("#id_statement") == "Second editor's wording."
