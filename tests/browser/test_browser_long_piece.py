"""Making a claim far down a long piece under check, in the browser."""

import pytest
from playwright.sync_api import expect

from claims.models import Claim
from claims.services import claim_create
from sources.services import quotation_create, source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.factories import CaseFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_passage_selected_far_below_the_claim_form_offers_a_way_back_to_it(
    browser, live_server, desk
):
    case = CaseFactory(title="A long piece", lead_editor=desk[0])
    text = "\n\n".join(f"Paragraph {n} of the piece, marker{n} inside it." for n in range(1500))
    source_version_create_from_text(source=case.source_under_check, text=text, actor=None)
    base = live_server.url
    page = new_page(browser)  # noqa: F405
    log_in(page, base, "eddie")  # noqa: F405
    page.goto(f"{base}{case.get_absolute_url()}")
    jump = page.locator("[data-quote-jump]")
    expect(jump).to_be_hidden()

    page.get_by_text("marker1200 inside it").scroll_into_view_if_needed()
    select_in_reader(page, "marker1200 inside")  # noqa: F405

    expect(jump).to_be_visible()
    expect(jump).to_contain_text("“marker1200 inside”")
    page.click("[data-quote-jump] a")
    statement = page.locator("#id_statement")
    expect(statement).to_be_focused()
    expect(statement).to_be_in_viewport()
    statement.fill("The piece says marker 1200 is inside.")
    page.click("[data-quote-button]")
    page.wait_for_url("**/claims/**")

    claim = Claim.objects.get(statement="The piece says marker 1200 is inside.")
    assert claim.quotation.exact == "marker1200 inside"
    assert claim.quotation.start == text.index("marker1200 inside")


def test_a_claims_page_leads_to_its_passage_in_the_piece_highlighted(browser, live_server, desk):
    case = CaseFactory(title="A long piece", lead_editor=desk[0])
    text = "\n\n".join(f"Paragraph {n} of the piece, marker{n} inside it." for n in range(3000))
    version, _ = source_version_create_from_text(
        source=case.source_under_check, text=text, actor=None
    )
    start = text.index("marker2500 inside")
    quotation, _ = quotation_create(version=version, start=start, end=start + 17, actor=None)
    claim = claim_create(
        case=case, quotation=quotation, statement="Marker 2500 is inside.", author=desk[0]
    )
    base = live_server.url
    page = new_page(browser)  # noqa: F405
    log_in(page, base, "eddie")  # noqa: F405

    page.goto(f"{base}{claim.get_absolute_url()}")
    page.click("text=Show it in the piece")
    page.wait_for_url(f"**{case.get_absolute_url()}?at={start}#at-*")

    shown = highlighted_match(page)  # noqa: F405
    assert shown is not None, "nothing is highlighted"
    assert shown["text"] == "marker2500 inside"
    assert shown["top"] >= 0 and shown["bottom"] <= shown["height"], shown
