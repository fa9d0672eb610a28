// A search box inside a form that does something else (the evidence picker's,
// inside "Attach evidence"): Enter there runs the search at once, as a pause in
// typing does, instead of sending the form with no quotation picked. Without
// this script Enter sends the form, whose refusal lists the matches just the same.
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    const box = event.target;
    if (event.key !== "Enter" || event.isComposing) return;
    if (!(box instanceof Element) || !box.matches("[data-enter-searches]")) return;
    event.preventDefault();
    box.dispatchEvent(new Event("search", { bubbles: true }));
  });
})();
