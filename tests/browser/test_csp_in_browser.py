"""
The Content-Security-Policy does not break the app: in Chromium, the key pages
and their htmx interactions (the case page's claim filter, saving a claim,
quoting on a source page, the public pages) run without a single
`securitypolicyviolation` event, console error or page error. A control at the
end proves the listener catches a violation when there is one.
"""

import pytest

from sources.models import Source
from sources.services import source_version_create_from_text
from tests.browser.support import *  # noqa: F403  (the browser fixtures and helpers)
from tests.browser.support import log_in, new_page, select_in_reader

# The live server's thread must see committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

TEXT = (
    "Our persistent engine reduces the iteration step to 9.0 seconds: 1.7 seconds for RPC "
    "and compiler setup plus 7.3 seconds for CUDA-graph capture."
)

LISTEN = """
document.addEventListener('securitypolicyviolation', (event) => {
  window.reportViolation({
    page: document.location.pathname,
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
  });
});
"""


def watched_page(browser):
    """A page that records CSP violations, console errors and uncaught errors."""
    page = new_page(browser)
    problems = {"violations": [], "console": [], "errors": []}

    def report_violation(violation):
        problems["violations"].append(violation)

    page.expose_function("reportViolation", report_violation)
    page.context.add_init_script(LISTEN)
    page.on(
        "console",
        lambda message: (
            problems["console"].append(f"{page.url}: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    page.on("pageerror", lambda error: problems["errors"].append(f"{page.url}: {error}"))
    return page, problems


def test_the_key_pages_and_their_htmx_run_without_a_policy_violation(browser, live_server, desk):
    editor, _reviewer, case = desk
    source = Source.objects.get(title="Together Compiler: Continuous Compilation for AI inference")
    source_version_create_from_text(source=source, text=TEXT, actor=editor)
    claim = case.claims.order_by("pk").first()
    base = live_server.url
    page, problems = watched_page(browser)

    log_in(page, base, "eddie")

    # The case page and its claim filter (htmx GET, swap, pushed URL).
    page.goto(f"{base}{case.get_absolute_url()}")
    assert page.evaluate("() => typeof window.htmx") == "object"
    page.select_option("#status-filter", "draft")
    page.wait_for_url("**status=draft**")
    page.wait_for_selector("#claim-list .claim-list")

    # A claim page: save the fields (htmx POST with the CSRF header, swap).
    page.goto(f"{base}{claim.get_absolute_url()}")
    page.fill("#id_rationale", "Checked against the **announcement**.")
    page.click("#claim-fields button:text-is('Save')")
    page.wait_for_selector("text=Claim saved.")
    claim.refresh_from_db()
    assert claim.rationale == "Checked against the **announcement**."

    # A source page: quote a selection (our quote.js, then an htmx POST).
    page.goto(f"{base}{source.get_absolute_url()}")
    select_in_reader(page, "1.7 seconds for RPC")
    page.click("[data-quote-button]")
    page.wait_for_selector(".quotation-list >> text=1.7 seconds for RPC")

    # Search, the password page and the public side.
    page.goto(f"{base}/search/?q=iteration")
    page.goto(f"{base}/password/")
    page.goto(f"{base}/corrections/")
    page.goto(f"{base}/password/reset/")

    assert problems == {"violations": [], "console": [], "errors": []}

    # Control: an inline style on this very page is refused and reported.
    page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    page.evaluate("() => new Promise(requestAnimationFrame)")
    page.wait_for_timeout(200)
    assert [violation["directive"] for violation in problems["violations"]] == ["style-src-attr"]
