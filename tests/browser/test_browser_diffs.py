"""
Seeing what changed, in the browser: a changed quotation word by word on the
source page, confirmed in place after its whole comparison; two versions of a
source compared. Saves word-diff.png and version-diff.png (to test-artifacts/,
and to ``FACTCHECK_SCREENSHOTS`` when set, as `make screenshots` does).
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sources.models import Reanchoring
from sources.services import find_span, quotation_create, source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.browser.support import ARTIFACTS, log_in, new_page, wait_for_htmx_to_settle
from tests.factories import CaseFactory, ClaimFactory, EvidenceFactory, SourceFactory

pytestmark = pytest.mark.django_db(transaction=True)

DOCS_SCREENSHOTS = os.environ.get("FACTCHECK_SCREENSHOTS")

PARAGRAPHS = [
    "Together AI today announced the Together Compiler, a continuous compilation "
    "service for AI inference.",
    "Our persistent engine reduces the iteration step to 9.0 seconds: 1.7 seconds for RPC "
    "and compiler setup plus 7.3 seconds for CUDA-graph capture.",
    "Before, every iteration began with a cold start of 193 seconds.",
    *(
        f"Section {n}: the benchmark ran on eight B200 GPUs with the same weights and "
        "the same prompts."
        for n in range(1, 13)
    ),
    "The compiler reached 1,111 tokens per second on a B200, up to 2.6 times higher "
    "than the baseline.",
    "Availability: the service is in private preview.",
]


def revised(paragraphs):
    text = "\n".join(paragraphs)
    text = text.replace("cold start of 193 seconds", "cold start of 200 seconds")
    text = text.replace("1,111 tokens per second", "1,204 tokens per second")
    text = text.replace("up to 2.6 times", "as much as 2.7 times")
    return text.replace(
        "Availability: the service is in private preview.",
        "Availability: the service is generally available from today.",
    )


def save(page_or_locator, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    targets = [ARTIFACTS / f"{name}.png"]
    if DOCS_SCREENSHOTS:
        targets.append(Path(DOCS_SCREENSHOTS) / f"{name}.png")
    for target in targets:
        if hasattr(page_or_locator, "goto"):
            page_or_locator.screenshot(path=str(target), full_page=True)
        else:
            page_or_locator.screenshot(path=str(target))


@pytest.fixture
def changed_source(desk):
    """A piece under check with a claim and evidence whose words changed in version 2."""
    editor, _reviewer, _case = desk
    case = CaseFactory(title="The compiler announcement", lead_editor=editor)
    piece = case.source_under_check
    piece.title = "Together Compiler announcement"
    piece.save()
    text = "\n".join(PARAGRAPHS)
    first, _created = source_version_create_from_text(source=piece, text=text, actor=editor)

    def quote(exact):
        start, end = find_span(text, exact)
        return quotation_create(version=first, start=start, end=end, actor=editor)[0]

    claim = ClaimFactory(
        case=case,
        quotation=quote("Before, every iteration began with a cold start of 193 seconds."),
        statement="Start-up took 193 seconds before.",
        author=editor,
    )
    EvidenceFactory(
        claim=ClaimFactory(
            case=case,
            quotation=quote("The compiler reached 1,111 tokens per second on a B200"),
            statement="The compiler reached 1,111 tokens per second.",
            author=editor,
        ),
        quotation=quotation_create(
            version=source_version_create_from_text(
                source=SourceFactory(title="Benchmark notes"),
                text="Measured: 1,111 tokens per second.",
                actor=editor,
            )[0],
            start=10,
            end=33,
            actor=editor,
        )[0],
    )
    quote("Our persistent engine reduces the iteration step to 9.0 seconds")
    quote(
        "The compiler reached 1,111 tokens per second on a B200, up to 2.6 times higher "
        "than the baseline."
    )
    source_version_create_from_text(source=piece, text=revised(PARAGRAPHS), actor=editor)
    return piece, claim


def test_a_changed_quotation_is_shown_word_by_word_and_confirmed_after_its_whole_diff(
    browser, live_server, changed_source
):
    piece, claim = changed_source
    base = live_server.url
    page = new_page(browser)
    log_in(page, base, "eddie")
    page.goto(f"{base}{piece.get_absolute_url()}")

    section = page.locator("section.reanchoring")
    expect(section.locator(".reanchoring-claims")).to_contain_text("Claim")
    item = section.locator(".reanchoring-item--changed").filter(has_text="cold start")
    expect(item.locator(".diff del")).to_have_text("[deleted: 193]")
    expect(item.locator(".diff ins")).to_have_text("[inserted: 200]")
    # Struck through and underlined, not told by colour alone.
    assert item.locator(".diff del").evaluate("e => getComputedStyle(e).textDecorationLine") == (
        "line-through"
    )
    assert item.locator(".diff ins").evaluate("e => getComputedStyle(e).textDecorationLine") == (
        "underline"
    )
    section.scroll_into_view_if_needed()
    save(section, "word-diff")

    item.get_by_role("link", name="Confirm new wording…").click()
    wait_for_htmx_to_settle(page)
    confirming = page.locator(".reanchoring-confirm")
    expect(confirming.get_by_role("heading", name="Confirm new wording")).to_be_focused()
    expect(confirming.locator(".diff del")).to_have_text("[deleted: 193]")
    confirming.screenshot(path=str(ARTIFACTS / "reanchoring-confirm.png"))
    confirming.get_by_role("button", name="Confirm new wording").click()
    expect(page.locator("#version-panel .message--success")).to_contain_text(
        "Confirmed the new wording"
    )

    reanchoring = Reanchoring.objects.get(quotation__exact__contains="193 seconds")
    assert reanchoring.confirmed_at is not None
    claim.refresh_from_db()
    assert claim.quotation == reanchoring.new_quotation


def test_two_versions_compared_side_by_side_with_unchanged_paragraphs_folded(
    browser, live_server, changed_source
):
    piece, _claim = changed_source
    base = live_server.url
    page = new_page(browser)
    log_in(page, base, "eddie")
    page.goto(f"{base}{piece.get_absolute_url()}")

    page.get_by_role("link", name="Compare with version 1").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Version 1 and version 2 compared")
    changes = page.locator(".version-diff__change")
    expect(changes).to_have_count(2)
    first = changes.nth(0)
    expect(first.locator(".version-diff__side--old del")).to_have_text("[deleted: 193]")
    expect(first.locator(".version-diff__side--new ins")).to_have_text("[inserted: 200]")
    expect(first.locator(".version-diff__quotations")).to_contain_text("cold start of 193")
    folded = page.locator(".version-diff__unchanged details").first
    expect(folded.locator("summary")).to_have_text("… 12 unchanged paragraphs …")
    expect(folded.locator(".version-diff__paragraphs p").first).to_be_hidden()
    save(page, "version-diff")
    folded.locator("summary").click()
    expect(folded.locator(".version-diff__paragraphs p").first).to_be_visible()
