"""
Evidence on its page, in the browser: a PDF quotation drawn on its page with the quoted
words highlighted, on the quotation's own page, the review page and the public claim page.
Saves pdf-quotation-on-page.png, review-page-evidence.png and public-claim-evidence.png (to
test-artifacts/, and to ``FACTCHECK_SCREENSHOTS`` when set, as `make screenshots` does).
"""

import os
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import timezone

from claims.models import Claim, ClaimStatus, Evidence
from sources.models import SourceRole
from sources.services import quotation_create_from_selection, source_create
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.browser.support import ARTIFACTS, DESKTOP, log_in, new_page
from tests.browser.test_accessibility import assert_accessible, axe_page
from tests.factories import ReviewAssignmentFactory
from tests.sample_files import lorem_page, make_text_pdf

pytestmark = pytest.mark.django_db(transaction=True)

DOCS_SCREENSHOTS = os.environ.get("FACTCHECK_SCREENSHOTS")

QUOTED = "the harbour bridge cost 41 million euros, twice the 20 million first announced"


def save(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    targets = [ARTIFACTS / f"{name}.png"]
    if DOCS_SCREENSHOTS:
        targets.append(Path(DOCS_SCREENSHOTS) / f"{name}.png")
    for target in targets:
        page.screenshot(path=str(target), full_page=True)


@pytest.fixture
def evidence(desk):
    """A PDF report quoted on its second page, the evidence of the seeded case's first claim,
    which rosa reviews and which is published."""
    editor, reviewer, case = desk
    pages = [
        "Harbour authority annual report (browser test). " + lorem_page(1, 1500),
        f"Costs. {lorem_page(2, 400)} The audit found that {QUOTED} in the 2019 budget. "
        + lorem_page(4, 800),
    ]
    source = source_create(
        actor=editor,
        title="Harbour authority annual report",
        publisher="Harbour authority",
        role=SourceRole.PRIMARY,
        content=make_text_pdf(pages),
        filename="annual-report.pdf",
    )
    version = source.versions.get()
    found = re.search(r"\s+".join(map(re.escape, QUOTED.split())), version.extracted_text)
    quotation, _created = quotation_create_from_selection(
        version=version,
        start=found.start(),
        end=found.end(),
        selected_text=QUOTED,
        actor=editor,
    )
    assert quotation.page_images.get().error == ""
    claim = Claim.objects.filter(case=case).order_by("number").first()
    Evidence.objects.create(
        claim=claim, quotation=quotation, stance=Evidence.Stance.SUPPORTS, added_by=editor
    )
    assignment = ReviewAssignmentFactory(claim=claim, reviewer=reviewer, assigned_by=editor)
    Claim.objects.filter(pk=claim.pk).update(
        status=ClaimStatus.PUBLISHED, published_at=timezone.now()
    )
    return quotation, claim, assignment


def loaded_image(page, alt):
    """The page's image whose alternative text is ``alt``, scrolled to and loaded (it is
    lazy): its natural width, once the browser has decoded it."""
    found = "(alt) => [...document.images].find(image => image.alt === alt)"
    page.wait_for_function(found, arg=alt)
    page.evaluate(f"(alt) => ({found})(alt).scrollIntoView({{block: 'center'}})", alt)
    page.wait_for_function(
        f"(alt) => {{ const i = ({found})(alt); return i.complete && i.naturalWidth; }}", arg=alt
    )
    return page.evaluate(f"(alt) => ({found})(alt).naturalWidth", alt)


def test_the_quotation_page_shows_the_pdf_page_with_the_words_highlighted(
    browser, live_server, evidence
):
    quotation, _claim, _assignment = evidence
    page = new_page(browser)
    log_in(page, live_server.url, "eddie")

    page.goto(
        live_server.url
        + reverse("sources:quotation_page", args=[quotation.version.source_id, quotation.pk])
    )

    assert loaded_image(page, quotation.exact) == 1600
    assert (
        page.locator("figcaption")
        .first.inner_text()
        .startswith("“Harbour authority annual report”, page 2")
    )
    save(page, "pdf-quotation-on-page")


def test_the_reviewer_sees_the_evidence_on_its_page(browser, live_server, evidence):
    quotation, _claim, assignment = evidence
    page = new_page(browser)
    log_in(page, live_server.url, "rosa")

    page.goto(live_server.url + reverse("claims:review", args=[assignment.pk]))

    assert loaded_image(page, quotation.exact) == 1600
    save(page, "review-page-evidence")


def test_a_reader_sees_the_published_claims_evidence_on_its_page(browser, live_server, evidence):
    quotation, claim, _assignment = evidence
    page = new_page(browser)

    page.goto(live_server.url + claim.get_public_url())

    assert loaded_image(page, quotation.exact) == 1600
    save(page, "public-claim-evidence")


def test_the_pages_showing_a_quotation_on_its_page_pass_axe(browser, live_server, evidence):
    quotation, claim, _assignment = evidence
    source_pk = quotation.version.source_id
    for user, path, name in [
        ("eddie", reverse("sources:quotation_page", args=[source_pk, quotation.pk]), "quotation"),
        (None, claim.get_public_url(), "public-claim"),
    ]:
        page = axe_page(browser, live_server.url, user, DESKTOP)
        page.goto(live_server.url + path)
        loaded_image(page, quotation.exact)

        assert_accessible(page, f"{name}-on-its-page")
