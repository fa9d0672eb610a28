"""
The interface in the reader's language, in the browser: the language menu used
with the keyboard alone, Arabic laid out right to left, and axe on the case and
claim pages in Arabic. Saves case-page-es.png, claim-page-es.png, case-page-ar.png
and claim-page-ar.png (to test-artifacts/, and to ``FACTCHECK_SCREENSHOTS`` when set).
"""

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from factcheck.models import Preferences
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.browser.support import ARTIFACTS, DESKTOP, log_in
from tests.browser.test_accessibility import (  # the seeded case with work at every stage
    CASE,
    newsroom,  # noqa: F401  (a fixture)
    report,
    serious_violations,
)

pytestmark = pytest.mark.django_db(transaction=True)

DOCS_SCREENSHOTS = os.environ.get("FACTCHECK_SCREENSHOTS")
#: The language menu's label in Spanish, once its catalogue is compiled.
SPANISH_LABEL = "Idioma"


def catalogue_compiled(language):
    folder = translation.to_locale(language)
    return (Path(settings.BASE_DIR) / "locale" / folder / "LC_MESSAGES" / "django.mo").exists()


def save(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    targets = [ARTIFACTS / f"{name}.png"]
    if DOCS_SCREENSHOTS:
        targets.append(Path(DOCS_SCREENSHOTS) / f"{name}.png")
    for target in targets:
        page.screenshot(path=str(target), full_page=True)


def signed_in_page(browser, base, language=None):
    """eddie's page (axe may be added to it); with ``language``, the browser's cookie says it."""
    context = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    context.set_default_timeout(15_000)
    if language:
        context.add_cookies(
            [{"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base}]
        )
    page = context.new_page()
    log_in(page, base, "eddie")
    return page


def tab_to(page, element_id, most=60):
    """Press Tab until the element ``element_id`` has the focus, as a keyboard user would."""
    for _press in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement && document.activeElement.id") == element_id:
            return
    raise AssertionError(f"#{element_id} was not reached with Tab in {most} presses")


def test_a_desk_user_chooses_spanish_from_the_menu_with_the_keyboard(
    browser,
    live_server,
    newsroom,  # noqa: F811
):
    page = signed_in_page(browser, live_server.url)
    page.goto(f"{live_server.url}/cases/{CASE}/")
    assert page.evaluate("() => document.documentElement.lang") == "en"

    tab_to(page, "language-menu")
    page.keyboard.type("Esp")  # the select's type-ahead: "Español"
    assert page.evaluate("() => document.activeElement.value") == "es"
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.type") == "submit"
    with page.expect_navigation():
        page.keyboard.press("Enter")

    assert page.url == f"{live_server.url}/cases/{CASE}/"  # back where the menu was
    assert page.evaluate("() => [document.documentElement.lang, document.dir]") == ["es", "ltr"]
    assert page.locator("#language-menu").input_value() == "es"
    assert Preferences.objects.get(user__username="eddie").language == "es"
    if catalogue_compiled("es"):
        assert page.locator("label[for=language-menu]").inner_text() == SPANISH_LABEL
    save(page, "case-page-es")
    page.goto(f"{live_server.url}{newsroom['in_review'].get_absolute_url()}")
    assert page.evaluate("() => document.documentElement.lang") == "es"
    save(page, "claim-page-es")


def test_arabic_pages_are_laid_out_right_to_left(browser, live_server, newsroom):  # noqa: F811
    page = signed_in_page(browser, live_server.url, language="ar")
    page.goto(f"{live_server.url}/cases/{CASE}/")

    layout = page.evaluate(
        """() => {
          const first = document.querySelector('.site-header__inner > :first-child');
          const box = first.getBoundingClientRect();
          const inner = document.querySelector('.site-header__inner').getBoundingClientRect();
          const padding = parseFloat(getComputedStyle(first.parentElement).paddingRight);
          return {
            direction: getComputedStyle(document.documentElement).direction,
            first: first.className,
            firstRight: box.right, firstLeft: box.left,
            innerRight: inner.right - padding,
            width: document.documentElement.clientWidth,
            scrolls: document.documentElement.scrollWidth > document.documentElement.clientWidth,
          };
        }"""
    )

    assert layout["direction"] == "rtl"
    assert layout["first"] == "brand"
    # The header's first item (the brand) sits at the right edge, where Arabic starts.
    assert abs(layout["firstRight"] - layout["innerRight"]) < 2, layout
    assert layout["firstLeft"] > layout["width"] / 2, layout
    assert not layout["scrolls"], "the page scrolls sideways in Arabic"


@pytest.mark.parametrize("name", ["case-page", "claim-page"])
def test_the_case_and_claim_pages_in_arabic_have_no_serious_accessibility_violations(
    browser,
    live_server,
    newsroom,  # noqa: F811
    name,
):
    page = signed_in_page(browser, live_server.url, language="ar")
    path = f"/cases/{CASE}/" if name == "case-page" else newsroom["in_review"].get_absolute_url()
    page.goto(f"{live_server.url}{path}")
    assert page.evaluate("() => [document.documentElement.lang, document.dir]") == ["ar", "rtl"]

    violations = serious_violations(page)

    save(page, f"{name}-ar")
    assert not violations, f"axe found on {name} in Arabic ({page.url}):\n{report(violations)}"
