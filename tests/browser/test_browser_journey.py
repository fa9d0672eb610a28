"""
The whole journey in a real browser: Debian's Chromium driven by Playwright
against the app served by pytest-django's live server. One scenario walks it
from upload to the public corrections log; the smaller tests below pin down
its steps one at a time, including the keyboard-only paths.

Skipped, with how to install it, when Chromium is missing outside CI; in CI a
missing browser fails the run.
"""

import os
import re
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils.timezone import now
from playwright.sync_api import expect

from claims.corrections import correction_draft
from claims.models import Claim, ClaimStatus, Correction, Rating
from claims.services import case_create, claim_submit_for_review, claim_update, reviewer_assign
from factcheck.demo import DEMO_PASSWORD, ensure_demo_users
from sources.highlighting import READER_PART_CHARS
from sources.models import Source, SourceRole
from sources.services import source_version_create_from_text
from tests import sample_files
from tests.browser.support import *  # noqa: F403  (the browser fixtures and helpers)
from tests.browser.support import (
    PASSWORD,
    PHONE,
    drag_select,
    log_in,
    new_page,
    select_in_reader,
    shot,
    wait_for_htmx_to_settle,
)
from tests.factories import EditorFactory, EvidenceFactory, SourceFactory
from tests.migrated_rows import restore_data_migrations

# The live server's thread must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

# Extraction waits for a real worker, as under `make run`, so the page can be
# seen picking up the result by itself.
DATABASE_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# Where the journey's screenshots go besides test-artifacts/: `make screenshots`
# points this at docs/screenshots to refresh the README's pictures.
DOCS_SCREENSHOTS = os.environ.get("FACTCHECK_SCREENSHOTS")

ANNOUNCEMENT = (
    "Our persistent engine reduces the iteration step to 9.0 seconds: 1.7 seconds for RPC "
    "and compiler setup plus 7.3 seconds for CUDA-graph capture."
)
ARTICLE_SENTENCE = "Together says the faster setup enables 252 times more agent experiments"
#: The demo's correction: the 252× counts experiments against other systems, which the
#: start-up figures (a 51.9× faster step) neither give nor check.
CLARIFIED = (
    "Together's 252× compares agent experiments with baseline agentic optimization "
    "systems: the company's own comparison, not an independently verified result."
)


def picture(page, name):
    """The key page at the desktop size and at a phone's, for the walkthrough."""
    page.evaluate("() => window.scrollTo(0, 0)")
    shot(page, f"{name}-desktop")
    desktop = page.viewport_size
    page.set_viewport_size(PHONE)
    shot(page, f"{name}-phone")
    if DOCS_SCREENSHOTS:
        page.screenshot(path=str(Path(DOCS_SCREENSHOTS) / f"{name}-phone.png"))
    page.set_viewport_size(desktop)
    if DOCS_SCREENSHOTS:
        page.screenshot(path=str(Path(DOCS_SCREENSHOTS) / f"{name}-desktop.png"))


def tab_to(page, selector, presses=250):
    """Press Tab until the focus is on `selector`: proof it is reachable without a mouse."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        # Between two documents (a form that navigates) there is no active element.
        if page.evaluate("(s) => document.activeElement?.matches(s) === true", selector):
            return
    raise AssertionError(f"{selector} cannot be reached with the Tab key")


def mark_document(page):
    """Tag the loaded document; a reload or a navigation would lose the tag."""
    page.evaluate("() => { window.__sameDocument = true; }")


def still_same_document(page):
    return page.evaluate("() => window.__sameDocument === true")


def run_worker():
    call_command("db_worker", "--batch", "--no-startup-delay", "--queue-name", "*")


def upload_and_extract_sources(page, base):
    """
    A PDF as the first version of a cited source, and an HTML page as a new
    source; both wait for the worker, and each page shows the text arriving.
    """
    page.goto(f"{base}/sources/")
    page.click("text=Together Compiler: Continuous Compilation for AI inference")
    folder = Path(tempfile.mkdtemp())
    pdf = folder / "together-compiler.pdf"
    pdf.write_bytes(sample_files.make_text_pdf([ANNOUNCEMENT, "Second page: the benchmarks."]))
    page.set_input_files("#upload-form input[type=file]", str(pdf))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#version-panel .badge--pending")
    pdf_source_url = page.url
    mark_document(page)
    run_worker()
    page.wait_for_selector("#version-panel .badge--ready")
    page.wait_for_selector("[data-quote-reader] >> text=reduces the iteration step")
    page.wait_for_selector("#quote-finder #finder-heading")
    assert still_same_document(page), "the page reloaded to show the extracted text"

    page.goto(f"{base}/sources/new/")
    page.fill("#id_title", "Council library spending, March budget")
    page.fill("#id_publisher", "City Council")
    html = folder / "budget.html"
    html.write_bytes(sample_files.make_html())
    page.set_input_files("input[type=file]", str(html))
    page.click("text=Save source")
    page.wait_for_selector("#version-panel .badge--pending")
    mark_document(page)
    run_worker()
    page.wait_for_selector("#version-panel .badge--ready")
    page.wait_for_selector("[data-quote-reader] >> text=once the one-off building grant")
    assert still_same_document(page), "the page reloaded to show the extracted text"
    reader_text = page.inner_text("[data-quote-reader]")
    assert "stealCookies" not in reader_text and "evilHandler" not in reader_text
    return pdf_source_url


@override_settings(TASKS=DATABASE_TASKS)
def claim_in_review(case, *, editor, reviewer):
    """The case's first claim with a verdict and evidence, sent to `reviewer`."""
    claim = case.claims.order_by("pk").first()
    claim.verdict = Rating.objects.get(label="Unproven")
    claim.save(update_fields=["verdict"])
    EvidenceFactory(claim=claim)
    reviewer_assign(claim=claim, reviewer=reviewer, editor=editor)
    claim_submit_for_review(claim=claim, editor=editor)
    return claim


@override_settings(TASKS=DATABASE_TASKS)
def test_the_whole_journey_from_upload_to_the_public_corrections_log(browser, live_server):
    restore_data_migrations()
    with override_settings(DEBUG=True):  # demo users exist only in development
        ensure_demo_users()
    call_command("seed_first_case", verbosity=0)
    base = live_server.url

    editor = new_page(browser)
    log_in(editor, base, "editor", DEMO_PASSWORD)
    picture(editor, "01-case-list")

    # Sources: a PDF and an HTML page, extracted by the worker while the pages wait.
    pdf_source_url = upload_and_extract_sources(editor, base)
    editor.goto(pdf_source_url)
    drag_select(editor, "reduces the iteration step to 9.0 seconds")
    editor.click("[data-quote-button]")
    editor.wait_for_selector(".quotation-list >> text=reduces the iteration step to 9.0 seconds")
    picture(editor, "02-source-reader")

    # The first case: a claim made by selecting a sentence of the article.
    editor.goto(f"{base}/cases/")
    editor.click("text=Three numbers, one announcement")
    drag_select(editor, ARTICLE_SENTENCE)
    editor.fill("#id_statement", "The faster setup enables 252 times more agent experiments.")
    editor.fill("#id_claimant", "Together AI")
    picture(editor, "03-case-page")
    editor.click("text=Make a claim of the selection")
    editor.wait_for_url("**/claims/**")
    claim_url = editor.url

    # Evidence, verdict, rationale and a reviewer; then to review.
    editor.fill("#quotation-search", "9.0 sec")
    editor.click(".quotation-option")
    editor.select_option("#id_stance", "context")
    editor.click("#evidence button:text-is('Attach')")
    editor.wait_for_selector("#evidence-heading:text('Evidence (1)')")
    editor.select_option("#id_verdict", label="Unproven")
    editor.fill("#id_rationale", "The **252×** figure is Together's own comparison.")
    editor.click("#claim-fields button:text-is('Save')")
    editor.wait_for_selector("text=Claim saved.")
    editor.select_option("#id_reviewer", label="Rosa Reviewer (reviewer)")
    editor.click("#assignments button:text-is('Assign')")
    editor.wait_for_selector("#assignments .badge--pending")
    with editor.expect_navigation():
        editor.click("button[value=submit]")
    assert editor.inner_text(".page-header .badge") == "In review"
    picture(editor, "04-claim-editor")

    # The reviewer asks for changes, with a comment.
    reviewer = new_page(browser)
    log_in(reviewer, base, "reviewer", DEMO_PASSWORD)
    reviewer.click("nav >> text=My reviews")
    picture(reviewer, "05-my-reviews")
    reviewer.click("table a")
    reviewer.check("input[value=changes_requested]")
    reviewer.fill(
        "#id_comment",
        "Say what the 252× compares, and what the start-up figures (467 s and 9.0 s) show.",
    )
    picture(reviewer, "06-review")
    reviewer.click("text=Record decision")
    reviewer.wait_for_url(f"{base}/reviews/")

    # The editor sees the comment, edits, and sends it back.
    editor.goto(claim_url)
    assert editor.inner_text(".page-header .badge") == "Changes requested"
    assert "Say what the 252× compares" in editor.inner_text("#comments")
    editor.fill(
        "#id_rationale",
        "The **252×** figure is Together's own comparison of agent experiments with other "
        "systems. Its start-up figures give a 51.9× faster step (467 s against 9.0 s): "
        "a different measure, which does not bear the 252× out.",
    )
    editor.click("#claim-fields button:text-is('Save')")
    editor.wait_for_selector("text=Claim saved.")
    with editor.expect_navigation():
        editor.click("button[value=submit]")
    assert editor.inner_text(".page-header .badge") == "In review"

    # The reviewer approves exactly what is shown; an editor who did not write the
    # claim publishes it (its author is offered no Publish button).
    reviewer.goto(f"{base}/reviews/")
    reviewer.click("table a")
    assert "51.9×" in reviewer.inner_text("main")
    reviewer.check("input[value=approved]")
    reviewer.click("text=Record decision")
    reviewer.wait_for_url(f"{base}/reviews/")
    editor.goto(claim_url)
    assert editor.locator("button[value=publish]").count() == 0
    publisher = new_page(browser)
    log_in(publisher, base, "editor2", DEMO_PASSWORD)
    publisher.goto(claim_url)
    with publisher.expect_navigation():
        publisher.click("button[value=publish]")
    assert publisher.inner_text(".page-header .badge") == "Published"
    editor.goto(claim_url)

    # A correction: drafted by the editor, approved by the reviewer, published.
    editor.click("text=Draft a correction")
    editor.select_option("#id_kind", "clarification")
    editor.fill("#id_what_was_wrong", "Our rationale did not name what the 252× is compared with.")
    editor.fill("#id_what_is_right", CLARIFIED)
    editor.click("text=Save draft")
    reviewer.goto(f"{base}/desk/corrections/")
    with reviewer.expect_navigation():
        reviewer.click("button:text-is('Approve')")
    editor.goto(f"{base}/desk/corrections/")
    editor.click("button:text-is('Publish')")
    editor.wait_for_selector("text=Clarification published as entry 1.")

    # An anonymous reader: the claim, its ClaimReview markup, the log and the feed.
    reader = new_page(browser)
    reader.goto(claim_url.replace("/cases/", "/published/"))
    notice = reader.inner_text(".correction-notice")
    assert "Clarification" in notice and CLARIFIED in notice
    markup = reader.inner_html("script[type='application/ld+json']")
    assert '"@type": "ClaimReview"' in markup
    assert '"alternateName": "Unproven"' in markup
    picture(reader, "07-public-claim")
    reader.goto(f"{base}/published/three-numbers-one-announcement/")
    assert "The faster setup enables 252 times more agent experiments." in reader.inner_text("main")
    picture(reader, "08-public-case")
    reader.goto(f"{base}/corrections/")
    assert CLARIFIED in reader.inner_text(".corrections")
    assert "hash chain verifies" in reader.inner_text(".chain-status")
    picture(reader, "09-corrections-log")
    feed = reader.goto(f"{base}/corrections/feed/atom/")
    assert "baseline agentic optimization systems" in feed.text()


@override_settings(TASKS=DATABASE_TASKS)
def test_uploaded_pdf_and_html_show_their_text_without_a_reload(browser, live_server, desk):
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")

    upload_and_extract_sources(page, live_server.url)

    assert Source.objects.get(title="Council library spending, March budget").latest_version


def test_a_mouse_selection_in_the_reader_becomes_a_quotation(browser, live_server, desk):
    editor, _reviewer, _case = desk
    source = Source.objects.get(title="Together Compiler: Continuous Compilation for AI inference")
    source_version_create_from_text(source=source, text=ANNOUNCEMENT, actor=editor)
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{source.get_absolute_url()}")

    drag_select(page, "1.7 seconds for RPC")
    assert "1.7 seconds for RPC" in page.inner_text("[data-quote-preview]")
    page.click("[data-quote-button]")

    page.wait_for_selector(".quotation-list >> text=1.7 seconds for RPC")
    quotation = source.latest_version.quotations.get()
    assert quotation.exact == "1.7 seconds for RPC"
    assert ANNOUNCEMENT[quotation.start : quotation.end] == quotation.exact


def select_from_a_claims_number(page, characters):
    """
    Select from inside the first claim's number in the case reader to
    ``characters`` into its marked passage; the passage's offsets in the text.
    """
    return page.evaluate(
        """(characters) => {
          const number = document.querySelector('[data-quote-reader] a.claim-ref');
          const reader = document.querySelector('[data-quote-reader]');
          const segments = Array.from(reader.querySelectorAll('[data-start]'));
          const passage = segments.find(
            (segment) => number.compareDocumentPosition(segment) & Node.DOCUMENT_POSITION_FOLLOWING
          );
          const walker = document.createTreeWalker(passage, NodeFilter.SHOW_TEXT);
          const text = walker.nextNode();
          const range = document.createRange();
          range.setStart(number.firstChild, 0);
          range.setEnd(text, characters);
          const selection = document.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          return [Number(passage.dataset.start), text.data.slice(0, characters)];
        }""",
        characters,
    )


def test_a_selection_starting_on_a_claims_number_quotes_the_text_after_it(
    browser, live_server, desk
):
    _editor, _reviewer, case = desk
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{case.get_absolute_url()}")
    select_in_reader(page, "Together")  # an earlier selection, captured first
    assert "Together" in page.inner_text("[data-quote-preview]")

    start, words = select_from_a_claims_number(page, 12)

    assert page.input_value("[data-quote-start]") == str(start)
    assert page.input_value("[data-quote-end]") == str(start + 12)
    assert page.input_value("[data-quote-text]") == words
    assert words in page.inner_text("[data-quote-preview]")

    page.evaluate(
        """() => {
          const number = document.querySelector('[data-quote-reader] a.claim-ref');
          const range = document.createRange();
          range.selectNodeContents(number);
          document.getSelection().removeAllRanges();
          document.getSelection().addRange(range);
        }"""
    )
    page.wait_for_function("() => document.querySelector('[data-quote-button]').disabled")
    assert page.input_value("[data-quote-start]") == ""
    assert "none of the piece's text" in page.inner_text("[data-quote-preview]")


def three_parts_of(sentence):
    """A text read in three parts: 900 paragraphs, each ``sentence`` with its number, padded."""
    return "\n".join(sentence.format(number=number) + " filler" * 40 for number in range(900))


def open_second_part(page, url):
    """Open the long text at ``url`` on its first part, then follow the link to the second."""
    page.goto(url)
    assert "Part 1 of 3" in page.inner_text(".part-nav")
    page.click(".part-nav a[rel=next]")
    page.wait_for_url("**?at=*")
    assert "Part 2 of 3" in page.inner_text(".part-nav")


def test_a_long_source_is_read_part_by_part_and_quoted_in_a_later_part(browser, live_server, desk):
    editor, _reviewer, _case = desk
    source = Source.objects.get(title="Together Compiler: Continuous Compilation for AI inference")
    text = three_parts_of("Paragraph {number}: the engine served {number} requests.")
    source_version_create_from_text(source=source, text=text, actor=editor)
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    open_second_part(page, f"{live_server.url}{source.get_absolute_url()}")
    drag_select(page, "the engine served 450 requests")
    reading_at = page.evaluate("() => window.scrollY")
    page.click("[data-quote-button]")

    page.wait_for_selector(".quotation-list >> text=the engine served 450 requests")
    assert "Part 2 of 3" in page.inner_text(".part-nav")  # still reading the same part
    # The confirmation takes the focus, and the reader stays where they were reading.
    page.wait_for_function("() => document.activeElement.textContent.startsWith('Quoted')")
    assert abs(page.evaluate("() => window.scrollY") - reading_at) < 200
    quotation = source.latest_version.quotations.get()
    assert text[quotation.start : quotation.end] == "the engine served 450 requests"


def test_a_passage_across_the_break_between_two_parts_is_quoted_whole(browser, live_server, desk):
    editor, _reviewer, _case = desk
    source = Source.objects.get(title="Together Compiler: Continuous Compilation for AI inference")
    text = three_parts_of("Paragraph {number}: the engine served {number} requests.")
    source_version_create_from_text(source=source, text=text, actor=editor)
    # The second part begins with the first paragraph a whole part's length in.
    paragraph_starts = [0] + [at + 1 for at, char in enumerate(text) if char == "\n"]
    second = next(n for n, at in enumerate(paragraph_starts) if at >= READER_PART_CHARS)
    before, after = f"the engine served {second - 1} requests", f"Paragraph {second}: the engine"
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{source.get_absolute_url()}")
    assert "Part 1 of 3" in page.inner_text(".part-nav")

    drag_select(page, before, after)
    page.click("[data-quote-button]")

    page.wait_for_selector(f".quotation-list >> text={before}")
    quotation = source.latest_version.quotations.get()
    assert quotation.exact == text[text.index(before) : text.index(after) + len(after)]
    assert quotation.start < paragraph_starts[second] < quotation.end


def test_a_claim_is_made_in_a_later_part_of_a_long_piece(browser, live_server, desk):
    editor, _reviewer, _case = desk
    text = three_parts_of("Paragraph {number}: the minister promised {number} buses.")
    case = case_create(
        actor=editor,
        title="A long speech",
        slug="a-long-speech",
        source_under_check=SourceFactory(title="The long speech", role=SourceRole.UNDER_CHECK),
        lead_editor=editor,
    )
    source_version_create_from_text(source=case.source_under_check, text=text, actor=editor)
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    open_second_part(page, f"{live_server.url}{case.get_absolute_url()}")
    drag_select(page, "the minister promised 450 buses")
    page.fill("#id_statement", "The minister promised 450 buses.")
    page.click("text=Make a claim of the selection")
    page.wait_for_url("**/claims/**")

    claim = case.claims.get()
    assert text[claim.quotation.start : claim.quotation.end] == "the minister promised 450 buses"
    page.goto(f"{live_server.url}{case.get_absolute_url()}?at={claim.quotation.start}")
    expect(page.locator(".reader__text a.claim-ref")).to_have_count(1)


def test_a_claim_is_made_with_the_keyboard_alone(browser, live_server, desk):
    _editor, _reviewer, case = desk
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{case.get_absolute_url()}")

    tab_to(page, ".passage-finder > summary")
    page.keyboard.press("Enter")
    tab_to(page, "#id_passage")
    page.keyboard.type(ARTICLE_SENTENCE)
    page.wait_for_selector("#passage-results >> text=Make a claim of this passage")
    tab_to(page, "#passage-results button")
    page.keyboard.press("Enter")
    expect(page.locator("#id_statement")).to_be_focused()
    assert ARTICLE_SENTENCE[:40] in page.inner_text("[data-quote-preview]")
    page.keyboard.type("The faster setup enables 252 times more agent experiments.")
    page.keyboard.press("Tab")
    page.keyboard.type("Together AI")
    tab_to(page, "[data-quote-button]")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    claim = Claim.objects.get(
        statement="The faster setup enables 252 times more agent experiments."
    )
    assert claim.quotation.exact == ARTICLE_SENTENCE
    assert claim.claimant == "Together AI"
    assert page.url.endswith(claim.get_absolute_url())


def test_picking_a_found_passage_keeps_the_statement_already_typed(browser, live_server, desk):
    _editor, _reviewer, case = desk
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{case.get_absolute_url()}")
    page.fill("#id_statement", "Typed before the passage was found.")
    page.fill("#id_claimant", "Together AI")

    page.click(".passage-finder > summary")
    page.fill("#id_passage", ARTICLE_SENTENCE)
    page.click("#passage-results button")
    page.wait_for_function(
        "(words) => document.querySelector('[data-quote-preview]').textContent.includes(words)",
        arg=ARTICLE_SENTENCE[:40],
    )

    assert page.input_value("#id_statement") == "Typed before the passage was found."
    assert page.input_value("#id_claimant") == "Together AI"


def test_a_review_is_decided_with_the_keyboard_alone(browser, live_server, desk):
    editor, reviewer, case = desk
    claim = claim_in_review(case, editor=editor, reviewer=reviewer)
    page = new_page(browser)
    log_in(page, live_server.url, "rosa")

    tab_to(page, "nav a[href='/reviews/']")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    tab_to(page, "table a")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    tab_to(page, "input[name=decision]")
    # Arrow keys move through a radio group; the first is "Approve".
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    assert page.is_checked("input[value=approved]")
    tab_to(page, "#id_comment")
    page.keyboard.type("Checked against the announcement.")
    tab_to(page, "main button.button--primary[type=submit]")
    with page.expect_navigation():
        page.keyboard.press("Enter")

    claim.refresh_from_db()
    assert claim.status == ClaimStatus.APPROVED
    assert claim.comments.get().body == "Checked against the announcement."


def test_requested_changes_reach_the_editor_with_the_comment(browser, live_server, desk):
    editor, reviewer, case = desk
    claim = claim_in_review(case, editor=editor, reviewer=reviewer)
    page = new_page(browser)
    log_in(page, live_server.url, "rosa")
    page.goto(f"{live_server.url}/reviews/")
    page.click("table a")

    page.check("input[value=changes_requested]")
    page.click("text=Record decision")
    page.wait_for_selector(".field__error")
    assert page.url.endswith(f"/reviews/{claim.assignments.get().pk}/")
    page.fill("#id_comment", "Which version of the announcement is this?")
    page.click("text=Record decision")
    page.wait_for_url(f"{live_server.url}/reviews/")

    editor_page = new_page(browser)
    log_in(editor_page, live_server.url, "eddie")
    editor_page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    assert editor_page.inner_text(".page-header .badge") == "Changes requested"
    assert "Which version of the announcement is this?" in editor_page.inner_text("#comments")


def test_an_oversized_upload_shows_its_error_in_the_page(browser, live_server, desk, settings):
    settings.SOURCE_UPLOAD_MAX_BYTES = 1000
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}/sources/new/")
    page.fill("#id_title", "Too big")
    big = Path(tempfile.mkdtemp()) / "big.txt"
    big.write_bytes(b"a" * 1001)
    # The server's own check, as a browser that does not check the size first meets it.
    page.eval_on_selector("input[type=file]", "input => delete input.dataset.maxBytes")
    page.set_input_files("input[type=file]", str(big))
    page.click("text=Save source")

    page.wait_for_selector("[role=alert] .field__error")
    assert "over the limit" in page.inner_text(".dropzone")
    assert page.input_value("#id_title") == "Too big"
    assert not Source.objects.filter(title="Too big").exists()

    # The refusal was of that file: choosing another takes it away.
    file_input = page.locator("input[type=file]")
    expect(file_input).to_have_attribute("aria-invalid", "true")
    page.set_input_files(
        "input[type=file]",
        files=[{"name": "small.txt", "mimeType": "text/plain", "buffer": b"Small enough."}],
    )
    expect(page.locator("[data-dropzone-chosen]")).to_contain_text("Chosen: small.txt")
    expect(page.locator(".dropzone")).not_to_contain_text("over the limit")
    expect(page.locator(".dropzone")).not_to_have_class(re.compile("field--error"))
    expect(file_input).not_to_have_attribute("aria-invalid", "true")
    expect(file_input).to_have_accessible_description(re.compile(r"^(?!.*over the limit)"))


def test_a_file_over_the_limit_is_refused_by_the_browser_before_it_is_sent(
    browser, live_server, desk, settings
):
    settings.SOURCE_UPLOAD_MAX_BYTES = 2 * 1024 * 1024
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}/sources/new/")
    page.fill("#id_title", "Too big")
    sent = []
    page.on("request", lambda request: sent.append(request) if request.method == "POST" else None)
    too_big = b"a" * (3 * 1024 * 1024)
    page.set_input_files(
        "input[type=file]", files=[{"name": "big.txt", "mimeType": "text/plain", "buffer": too_big}]
    )

    refusal = "The file is 3.0 MB, over the limit of 2.0 MB."
    expect(page.locator("[data-dropzone-chosen]")).to_contain_text(refusal)
    file_input = page.locator("input[type=file]")
    expect(file_input).to_have_attribute("aria-invalid", "true")
    expect(file_input).to_have_accessible_description(re.compile(re.escape(refusal)))
    page.click("text=Save source")
    assert refusal in page.eval_on_selector("input[type=file]", "input => input.validationMessage")
    page.wait_for_timeout(500)
    assert sent == []
    assert not Source.objects.filter(title="Too big").exists()

    # A file within the limit chosen instead goes.
    page.set_input_files(
        "input[type=file]",
        files=[{"name": "small.txt", "mimeType": "text/plain", "buffer": b"Small enough."}],
    )
    expect(page.locator("[data-dropzone-chosen]")).to_contain_text("Chosen: small.txt")
    expect(file_input).not_to_have_attribute("aria-invalid", "true")
    page.click("text=Save source")
    page.wait_for_url("**/sources/*/")
    expect(page.locator("h1")).to_have_text("Too big")


def test_a_pasted_text_over_the_form_limit_is_refused_in_the_page_and_stays_in_the_field(
    browser, live_server, desk, settings
):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 20_000
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}/sources/new/")
    page.fill("#id_title", "Too long to paste")
    pasted = "A long pasted article. " * 1000
    page.fill("#id_pasted_text", pasted)
    page.click("text=Save source")

    page.wait_for_selector("#request-error:not([hidden])")
    assert "the most a form can carry" in page.inner_text("#request-error")
    assert page.get_attribute("#request-error", "role") == "alert"
    assert page.input_value("#id_pasted_text") == pasted
    assert page.input_value("#id_title") == "Too long to paste"
    assert not Source.objects.filter(title="Too long to paste").exists()


def take_the_editor_role_away(page, editor):
    editor.groups.clear()  # by an administrator, while the page is open


def end_the_session(page, editor):
    page.context.clear_cookies(name="sessionid")  # logged out in another tab, or expired


@pytest.mark.parametrize(
    "meanwhile, said",
    [
        (take_the_editor_role_away, "You are not allowed to do that."),
        (end_the_session, "Your session has ended"),
    ],
)
def test_a_save_refused_without_a_part_to_swap_says_why_and_keeps_the_text(
    browser, live_server, desk, meanwhile, said
):
    editor, _reviewer, case = desk
    claim = case.claims.order_by("pk").first()
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    page.fill("#id_rationale", "My unsaved rationale.")
    meanwhile(page, editor)
    page.click("#claim-edit-form button[type=submit]")

    page.wait_for_selector("#request-error:not([hidden])")
    assert said in page.inner_text("#request-error")
    assert page.input_value("#id_rationale") == "My unsaved rationale."
    assert page.locator("#claim-fields #id_username").count() == 0  # no login form inside
    claim.refresh_from_db()
    assert claim.rationale != "My unsaved rationale."


def press_and_answer(page, button, *, accept):
    """Press ``button`` and answer the question it asks; the questions asked."""
    questions = []

    def answer(dialog):
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", answer)
    page.click(button)
    return questions


def test_withdrawing_a_claim_asks_first(browser, live_server, desk):
    _editor, _reviewer, case = desk
    claim = case.claims.filter(status=ClaimStatus.DRAFT).order_by("pk").first()
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")

    questions = press_and_answer(page, "button[value=withdraw]", accept=False)
    wait_for_htmx_to_settle(page)
    assert questions == ["Withdraw this claim? A withdrawn claim cannot be brought back."]
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT

    press_and_answer(page, "button[value=withdraw]", accept=True)
    page.wait_for_selector("text=the claim is now withdrawn")
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.WITHDRAWN


def editor_on_a_draft_declining_every_question(browser, live_server, desk):
    """
    ``(page, claim, questions)``: the desk editor's page open on a draft claim,
    where every question the page asks (a confirm dialog) is answered no and
    recorded in ``questions``.
    """
    _editor, _reviewer, case = desk
    claim = case.claims.filter(status=ClaimStatus.DRAFT).order_by("pk").first()
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    questions = []
    page.on("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    return page, claim, questions


def test_withdrawing_with_unsaved_changes_says_to_save_them_instead_of_asking(
    browser, live_server, desk
):
    page, claim, questions = editor_on_a_draft_declining_every_question(browser, live_server, desk)

    page.fill("#id_statement", "A wording not saved yet.")
    page.click("button[value=withdraw]")

    warning = page.wait_for_selector("[data-unsaved-warning]")
    assert "not saved, so nothing was done" in warning.inner_text()
    assert "press “Withdraw” again" in warning.inner_text()
    assert page.evaluate("document.activeElement.hasAttribute('data-unsaved-warning')")
    assert questions == []
    assert page.input_value("#id_statement") == "A wording not saved yet."
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT

    page.click("#claim-fields button:text-is('Save')")
    page.wait_for_selector("text=Claim saved.")
    page.click("button[value=withdraw]")
    page.wait_for_function("() => document.querySelector('[data-unsaved-warning]') === null")
    assert questions == ["Withdraw this claim? A withdrawn claim cannot be brought back."]
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT


def test_a_form_given_back_after_a_conflict_stops_a_withdrawal_until_it_matches_the_saved_claim(
    browser, live_server, desk
):
    editor, _reviewer, _case = desk
    page, claim, questions = editor_on_a_draft_declining_every_question(browser, live_server, desk)

    page.fill("#id_statement", "My wording.")
    # Someone else saves first: the form comes back with my wording, not saved.
    claim_update(
        claim=claim, editor=editor, expected_version=claim.version, claimant="Their claimant"
    )
    saved_statement = claim.statement
    page.click("#claim-fields button:text-is('Save')")
    page.wait_for_selector("text=You saved this claim at")
    assert page.input_value("#id_statement") == "My wording."
    page.click("button[value=withdraw]")

    page.wait_for_selector("[data-unsaved-warning]")
    assert questions == []
    assert Claim.objects.get(pk=claim.pk).status == ClaimStatus.DRAFT

    # Put back as saved, the form holds nothing unsaved: Withdraw asks, the warning goes.
    page.fill("#id_statement", saved_statement)
    page.click("button[value=withdraw]")
    page.wait_for_function("() => document.querySelector('[data-unsaved-warning]') === null")
    assert questions == ["Withdraw this claim? A withdrawn claim cannot be brought back."]


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
    claim.refresh_from_db()
    assert claim.statement == "First editor's wording."


def test_the_claim_list_pages_in_place_with_the_keyboard(browser, live_server, desk):
    _editor, _reviewer, case = desk
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{case.get_absolute_url()}")
    page.evaluate("window.scrollMarker = 'same document'")

    following = page.locator("#claim-list .pagination a[rel=next]")
    following.focus()
    expect(following).to_be_focused()
    with page.expect_response(lambda response: "page=2" in response.url):
        page.keyboard.press("Enter")
    expect(page.locator("#claim-list-range")).to_be_focused()

    assert page.evaluate("window.scrollMarker") == "same document"  # swapped, not reloaded
    assert page.url.endswith("?page=2")
    assert "Claims 51–60 of 60" in page.inner_text("#claim-list-range")
    assert page.locator("#claim-list .claim").count() == 10
    # The piece still marks every claim.
    assert page.locator(".reader__text .claim-ref").count() == 60

    # The next press waits for the swap to settle: a link pressed mid-settle is
    # one htmx has not taken over yet.
    wait_for_htmx_to_settle(page)
    previous = page.locator("#claim-list .pagination a[rel=prev]")
    previous.focus()
    expect(previous).to_be_focused()
    with page.expect_response(lambda response: "page=1" in response.url):
        page.keyboard.press("Enter")
    expect(page.locator("#claim-list .claim")).to_have_count(50)


def test_saving_a_claim_from_the_keyboard_leaves_the_focus_where_the_answer_is(
    browser, live_server, desk
):
    _editor, _reviewer, case = desk
    claim = case.claims.first()
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    save = "#claim-fields button:text-is('Save')"

    page.fill("#id_statement", "")
    page.focus(save)
    page.keyboard.press("Enter")
    # The swap replaced the pressed button: the field to fix takes the focus, not <body>.
    expect(page.locator("#id_statement")).to_be_focused()

    page.keyboard.type("A wording typed after the refusal.")
    page.focus(save)
    page.keyboard.press("Enter")
    expect(page.locator("#claim-fields [role=status]")).to_be_focused()
    assert "Claim saved." in page.inner_text("#claim-fields [role=status]")
    page.keyboard.press("Tab")
    # Tab goes on from there, inside the panel, not from the top of the page.
    expect(page.locator("#claim-fields :focus")).to_have_count(1)


def test_a_save_updates_the_header_and_history_in_place(browser, live_server, desk):
    _editor, _reviewer, case = desk
    claim = case.claims.first()
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}{claim.get_absolute_url()}")
    header = page.locator("#claim-header")
    expect(header).to_contain_text(f"version {claim.version}")

    page.fill("#id_statement", "The compiler reached 2,000 tokens per second.")
    page.click("#claim-fields button:text-is('Save')")

    expect(header).to_contain_text(f"version {claim.version + 1}")
    expect(header.locator(".figure")).to_contain_text(["2,000"])
    expect(page.locator("#history")).to_contain_text("edited the claim")
    expect(page.locator("#claim-header")).to_have_count(1)
    expect(page.locator("#claim-fields [role=status]")).to_be_focused()


def test_discarding_a_correction_on_the_desk_asks_first(browser, live_server, desk):
    editor, _reviewer, case = desk
    claim = case.claims.order_by("pk").first()
    Claim.objects.filter(pk=claim.pk).update(status=ClaimStatus.PUBLISHED, published_at=now())
    draft = correction_draft(
        case=case, editor=editor, kind="update", what_was_wrong="a b", what_is_right="c d"
    )
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")
    page.goto(f"{live_server.url}/desk/corrections/")

    questions = press_and_answer(page, "button:text-is('Discard')", accept=False)
    assert questions == [
        "Discard this update? It was never published; it is removed from the desk."
    ]
    assert Correction.objects.filter(pk=draft.pk).exists()

    press_and_answer(page, "button:text-is('Discard')", accept=True)
    page.wait_for_selector("text=Update discarded.")
    assert not Correction.objects.filter(pk=draft.pk).exists()
