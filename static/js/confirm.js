// A button with data-confirm asks before its form is sent by htmx (htmx's own
// hx-confirm belongs to the form, which holds every action's button).
(function () {
  "use strict";

  document.addEventListener("htmx:confirm", function (event) {
    const submitted = event.detail.triggeringEvent;
    const button = submitted && submitted.submitter;
    const question = button && button.dataset.confirm;
    if (!question) return;
    event.preventDefault();
    if (window.confirm(question)) event.detail.issueRequest(true);
  });
})();
