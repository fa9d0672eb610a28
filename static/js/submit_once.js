// A plain form sent twice (a double click, Enter pressed again while the next page
// loads) would make its change twice: two identical drafts. While the browser is
// sending one, its form ignores a second submit. htmx forms are left to htmx.
(function () {
  "use strict";

  // Long enough for any answer; after it a form that never led anywhere (Stop
  // pressed, the answer lost) can be sent again.
  const SENDING_MS = 10000;

  // On window, so that it runs after the document's listeners (confirm.js): a
  // submit they cancelled is not being sent.
  window.addEventListener("submit", function (event) {
    const form = event.target;
    if (form.method.toLowerCase() !== "post" || form.closest("[hx-post], [hx-get]")) return;
    if (form.dataset.sending) {
      event.preventDefault();
      return;
    }
    if (event.defaultPrevented) return;
    form.dataset.sending = "true";
    window.setTimeout(function () { delete form.dataset.sending; }, SENDING_MS);
  });

  // A page shown again from the back-forward cache can be sent again at once.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-sending]").forEach(function (form) {
      delete form.dataset.sending;
    });
  });
})();
