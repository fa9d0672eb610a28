// A search box inside a form that does something else (the evidence picker's,
// inside "Attach evidence"): Enter there must not send that form, with no
// quotation picked. The box searches as one types (a pause starts it), so
// Enter only keeps the form from being sent; starting another search here
// would send the same request twice and announce its count twice. Without this
// script Enter sends the form, whose refusal lists the matches just the same.
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    const box = event.target;
    if (event.key !== "Enter" || event.isComposing) return;
    if (box instanceof Element && box.matches("[data-enter-stays]")) event.preventDefault();
  });
})();
