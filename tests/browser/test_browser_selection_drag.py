"""
Quoting what a real mouse drag selects (issue 36): Chromium's own hit testing
picks the words, the text holds still under the pointer while it does, and
"Quote selection" stores exactly the words selected on screen when pressed.

The drags are made with ``page.mouse`` (down, several moves, up); only the
pixel coordinates of the first and last characters are computed in the page.
``-s`` prints the figures of each run.
"""

import os
import random
import unicodedata
from pathlib import Path

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from claims.models import Claim
from claims.services import claim_create
from sources.extraction import ExtractionResult
from sources.models import ExtractionStatus, Quotation, Source
from sources.services import (
    quotation_create,
    source_version_create_from_text,
    source_version_upload,
    version_extraction_finish,
)
from tests.browser.support import *  # noqa: F403  (the fixtures and helpers)
from tests.factories import CaseFactory, EditorFactory
from tests.sample_files import make_text_pdf

pytestmark = pytest.mark.django_db(transaction=True)

#: Where ``FACTCHECK_SCREENSHOTS`` asks for the documentation's screenshots.
DOCS_SCREENSHOTS = os.environ.get("FACTCHECK_SCREENSHOTS")
SEED = 36
ROCKET, DOUBLE_STRUCK_A, E_ACUTE = "\U0001f680", "\U0001d538", "e\u0301"
VOCABULARY = (
    "the council said library spending rose by per cent in march after budget review "
    "mayor office reported figures were not higher than claimed according to annual "
    "accounts published statement inflation adjusted totals grew fell slightly compared "
    "with previous years while critics questioned whether savings promised earlier would "
    "arrive before elections scheduled autumn"
)
WORDS = VOCABULARY.split()
QUEUED_ONLY = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
#: Where the scroll anchoring of browsers without it (Safari) is imitated.
NO_ANCHORING = "html, body, * { overflow-anchor: none !important; }"


def sentence(rng, words):
    chosen = [rng.choice(WORDS) for _ in range(words)]
    for special in (ROCKET, DOUBLE_STRUCK_A, E_ACUTE):
        if rng.random() < 0.45:
            at = rng.randrange(len(chosen))
            # Alone, or glued to the start, the end or the middle of a word.
            chosen[at] = rng.choice(["{s}", "{w}{s}", "{s}{w}", "{h}{s}{t}"]).format(
                s=special,
                w=chosen[at],
                h=chosen[at][: len(chosen[at]) // 2],
                t=chosen[at][len(chosen[at]) // 2 :],
            )
    chosen[0] = chosen[0].capitalize()
    return " ".join(chosen) + "."


def paragraphs_text(rng, count, joiner=None):
    """``count`` paragraphs, apart by one or two newlines, and where each begins."""
    text, starts = "", []
    for number in range(count):
        if number:
            text += joiner or rng.choice(["\n", "\n\n"])
        starts.append(len(text))
        text += " ".join(sentence(rng, rng.randint(8, 22)) for _ in range(rng.randint(1, 4)))
    return text, starts


def long_text(rng):
    return paragraphs_text(rng, 90)


def paged_text(rng, pages=5):
    """A PDF's text as extraction gives it: pages joined by a blank line; ``page_offsets``."""
    texts = [paragraphs_text(rng, 5, joiner="\n")[0] for _ in range(pages)]
    offsets, at = [], 0
    for page_text in texts:
        offsets.append(at)
        at += len(page_text) + 2
    return "\n\n".join(texts), offsets


def can_start(text, at):
    return 0 <= at < len(text) and not text[at].isspace() and not unicodedata.combining(text[at])


def can_end(text, at):
    return (
        0 < at <= len(text)
        and not text[at - 1].isspace()
        and (at == len(text) or not unicodedata.combining(text[at]))
    )


def span_near(rng, text, low, high, length):
    """A span of about ``length`` starting in ``low``–``high``, ends on characters."""
    for _ in range(200):
        start = rng.randrange(low, high)
        end = start + max(2, length + rng.randint(-length // 3, length // 3))
        if can_start(text, start) and can_end(text, end) and "\n" not in text[start : start + 1]:
            return start, end
    raise AssertionError("no span found")


def mid_word(text, start, end):
    return text[start - 1 : start + 1].isalpha() and text[end - 1 : end + 1].isalpha()


def highlighted(text):
    """The spans quoted already, which the reader marks: many targets cross their edges."""
    return [(start, start + 31) for start in range(0, len(text) - 40, max(1, len(text) // 9))]


def targets_in(rng, text, starts, count, *, page_offsets=()):
    """``count`` spans of ``text`` of every kind the issue names, chosen with ``rng``."""
    chosen = []
    ends = [*[start - 1 for start in starts[1:]], len(text)]
    bounds = [(start, ends[i]) for i, start in enumerate(starts)]

    def inside(paragraph, length):
        start, end = bounds[paragraph]
        length = min(length, (end - start) // 2)
        return span_near(rng, text, start, end - length - 1, length)

    kinds = []
    # Next to each special character: starting on it, right after it, ending on it, just before.
    for special in (ROCKET, DOUBLE_STRUCK_A, E_ACUTE):
        places = [i for i in range(30, len(text)) if text.startswith(special, i)]
        for side in range(4 if count > 10 else 1 if places else 0):
            at = rng.choice(places)
            after = at + len(special)
            span = [
                (at, after + rng.randint(3, 30)),
                (after, after + rng.randint(3, 30)),
                (at - rng.randint(3, 30), after),
                (at - rng.randint(3, 30), at),
            ][side]
            where = ["on", "after", "ending on", "before"][side]
            kinds.append((f"next to {special!a} ({where})", *span))
    while len(kinds) < count:
        kinds_in_turn = ["one paragraph", "two paragraphs", "mid-word", "far down", "near the top"]
        kind = kinds_in_turn[len(kinds) % len(kinds_in_turn)]
        if kind == "near the top":  # where the quote bar is in sight above the text
            kinds.append((kind, *inside(rng.randrange(min(2, len(bounds))), rng.randint(20, 150))))
        elif kind == "one paragraph":
            kinds.append((kind, *inside(rng.randrange(len(bounds)), rng.randint(10, 120))))
        elif kind == "two paragraphs" and len(bounds) > 1:
            first = rng.randrange(len(bounds) - 1)
            start = span_near(
                rng, text, max(bounds[first][0], bounds[first][1] - 60), bounds[first][1] - 3, 1
            )[0]
            end = span_near(rng, text, bounds[first + 1][0], bounds[first + 1][0] + 50, 1)[1]
            kinds.append((kind, start, end))
        elif kind == "mid-word":
            for _ in range(500):
                span = inside(rng.randrange(len(bounds)), rng.randint(15, 90))
                if mid_word(text, *span):
                    break
            kinds.append((kind, *span))
        else:
            kinds.append((kind, *inside(rng.randrange(len(bounds) * 3 // 4, len(bounds)), 60)))
    for start, end in rng.sample(highlighted(text), 2):
        # From inside a highlighted quotation to beyond it.
        kinds.append(("across a highlight", start + rng.randint(3, 20), end + rng.randint(5, 30)))
    for offset in page_offsets[1:]:
        # From the end of one page's last line into the next page's first.
        start = span_near(rng, text, offset - 40, offset - 6, 1)[0]
        end = span_near(rng, text, offset + 2, offset + 40, 1)[1]
        kinds.append(("across a page break", start, end))
    for kind, start, end in kinds:
        # Shifted to characters where a selection can begin and end (not a space, not a mark).
        while not can_start(text, start):
            start += 1
        while not can_end(text, end):
            end -= 1
        assert start < end, (kind, start, end)
        chosen.append((kind, start, end))
    return chosen


def cluster_before(text, end):
    """Where the grapheme (base and combining marks) that ends at ``end`` begins."""
    start = end - 1
    while start > 0 and unicodedata.combining(text[start]):
        start -= 1
    return start


def cluster_after(text, start):
    end = start + 1
    while end < len(text) and unicodedata.combining(text[end]):
        end += 1
    return end


#: Scrolls the span into the middle of the view and gives the points to press and
#: release the mouse at: just inside the first character's left edge and the last
#: one's right edge. Offsets are the stored text's code points, found through the
#: segments' data-start. It also keeps the paragraphs under the drag for `TOPS`.
POINTS = """([first, firstEnd, last, lastEnd]) => {
  const reader = document.querySelector('[data-quote-reader]');
  const segments = Array.from(reader.querySelectorAll('[data-start]'));
  function place(offset, atEnd) {
    for (const segment of segments) {
      const start = Number(segment.dataset.start);
      const characters = Array.from(segment.textContent);
      if (offset > start + characters.length || offset < start) continue;
      if (offset === start + characters.length && !atEnd) continue;
      if (offset === start && atEnd && offset !== 0) continue;
      return [segment.firstChild, characters.slice(0, offset - start).join('').length, segment];
    }
    throw new Error('no segment holds ' + offset);
  }
  function range(from, to) {
    const [startNode, startAt] = place(from, false);
    const [endNode, endAt] = place(to, true);
    const r = document.createRange();
    r.setStart(startNode, startAt);
    r.setEnd(endNode, endAt);
    return r;
  }
  const whole = range(first, lastEnd).getBoundingClientRect();
  window.scrollBy({top: (whole.top + whole.bottom) / 2 - innerHeight / 2, behavior: 'instant'});
  const a = range(first, firstEnd).getClientRects()[0];
  const bRects = range(last, lastEnd).getClientRects();
  const b = bRects[bRects.length - 1];
  window.dragWatched = [place(first, false)[2].closest('p'), place(lastEnd, true)[2].closest('p')];
  const form = document.querySelector('[data-quote-form]');
  return {x1: a.left + 1, y1: a.top + a.height / 2, x2: b.right - 1, y2: b.top + b.height / 2,
          barBottom: form ? form.getBoundingClientRect().bottom : 0, height: innerHeight};
}"""
#: The tops of the watched paragraphs once the page has drawn what the last move changed.
TOPS = """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(
  () => done(window.dragWatched.map((p) => p.getBoundingClientRect().top)))))"""
MOVES = 6


def drag(page, text, start, end):
    """Drag over ``text[start:end]``; the largest shift of the paragraphs under it, in px."""
    points = page.evaluate(
        POINTS,
        [start, cluster_after(text, start), cluster_before(text, end), end],
    )
    assert points["barBottom"] < points["y1"] < points["height"], points
    assert points["barBottom"] < points["y2"] < points["height"], points
    x1, y1, x2, y2 = points["x1"], points["y1"], points["x2"], points["y2"]
    page.mouse.move(x1, y1)
    page.mouse.down()
    tops = [page.evaluate(TOPS)]
    for step in range(1, MOVES + 1):
        share = step / MOVES
        page.mouse.move(x1 + (x2 - x1) * share, y1 + (y2 - y1) * share)
        tops.append(page.evaluate(TOPS))
    page.mouse.up()
    tops.append(page.evaluate(TOPS))
    return max(abs(now - was) for top in tops for now, was in zip(top, tops[0], strict=True))


def quote_by_dragging(page, version, text, targets, results):
    for kind, start, end in targets:
        shift = drag(page, text, start, end)
        selected = page.evaluate("() => document.getSelection().toString()")
        latest = Quotation.objects.filter(version=version).order_by("-pk").first()
        with page.expect_response(lambda response: response.request.method == "POST"):
            page.click("[data-quote-button]")
        wait_for_htmx_to_settle(page)  # noqa: F405
        stored = Quotation.objects.filter(version=version).order_by("-pk").first()
        exact = stored.exact if stored and stored != latest else None
        results.append((kind, text[start:end], exact, shift, selected))


def store(source, text, page_offsets):
    """A version of ``text``; with ``page_offsets``, a PDF's, as its extraction records it."""
    if not page_offsets:
        return source_version_create_from_text(source=source, text=text, actor=None)[0]
    with override_settings(TASKS=QUEUED_ONLY):  # extracted here, not by the worker
        version = source_version_upload(
            source=source, content=make_text_pdf(["Pages"]), filename="pages.pdf", actor=None
        )[0]
    result = ExtractionResult(text=text, page_offsets=page_offsets, extractor="test")
    return version_extraction_finish(version=version, result=result, status=ExtractionStatus.READY)


def reader_page(browser, base, source, anchoring):
    """``source``'s page (or a case's), logged in; without scroll anchoring unless ``anchoring``."""
    # The page's CSP refuses inline styles: this one is the test's, not the page's.
    context = browser.new_context(viewport=DESKTOP, bypass_csp=not anchoring)  # noqa: F405
    context.set_default_timeout(15_000)
    page = context.new_page()
    log_in(page, base, "quoter")  # noqa: F405
    page.goto(f"{base}{source.get_absolute_url()}")
    if not anchoring:
        page.add_style_tag(content=NO_ANCHORING)
    return page


def test_mouse_drags_quote_the_words_dragged_over_and_the_text_holds_still(browser, live_server):
    restore_data_migrations()  # noqa: F405
    EditorFactory(username="quoter", password=PASSWORD)  # noqa: F405
    rng = random.Random(SEED)
    text, starts = long_text(rng)
    paged, page_offsets = paged_text(rng)
    short, short_starts = paragraphs_text(rng, 3)
    plans = [
        ("long text", text, starts, [], 20),
        (
            "PDF pages",
            paged,
            [0, *[i + 1 for i, c in enumerate(paged) if c == "\n" and paged[i + 1] != "\n"]],
            page_offsets,
            5,
        ),
        ("short text", short, short_starts, [], 3),
    ]
    planned = [
        (name, body, targets_in(rng, body, para_starts, count, page_offsets=offsets), offsets)
        for name, body, para_starts, offsets, count in plans
    ]
    figures = {}
    for anchoring in (True, False):
        mode = "default Chromium" if anchoring else "overflow-anchor: none"
        results = []
        for name, body, targets, offsets in planned:
            source = Source.objects.create(title=f"{name} ({mode})", role=Source.Role.PRIMARY)
            version = store(source, body, offsets)
            # Quotations already there are highlighted: spans that cross their edges.
            for start, end in highlighted(body):
                quotation_create(version=version, start=start, end=end, actor=None)
            page = reader_page(browser, live_server.url, source, anchoring)
            if offsets:
                expect(page.locator(".reader__text .page-break")).to_have_count(len(offsets))
            assert page.locator(".reader__text mark").count() > 5
            quote_by_dragging(page, version, body, targets, results)
            page.context.close()
        right = sum(exact == wanted for _kind, wanted, exact, _shift, _sel in results)
        shift = max(result[3] for result in results)
        figures[mode] = (right, len(results), shift)
        print(f"\n{mode}: drags {right}/{len(results)} right, max shift {shift:g} px")
        for kind, wanted, exact, shift_px, selected in results:
            if exact != wanted or shift_px:
                print(
                    f"  {kind}: wanted {wanted!r}, stored {exact!r}, "
                    f"selected {selected!r}, shift {shift_px:g} px"
                )
    for mode, (right, total, shift) in figures.items():
        assert total >= 30
        assert right == total, f"{mode}: {right}/{total} drags quoted the words dragged over"
        assert shift == 0, f"{mode}: the text moved {shift} px during a drag"


def test_a_selection_collapsed_by_a_click_quotes_nothing_and_says_so(browser, live_server):
    restore_data_migrations()  # noqa: F405
    EditorFactory(username="quoter", password=PASSWORD)  # noqa: F405
    text, starts = paragraphs_text(random.Random(SEED), 30)
    source = Source.objects.create(title="Collapsing a selection", role=Source.Role.PRIMARY)
    version, _ = source_version_create_from_text(source=source, text=text, actor=None)
    page = reader_page(browser, live_server.url, source, anchoring=True)
    start = next(i for i in range(starts[18] + 20, len(text)) if can_start(text, i))
    end = next(i for i in range(start + 70, len(text)) if can_end(text, i))
    drag(page, text, start, end)
    preview = page.locator("[data-quote-preview]")
    expect(preview).to_contain_text(text[start:end][:20])
    if DOCS_SCREENSHOTS:  # the bar, stuck to the top of the window above the selection
        reader = page.locator(".reader").bounding_box()
        clip = {"x": reader["x"], "y": 0, "width": reader["width"], "height": 500}
        page.screenshot(path=str(Path(DOCS_SCREENSHOTS) / "quote-bar.png"), clip=clip)

    # A click in the text, in the paragraph after the selection, collapses it.
    box = page.evaluate(
        """() => {
          const box = window.dragWatched[1].nextElementSibling.getBoundingClientRect();
          return {x: box.left + 5, y: box.top + 10};
        }"""
    )
    page.mouse.click(box["x"], box["y"])
    assert page.evaluate("() => document.getSelection().isCollapsed")
    # A real click: Playwright would wait for a button marked aria-disabled to be enabled.
    page.click("[data-quote-button]", force=True)

    expect(page.locator("#version-panel [role=alert]")).to_have_text(
        "Nothing was quoted: no passage was selected. Select a passage of the text, "
        "then press “Quote selection”."
    )
    expect(preview).to_have_text("Nothing selected.")
    assert not Quotation.objects.filter(version=version).exists()


def test_on_the_case_page_a_drag_far_down_holds_still_and_its_passage_is_claimed(
    browser, live_server
):
    # The link back to the claim form shows up during the drag: it must not move the text.
    restore_data_migrations()  # noqa: F405
    editor = EditorFactory(username="quoter", password=PASSWORD)  # noqa: F405
    case = CaseFactory(title="A long piece", lead_editor=editor)
    rng = random.Random(SEED + 1)
    text, starts = paragraphs_text(rng, 60)
    version = source_version_create_from_text(
        source=case.source_under_check, text=text, actor=None
    )[0]
    quotation = quotation_create(version=version, start=starts[50], end=starts[50] + 30, actor=None)
    claim_create(case=case, quotation=quotation[0], statement="Already claimed.", author=editor)
    page = reader_page(browser, live_server.url, case, anchoring=False)
    start = next(i for i in range(starts[50] + 12, len(text)) if can_start(text, i))
    end = next(i for i in range(starts[51] + 20, len(text)) if can_end(text, i))

    shift = drag(page, text, start, end)

    expect(page.locator("[data-quote-jump]")).to_be_visible()
    assert shift == 0, f"the text moved {shift} px during the drag"
    # Typing the statement takes the selection off the text: the passage stays captured.
    page.click("[data-quote-jump] a")
    page.locator("#id_statement").fill("The piece says so.")
    assert page.input_value("[data-quote-start]") == str(start)
    page.click("[data-quote-button]")
    page.wait_for_url("**/claims/**")
    claim = Claim.objects.get(statement="The piece says so.")
    assert claim.quotation.exact == text[start:end]
