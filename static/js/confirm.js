// A button with data-confirm asks before its form is sent, whether htmx sends it
// (htmx's own hx-confirm belongs to the form, which holds every action's button)
// or the browser does (a plain form, such as the corrections desk's).
(function () {
  "use strict";

  function question(submitter) {
    return (submitter && submitter.dataset && submitter.dataset.confirm) || "";
  }

  document.addEventListener("htmx:confirm", function (event) {
    const submitted = event.detail.triggeringEvent;
    const asked = question(submitted && submitted.submitter);
    if (!asked) return;
    event.preventDefault();
    if (window.confirm(asked)) event.detail.issueRequest(true);
  });

  document.addEventListener("submit", function (event) {
    // htmx forms are asked above, when htmx is about to send them.
    if (event.target.closest("[hx-post], [hx-get]")) return;
    const asked = question(event.submitter);
    if (asked && !window.confirm(asked)) event.preventDefault();
  });
})();
