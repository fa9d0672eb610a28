"""
Shared pieces of the browser tests: Debian's Chromium driven by Playwright
against the app served by pytest-django's live server.

A test module that drives the browser starts with::

    from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)

Chromium missing outside CI skips those modules with how to install it; in CI
a missing browser fails the run.
"""

import os
import shutil
from pathlib import Path

import pytest

from claims.seed import seed_first_case
from tests.factories import EditorFactory, ReviewerFactory
from tests.migrated_rows import restore_data_migrations

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PASSWORD = "correct horse battery staple"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
# Without the networking flags Chromium keeps calling hosts a closed network refuses.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):
        raise RuntimeError(f"Chromium is missing at {CHROMIUM}; .ci/run installs it.")
    pytest.skip(
        "Chromium is not installed: `apt-get install chromium chromium-driver` "
        "(or set CHROMIUM_PATH) to run the browser tests.",
        allow_module_level=True,
    )

sync_api = pytest.importorskip("playwright.sync_api")

__all__ = [
    "ARTIFACTS",
    "DESKTOP",
    "PASSWORD",
    "PHONE",
    "browser",
    "desk",
    "drag_select",
    "highlighted_match",
    "log_in",
    "new_page",
    "restore_data_migrations",
    "select_in_reader",
    "shot",
    "wait_for_htmx_to_settle",
]


@pytest.fixture(scope="module")
def browser():
    # Playwright's sync API runs an event loop in this thread; the test's own
    # database work is still synchronous.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_api.sync_playwright() as playwright:
        # launch() starts Chromium on a fresh, empty profile of Playwright's own.
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield browser
        browser.close()


@pytest.fixture
def desk():
    """An editor "eddie", a reviewer "rosa", and the seeded first case."""
    restore_data_migrations()
    editor = EditorFactory(username="eddie", password=PASSWORD)
    reviewer = ReviewerFactory(username="rosa", password=PASSWORD)
    case = seed_first_case(lead_editor=editor).case
    return editor, reviewer, case


def new_page(browser, viewport=DESKTOP):
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(15_000)
    return context.new_page()


def log_in(page, base, username, password=PASSWORD):
    page.goto(f"{base}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/cases/")


def select_in_reader(page, words):
    """Select `words` in the page's quotable reader, as a mouse drag would."""
    page.evaluate(
        """(words) => {
          const reader = document.querySelector('[data-quote-reader]');
          const walker = document.createTreeWalker(reader, NodeFilter.SHOW_TEXT);
          let node;
          while ((node = walker.nextNode())) {
            const at = node.data.indexOf(words);
            if (at >= 0) {
              const range = document.createRange();
              range.setStart(node, at);
              range.setEnd(node, at + words.length);
              const selection = document.getSelection();
              selection.removeAllRanges();
              selection.addRange(range);
              return;
            }
          }
          throw new Error('not in the reader: ' + words);
        }""",
        words,
    )


def drag_select(page, words, last_words=None):
    """
    Select `words` in the quotable reader by dragging the mouse across them;
    with `last_words` (found after `words`), from the start of `words` to the
    end of `last_words`.
    """
    box = page.evaluate(
        """([words, lastWords]) => {
          const reader = document.querySelector('[data-quote-reader]');
          function find(wanted, after) {
            const walker = document.createTreeWalker(reader, NodeFilter.SHOW_TEXT);
            let node;
            while ((node = walker.nextNode())) {
              if (after && !(after.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)
                  && after !== node) continue;
              const at = node.data.indexOf(wanted);
              if (at >= 0) return [node, at];
            }
            throw new Error('not in the reader: ' + wanted);
          }
          function rect(node, from, to, last) {
            const range = document.createRange();
            range.setStart(node, from);
            range.setEnd(node, to);
            const rects = range.getClientRects();
            return last ? rects[rects.length - 1] : rects[0];
          }
          const [node, at] = find(words, null);
          const [endNode, endAt] = lastWords ? find(lastWords, node) : [node, at];
          const endWords = lastWords || words;
          node.parentElement.scrollIntoView({block: 'center'});
          const first = rect(node, at, at + 1, false);
          const last = rect(endNode, endAt + endWords.length - 1, endAt + endWords.length, true);
          return {x1: first.left + 1, y1: first.top + first.height / 2,
                  x2: last.right - 1, y2: last.top + last.height / 2};
        }""",
        [words, last_words],
    )
    page.mouse.move(box["x1"], box["y1"])
    page.mouse.down()
    page.mouse.move(box["x2"], box["y2"], steps=8)
    page.mouse.up()
    selected = page.evaluate("() => document.getSelection().toString()")
    if last_words is None:
        assert selected == words, f"the drag selected {selected!r}"
    else:
        assert selected.startswith(words), f"the drag selected {selected!r}"
        assert selected.endswith(last_words), f"the drag selected {selected!r}"


def highlighted_match(page):
    """
    What match.js highlighted on the page (its text and where it stands:
    ``top``, ``bottom`` and the viewport's ``height``), or None.
    """
    return page.evaluate(
        """() => {
          const highlight = CSS.highlights.get('search-match');
          if (!highlight) return null;
          const [range] = highlight.values();
          const box = range.getBoundingClientRect();
          return {text: range.toString(), top: box.top, bottom: box.bottom, height: innerHeight};
        }"""
    )


def wait_for_htmx_to_settle(page):
    """Wait until no htmx request, swap or settle is under way on the page."""
    page.wait_for_function(
        "() => !document.querySelector("
        "'.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
    )


def shot(page, name):
    """A full-page PNG in the git-ignored test-artifacts folder."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
