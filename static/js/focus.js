// htmx often replaces the part of the page that holds the keyboard focus (the
// button just pressed). The browser then drops the focus to the page's body,
// and a keyboard user starts again from the top after every save. Put it in
// what the swap brought instead: the first field to fix, else the message,
// else the part's heading. A part may name what takes the focus
// (data-swap-focus, such as "Quoted …" above a long text): that is focused
// without scrolling, so the reader stays where they were reading. A swap that
// did not take the focus (a poll while someone reads) leaves it alone, and so
// do the parts a response updates out of band.
(function () {
  "use strict";

  const CHOICES = ["[data-swap-focus]", '[aria-invalid="true"]', '[role="alert"]', '[role="status"]', "h2, h3"];
  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
  let swapTookFocus = false;
  let targetId = "";

  document.addEventListener("htmx:beforeSwap", function (event) {
    const active = document.activeElement;
    const target = event.detail.target;
    swapTookFocus = Boolean(active && active !== document.body && target && target.contains(active));
    targetId = (target && target.id) || "";
  });

  // A part sent out of band can hold the focus too (the button in the claim's
  // header that cleared its flag, where the answer is the edit form): the focus
  // then goes where it would had the request's own part held it.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    const active = document.activeElement;
    const replaced = event.detail.target;
    if (active && active !== document.body && replaced && replaced.contains(active)) swapTookFocus = true;
  });

  document.addEventListener("htmx:afterSettle", function (event) {
    if (!swapTookFocus) return;
    const active = document.activeElement;
    if (active && active !== document.body && document.contains(active)) {
      swapTookFocus = false; // htmx kept it (an input with an id) or the new part took it (autofocus)
      return;
    }
    const swapped = event.target;
    if (!(swapped instanceof Element) || !document.contains(swapped)) return;
    // Parts sent along out of band (the header and history beside a saved form)
    // settle too: the focus belongs in the part the request was for.
    if (targetId && swapped.id && swapped.id !== targetId) return;
    for (const selector of CHOICES) {
      const found = swapped.matches(selector) ? swapped : swapped.querySelector(selector);
      if (found) {
        if (!found.matches(FOCUSABLE)) found.setAttribute("tabindex", "-1");
        found.focus({ preventScroll: found.matches("[data-swap-focus]") });
        swapTookFocus = false;
        return;
      }
    }
  });
})();
