// htmx leaves the page as it was when an answer is an error it does not swap
// (403, 404, 413, 5xx) or when the server cannot be reached: the click would
// seem to do nothing. Say what happened in the page's alert region instead,
// and keep what the user typed where it is.
(function () {
  "use strict";

  const BY_STATUS = {
    403: gettext("You are not allowed to do that. Nothing was changed."),
    404: gettext("That item is no longer there; someone may have removed it. Reload the page to see the current state."),
    413: gettext("What you sent is too large. Nothing was saved."),
    429: gettext("Too many requests in a short time. Wait a minute, then try again."),
    503: gettext("The database is not reachable at the moment. Nothing was saved; try again shortly."),
  };
  const FALLBACK = gettext("The server could not complete this request. What you typed is still on the page; try again.");
  const UNREACHABLE = gettext("The server could not be reached. What you typed is still on the page; try again when the connection is back.");

  function region() {
    return document.getElementById("request-error");
  }

  function show(text) {
    const notice = region();
    if (!notice) return;
    notice.querySelector("[data-request-error-text]").textContent = text;
    notice.hidden = false;
  }

  function explanation(xhr) {
    // A plain-text answer is the server's own sentence for this case (such as a
    // pasted text over the limit); a page is not shown as text.
    const type = xhr.getResponseHeader("Content-Type") || "";
    const body = (xhr.responseText || "").trim();
    if (type.startsWith("text/plain") && body && body.length <= 500) return body;
    return BY_STATUS[xhr.status] || FALLBACK;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    // A poll (hx-trigger="every …") is not the user's doing: the notice stays to be read.
    if (/\bevery\b/.test(event.detail.elt.getAttribute("hx-trigger") || "")) return;
    const notice = region();
    if (notice) notice.hidden = true;
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    // A conflict answered with a sentence (factcheck/middleware.py) is said above
    // the page, like an error: the part it was asked for is not replaced by it.
    const xhr = event.detail.xhr;
    const type = xhr.getResponseHeader("Content-Type") || "";
    if (xhr.status === 409 && type.startsWith("text/plain")) {
      event.detail.shouldSwap = false;
      show(explanation(xhr));
    }
  });
  document.addEventListener("htmx:responseError", function (event) {
    show(explanation(event.detail.xhr));
  });
  document.addEventListener("htmx:sendError", function () {
    show(UNREACHABLE);
  });
  document.addEventListener("click", function (event) {
    if (!event.target.closest("[data-request-error-close]")) return;
    region().hidden = true;
    // The button pressed is hidden with it: the focus goes to the page's content.
    const main = document.getElementById("main");
    if (main) main.focus();
  });
})();
