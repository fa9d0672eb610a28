"""Opening a search hit in the browser: the reader shows the match, not just its part."""

import re

import pytest
from playwright.sync_api import expect

from sources.highlighting import part_starts
from sources.services import source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.factories import SourceFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_source_hit_opens_the_reader_scrolled_to_its_match_highlighted(
    browser, live_server, desk
):
    paragraphs = [f"Paragraph {n} of the report, marker{n} inside it." for n in range(2600)]
    text = "\n\n".join(paragraphs)
    source = SourceFactory(title="A long report")
    source_version_create_from_text(source=source, text=text, actor=None)
    # Deep in the second part: far below the top of the part it opens.
    wanted = next(n for n, p in enumerate(paragraphs) if text.index(p) > part_starts(text)[0])
    wanted += 300
    base = live_server.url
    page = new_page(browser)  # noqa: F405
    log_in(page, base, "eddie")  # noqa: F405

    page.goto(f"{base}/search/?q=marker{wanted}")
    page.click(".search-result__title a")
    page.wait_for_url(f"**{source.get_absolute_url()}?at=*#at-*")

    expect(page.locator("[data-quote-reader]")).to_have_attribute(
        "aria-label", re.compile(r"^Source text, part 2 of \d+;")
    )
    shown = highlighted_match(page)  # noqa: F405
    assert shown is not None, "nothing is highlighted"
    assert shown["text"] == f"marker{wanted}"
    assert shown["top"] >= 0 and shown["bottom"] <= shown["height"], shown
    expect(page.locator("[data-quote-reader]")).to_be_focused()
    expect(page.locator("#announcer")).to_have_text(
        f"Showing the match “marker{wanted}”, highlighted."
    )
    # Quoting still counts offsets in the reader's own markup, which the highlight left alone.
    select_in_reader(page, f"marker{wanted} inside")  # noqa: F405
    expect(page.locator("[data-quote-preview]")).to_contain_text(
        f"(characters {text.index(f'marker{wanted} ')}–"
    )


def test_back_to_a_search_pushed_by_htmx_shows_the_whole_page_again(browser, live_server, desk):
    # The results came as a fragment to the address htmx pushed; going back there
    # from a hit must not show that fragment alone, without the page around it.
    page = editor_searching(browser, live_server.url, "Trainium2")

    page.click(".search-result__title a >> nth=0")
    page.wait_for_load_state()
    page.go_back()

    expect(page.locator("h1")).to_have_text("Search")
    expect(page.locator("#search-query")).to_be_visible()
    expect(page.locator(".search-result").first).to_be_visible()


def test_back_to_an_earlier_search_shows_its_words_in_the_box_and_title(browser, live_server, desk):
    page = editor_searching(browser, live_server.url, "Trainium2")
    page.fill("#search-query", "tokens")
    page.wait_for_url("**/search/?q=tokens")
    expect(page).to_have_title("Search: tokens · factcheck")

    page.go_back()

    page.wait_for_url("**/search/?q=Trainium2")
    expect(page.locator("#search-query")).to_have_value("Trainium2")
    expect(page).to_have_title("Search: Trainium2 · factcheck")
    page.go_forward()
    page.wait_for_url("**/search/?q=tokens")
    expect(page.locator("#search-query")).to_have_value("tokens")
    expect(page).to_have_title("Search: tokens · factcheck")


def editor_searching(browser, base, words):
    """A page of the editor's with ``words`` typed into the search box, their results shown."""
    page = new_page(browser)  # noqa: F405
    log_in(page, base, "eddie")  # noqa: F405
    page.goto(f"{base}/search/")
    page.fill("#search-query", words)
    page.wait_for_url(f"**/search/?q={words}")
    expect(page.locator(".search-result").first).to_be_visible()
    return page


def test_the_next_page_of_results_swaps_in_and_takes_the_focus_from_the_link_pressed(
    browser, live_server, desk
):
    source = SourceFactory(title="Many mentions")
    # Indexed in passages of about 1,200 characters: some 25 of them, each with the word.
    text = "\n\n".join(f"Section {n}: the turbine output was measured again." for n in range(600))
    source_version_create_from_text(source=source, text=text, actor=None)
    page = editor_searching(browser, live_server.url, "turbine")
    first_range = page.locator("#results > p.muted").inner_text()

    page.focus(".pagination a[rel=next]")
    page.keyboard.press("Enter")

    page.wait_for_url("**/search/?q=turbine&page=2")
    focused = page.locator("#results [data-swap-focus]")
    expect(focused).to_be_focused()
    expect(focused).to_contain_text("; showing 21 to")
    assert first_range != focused.inner_text()
    expect(page.locator("h1")).to_have_text("Search")  # swapped in place, not a new page
    expect(page).to_have_title("Search: turbine, page 2 · factcheck")  # told apart in the history
    expect(page.locator("#announcer")).to_have_text(focused.inner_text())
