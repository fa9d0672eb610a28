// Turns a text selection in the source reader into the code-point offsets the
// server stores. Each rendered segment carries data-start, its offset in the
// stored text; the browser counts UTF-16 units, so characters outside the
// Basic Multilingual Plane (emoji) are counted as one code point here, as
// Python does.
(function () {
  "use strict";

  function codePoints(text) {
    let count = 0;
    for (const _ of text) count += 1;
    return count;
  }

  function segments(reader) {
    return Array.from(reader.querySelectorAll("[data-start]"));
  }

  function segmentLength(segment) {
    return codePoints(segment.textContent);
  }

  // The stored-text offset of a selection boundary (container, offset).
  function boundaryIndex(reader, container, offset) {
    if (container.nodeType === Node.TEXT_NODE) {
      const segment = container.parentElement.closest("[data-start]");
      if (segment && reader.contains(segment)) {
        return Number(segment.dataset.start) + codePoints(container.data.slice(0, offset));
      }
      // Text that is not the piece's (a claim's number before its passage): the
      // boundary is where the piece's text goes on after it.
      return offsetAfter(reader, container, false);
    }
    const own = container.closest && container.closest("[data-start]");
    if (own && reader.contains(own)) {
      return Number(own.dataset.start) + (offset === 0 ? 0 : segmentLength(own));
    }
    // A boundary between elements: the next segment's start, or the end of the last one.
    const marker = container.childNodes[offset];
    return marker ? offsetAfter(reader, marker, true) : offsetAfter(reader, container, false);
  }

  // The start of the first segment at or after ``node`` (inside it too when
  // ``including``), or the end of the last segment.
  function offsetAfter(reader, node, including) {
    const all = segments(reader);
    for (const segment of all) {
      if ((including && (node === segment || node.contains(segment))) ||
          node.compareDocumentPosition(segment) & Node.DOCUMENT_POSITION_FOLLOWING) {
        return Number(segment.dataset.start);
      }
    }
    const last = all[all.length - 1];
    return last ? Number(last.dataset.start) + segmentLength(last) : null;
  }

  // The stored text between two offsets, rebuilt from the segments.
  function textBetween(reader, start, end) {
    let text = "";
    let previousParagraph = null;
    for (const segment of segments(reader)) {
      const segmentStart = Number(segment.dataset.start);
      const characters = Array.from(segment.textContent);
      const segmentEnd = segmentStart + characters.length;
      if (segmentEnd <= start || segmentStart >= end) continue;
      if (previousParagraph && segment.parentElement !== previousParagraph) text += "\n";
      previousParagraph = segment.parentElement;
      text += characters.slice(Math.max(0, start - segmentStart), end - segmentStart).join("");
    }
    return text;
  }

  function update() {
    const form = document.querySelector("[data-quote-form]");
    const reader = document.querySelector("[data-quote-reader]");
    if (!form || !reader) return;
    const button = form.querySelector("[data-quote-button]");
    const preview = form.querySelector("[data-quote-preview]");
    const selection = document.getSelection();
    let start = null;
    let end = null;
    let inReader = false;
    if (selection && selection.rangeCount && !selection.isCollapsed) {
      const range = selection.getRangeAt(0);
      inReader = reader.contains(range.commonAncestorContainer);
      if (inReader) {
        start = boundaryIndex(reader, range.startContainer, range.startOffset);
        end = boundaryIndex(reader, range.endContainer, range.endOffset);
      }
    }
    if (start === null || end === null || end <= start) {
      // A selection elsewhere (typing the statement, say) keeps the captured passage;
      // one in the piece that holds none of its text (only a claim's number) clears
      // it, so that the form never quotes a passage other than the one shown selected.
      if (inReader) {
        const jump = document.querySelector("[data-quote-jump]");
        if (jump) jump.hidden = true;
        form.querySelector("[data-quote-start]").value = "";
        form.querySelector("[data-quote-end]").value = "";
        form.querySelector("[data-quote-text]").value = "";
      }
      if (!form.querySelector("[data-quote-start]").value) {
        button.disabled = true;
        preview.textContent = inReader ? "This selection holds none of the piece's text." : "Nothing selected.";
      }
      return;
    }
    const text = textBetween(reader, start, end);
    form.querySelector("[data-quote-start]").value = start;
    form.querySelector("[data-quote-end]").value = end;
    form.querySelector("[data-quote-text]").value = text;
    button.disabled = false;
    const shown = text.length > 90 ? text.slice(0, 87) + "…" : text;
    preview.textContent = "“" + shown + "” (characters " + start + "–" + end + ")";
    offerJump(form, "“" + shown + "”");
  }

  // The case page's claim form sits above the piece: a passage selected far below
  // it gets a link, kept in sight, that leads to the form's first field.
  function offerJump(form, shown) {
    const jump = document.querySelector("[data-quote-jump]");
    if (!jump) return;
    const box = form.getBoundingClientRect();
    jump.hidden = box.bottom > 0 && box.top < window.innerHeight;
    jump.querySelector("[data-quote-jump-preview]").textContent = shown;
  }

  document.addEventListener("click", function (event) {
    const link = event.target.closest("[data-quote-jump] a");
    if (!link) return;
    event.preventDefault();
    const field = document.getElementById("id_statement");
    if (field) {
      field.scrollIntoView({ block: "center" });
      field.focus({ preventScroll: true });
    }
    link.closest("[data-quote-jump]").hidden = true;
  });

  // Picking a passage the finder found re-renders the claim form around it: send
  // along what was already typed there, so that it comes back in the new form.
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt.matches("[data-passage-pick]")) return;
    const form = document.querySelector("[data-quote-form]");
    if (!form) return;
    for (const name of ["statement", "claimant"]) {
      const field = form.elements[name];
      if (field && field.value) event.detail.parameters[name] = field.value;
    }
  });

  document.addEventListener("selectionchange", update);
  document.addEventListener("htmx:afterSwap", update);
})();
