// Turns a text selection in a reader ([data-quote-reader]) into the code-point
// offsets the server stores, in the fields of the form beside it
// ([data-quote-form]: data-quote-start, -end, -text, -button, -preview). Each
// rendered segment carries data-start, its offset in the stored text; the
// browser counts UTF-16 units, so characters outside the Basic Multilingual
// Plane (emoji) are counted as one code point here, as Python does.
//
// Nothing here changes the layout while a selection is made (the preview sits in
// a bar of fixed height, app.css), so the text never moves under the pointer;
// and the form sends what is selected when it is sent, not an earlier capture.
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

  // The form's reader: the [data-quote-reader] that shares the nearest ancestor
  // with it, so that a page may hold more than one pair.
  function readerOf(form) {
    return nearest(form, "[data-quote-reader]");
  }

  // The first ``selector`` inside the closest ancestor of ``element`` that has one.
  function nearest(element, selector) {
    for (let scope = element.parentElement; scope; scope = scope.parentElement) {
      const found = scope.querySelector(selector);
      if (found) return found;
    }
    return null;
  }

  function pairs() {
    return Array.from(document.querySelectorAll("[data-quote-form]"))
      .map((form) => ({ form: form, reader: readerOf(form) }))
      .filter((pair) => pair.reader);
  }

  // What is selected in ``reader`` this moment: {start, end, text}; or
  // {none: true} for a selection there that holds none of its text; or null
  // when nothing of it is selected. A drag running out of the reader is cut at
  // its edge.
  function liveSelection(reader) {
    const selection = document.getSelection();
    if (!selection || !selection.rangeCount || selection.isCollapsed) return null;
    const range = selection.getRangeAt(0);
    if (!range.intersectsNode(reader)) return null;
    const start = boundaryIndex(reader, range.startContainer, range.startOffset);
    const end = boundaryIndex(reader, range.endContainer, range.endOffset);
    if (start === null || end === null || end <= start) return { none: true };
    return { start: start, end: end, text: textBetween(reader, start, end) };
  }

  function inside(element, node) {
    return Boolean(node) && element.contains(node);
  }

  // A form with fields of its own to type in (the case page's statement) keeps
  // the passage captured while they are typed in: the selection is gone from
  // the text then, and the preview shows what will be sent. A form with only the
  // button quotes what is selected on screen, nothing else.
  function keepsCapture(form) {
    return Boolean(form.querySelector("textarea, select, input:not([type=hidden])"));
  }

  function field(form, name) {
    return form.querySelector("[data-quote-" + name + "]");
  }

  // Enabled or not. A button rendered with aria-disabled stays pressable (and
  // says why nothing was quoted); one rendered with disabled is disabled.
  function offer(form, on) {
    const button = form.querySelector("[data-quote-button]");
    if (!button) return;
    if (button.hasAttribute("aria-disabled")) {
      button.setAttribute("aria-disabled", on ? "false" : "true");
    } else {
      button.disabled = !on;
    }
  }

  function say(form, message, full) {
    const preview = form.querySelector("[data-quote-preview]");
    if (!preview) return;
    // Shown on one line of a bar that never changes height (app.css cuts it with
    // an ellipsis); the whole passage is in the text read out and in the title.
    preview.textContent = message;
    if (full) preview.title = full;
    else preview.removeAttribute("title");
  }

  function capture(form, passage) {
    field(form, "start").value = passage.start;
    field(form, "end").value = passage.end;
    field(form, "text").value = passage.text;
    offer(form, true);
    const shown = interpolate(
      gettext("“%(passage)s” (characters %(start)s–%(end)s)"),
      { passage: shorten(passage.text, 1000), start: passage.start, end: passage.end },
      true,
    );
    say(form, shown, shown);
    offerJump(form, interpolate(gettext("“%(passage)s”"), { passage: shorten(passage.text, 90) }, true));
  }

  function forget(form, message) {
    const jump = jumpOf(form);
    if (jump) jump.hidden = true;
    for (const name of ["start", "end", "text"]) field(form, name).value = "";
    offer(form, false);
    say(form, message);
  }

  function shorten(text, most) {
    const characters = Array.from(text);
    return characters.length > most ? characters.slice(0, most - 3).join("") + "…" : text;
  }

  // What the form should hold, given what is selected now: "capture" the live
  // selection, "none" (a selection of no text of the reader), "keep" what it
  // holds, or "forget" it.
  function decide(form, reader, live) {
    if (live) return live.none ? "none" : "capture";
    const selection = document.getSelection();
    const anchor = selection && selection.rangeCount ? selection.anchorNode : null;
    // Typing in the form's own fields: the passage captured before stays.
    if (inside(form, anchor) && keepsCapture(form)) return "keep";
    // A click in the text, a selection removed, or anywhere when only the button
    // is there to press: nothing is selected on screen, so nothing is offered.
    if (!anchor || inside(reader, anchor) || !keepsCapture(form)) return "forget";
    return "keep";
  }

  function update() {
    for (const { form, reader } of pairs()) {
      const live = liveSelection(reader);
      const decision = decide(form, reader, live);
      if (decision === "capture") capture(form, live);
      else if (decision === "none") forget(form, gettext("This selection holds none of the piece's text."));
      else if (decision === "forget") forget(form, gettext("Nothing selected."));
    }
  }

  // The button sends what is selected on screen as it is pressed, read now rather
  // than kept from the last selectionchange. With nothing selected the form goes
  // without a passage, and the server says so and stores nothing.
  document.addEventListener("submit", function (event) {
    const form = event.target.closest && event.target.closest("[data-quote-form]");
    if (!form) return;
    // Another of the form's buttons (a passage picked from a list) sends its own.
    if (event.submitter && !event.submitter.matches("[data-quote-button]")) return;
    const reader = readerOf(form);
    if (!reader) return;
    const live = liveSelection(reader);
    const decision = decide(form, reader, live);
    if (decision === "capture") capture(form, live);
    else if (decision !== "keep") forget(form, gettext("Nothing selected."));
  }, true); // before htmx reads the form, from its own listener on it

  function jumpOf(form) {
    return nearest(form, "[data-quote-jump]");
  }

  // The case page's claim form sits above the piece: a passage selected far below
  // it gets a link, kept in sight, that leads to the form's first field.
  function offerJump(form, shown) {
    const jump = jumpOf(form);
    if (!jump) return;
    const box = form.getBoundingClientRect();
    jump.hidden = box.bottom > 0 && box.top < window.innerHeight;
    jump.querySelector("[data-quote-jump-preview]").textContent = shown;
  }

  document.addEventListener("click", function (event) {
    const link = event.target.closest("[data-quote-jump] a");
    if (!link) return;
    event.preventDefault();
    const jump = link.closest("[data-quote-jump]");
    const form = pairs().map((pair) => pair.form).find((candidate) => jumpOf(candidate) === jump);
    // The form's first field to type in (the case page's statement).
    const target = form && form.querySelector("textarea, select, input:not([type=hidden])");
    if (target) {
      target.scrollIntoView({ block: "center" });
      target.focus({ preventScroll: true });
    }
    jump.hidden = true;
  });

  // Picking a passage the finder found re-renders the claim form around it: send
  // along what was already typed there, so that it comes back in the new form.
  document.addEventListener("htmx:configRequest", function (event) {
    if (!event.detail.elt.matches("[data-passage-pick]")) return;
    const form = nearest(event.detail.elt, "[data-quote-form]");
    if (!form) return;
    for (const name of ["statement", "claimant"]) {
      const field = form.elements[name];
      if (field && field.value) event.detail.parameters[name] = field.value;
    }
  });

  document.addEventListener("selectionchange", update);
  document.addEventListener("htmx:afterSwap", update);
})();
