// A search hit opens the source reader at #at-<start>-<end>, the match's
// code-point offsets in the stored text (factcheck/search.py): bring the match
// into view, highlight it without changing the reader's markup (quote.js counts
// offsets in it), and say so to screen readers.
(function () {
  "use strict";

  // The UTF-16 index in ``text`` of the code point at ``codePoint``.
  function utf16Index(text, codePoint) {
    let index = 0;
    let counted = 0;
    for (const character of text) {
      if (counted === codePoint) break;
      index += character.length;
      counted += 1;
    }
    return index;
  }

  // The text node and index where the stored text's offset ``at`` falls: in the
  // part's own segments first, then in the next part's opening shown after it.
  function boundary(reader, at, isEnd) {
    const segments = Array.from(reader.querySelectorAll("[data-start]"));
    const own = segments.filter((segment) => !segment.closest(".part-overlap"));
    for (const group of [own, segments]) {
      for (const segment of group) {
        const start = Number(segment.dataset.start);
        const text = segment.textContent;
        const length = Array.from(text).length;
        const inside = isEnd ? start < at && at <= start + length : start <= at && at < start + length;
        if (inside && segment.firstChild && segment.firstChild.nodeType === Node.TEXT_NODE) {
          return { node: segment.firstChild, index: utf16Index(text, at - start), segment: segment };
        }
      }
    }
    return null;
  }

  function show() {
    const found = /^#at-(\d+)-(\d+)$/.exec(window.location.hash);
    const reader = document.querySelector("[data-quote-reader]");
    if (!found || !reader) return;
    const from = boundary(reader, Number(found[1]), false);
    const to = boundary(reader, Number(found[2]), true);
    if (!from || !to) return;
    const range = document.createRange();
    range.setStart(from.node, from.index);
    range.setEnd(to.node, to.index);
    if (window.CSS && CSS.highlights && window.Highlight) {
      CSS.highlights.set("search-match", new Highlight(range));
    }
    // Keyboard users go on from the text that holds the match.
    reader.focus({ preventScroll: true });
    from.segment.scrollIntoView({ block: "center" });
    const announcer = document.getElementById("announcer");
    if (announcer) {
      // After the page's own first announcements, or the reader would not hear it.
      window.setTimeout(function () {
        announcer.textContent = interpolate(gettext("Showing the match “%(match)s”, highlighted."), { match: range.toString() }, true);
      }, 100);
    }
  }

  show();
  window.addEventListener("hashchange", show);
})();
